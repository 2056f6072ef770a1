"""The Muster rule language: grammar, parser and syntax tree (with source positions)."""
