"""Backends: what the compiler makes from the checked IR."""
