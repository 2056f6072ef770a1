"""The `muster` application: the command line and one module per command.

It sits above the pipeline (`dsl/` → `compiler/` → `engine/` → `table/`) and
nothing below imports it: the commands only drive the compiler, the engine and
the table.
"""
