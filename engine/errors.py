"""The one base of every error that means bad input, for every layer.

`muster` exits with status 1 and one line for a `BadInput` (its message
names the file and line, or the field, or the value the user gave); any
other exception escaping a command is a bug in Muster, status 3
(docs/reliability.md, "The error contract"). So an error is a `BadInput`
only when the input is what is wrong, never when Muster is.
"""

from __future__ import annotations


class BadInput(ValueError):
    """Input Muster refuses: a file, a field or an argument value the user gave."""
