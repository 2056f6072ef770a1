"""VASSAL's sequence encoding: values joined by a delimiter, the delimiter escaped inside them.

Every piece definition, keystroke list and saved-game command is text built
this way (FORMAT.md, "SequenceEncoder"): a delimiter inside a value gets one
backslash in front, backslashes already there are left alone, and a value
that starts with a backslash or is wrapped in single quotes gets single
quotes around it. VASSAL's decoder reads a backslash before a delimiter as an
escape, so a value that *ends* in a backslash cannot be carried, nor a tab in
a counter's name: `text()` makes designer text safe before it is encoded.
"""

from __future__ import annotations

from collections.abc import Iterable


class Unencodable(ValueError):
    """A value VASSAL's decoder would read back differently."""


def encode_value(value: str, delimiter: str) -> str:
    if value.endswith("\\"):
        raise Unencodable(f"{value!r} ends with a backslash, which VASSAL reads as an escape")
    escaped = value.replace(delimiter, "\\" + delimiter)
    if value.startswith("\\") or (value.startswith("'") and value.endswith("'")):
        return f"'{escaped}'"
    return escaped


def sequence(values: Iterable[object], delimiter: str) -> str:
    """The values (numbers and booleans as VASSAL writes them) joined by `delimiter`."""
    return delimiter.join(encode_value(as_text(v), delimiter) for v in values)


def as_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def text(value: str) -> str:
    """Designer text as VASSAL can carry it: a trailing backslash gets a space after it,
    and a tab is a space. (VASSAL reads a piece's innermost trait, its BasicPiece, by
    splitting what is left at tabs once more: a tab in a counter's name would end it.)"""
    value = value.replace("\t", " ")
    return value + " " if value.endswith("\\") else value
