"""Where compiled rules come from: the rule file, line and text of an instruction.

Every instruction of a compiled procedure carries its rule-file position
(`ProcedureSpec.lines`, "rulesets/series/movement.mst:47:5": file, line and
column of the statement), relative to the
project when the rule file lies inside it, absolute otherwise. An error
raised while an instruction runs gets a note naming that position and the
rule file's text there, the way a template engine names the template line
behind a failure, so a designer reads which rule failed, not which
generated function.
"""

from __future__ import annotations

import linecache
from pathlib import Path

from engine.nodes import RULE_FAULTS

# Positions are relative to the project: the folder that holds `engine/`.
PROJECT = Path(__file__).resolve().parent.parent


def rule_line(where: str) -> str:
    """`where` ("path:line:column") without its column: "path:line"."""
    path, _, column = where.rpartition(":")
    return path if column.isdigit() and path.rpartition(":")[2].isdigit() else where


def rule_text(where: str) -> str:
    """The text of the rule file at `where` ("path:line" or "path:line:column"), or ""
    when it cannot be read."""
    path, _, line = rule_line(where).rpartition(":")
    if not path or not line.isdigit():
        return ""
    full = Path(path) if Path(path).is_absolute() else PROJECT / path
    return linecache.getline(str(full), int(line)).strip()


NOTE_START = "in the rules, "


def rule_note(where: str, what: str) -> str:
    """The note added to an error raised by the rules at `where`."""
    text = rule_text(where)
    return f"{NOTE_START}{what} at {where}" + (f":\n    {text}" if text else "")


def rule_note_of(e: BaseException) -> str | None:
    """The note `rule_note` put on an error, if the rules raised it: "in the
    rules, procedure P at FILE:LINE:COLUMN:" and the rule's text on the next line."""
    return next((n.rstrip() for n in getattr(e, "__notes__", ()) if n.startswith(NOTE_START)), None)


def rule_place_of(e: BaseException) -> str | None:
    """Where the rules raised an error, in one line: "procedure P at FILE:LINE:COLUMN"
    (None when they did not)."""
    note = rule_note_of(e)
    return note.splitlines()[0].rstrip(":").removeprefix(NOTE_START) if note else None


def rule_failure(e: BaseException) -> str | None:
    """A rule's failure in play in one line, with the rule's file:line:column: "nothing
    to choose from for 'x' (in the rules, procedure P at FILE:LINE:COLUMN)"; None for
    an error the rules did not raise (Muster's own)."""
    place = rule_place_of(e)
    if place is None or not isinstance(e, RULE_FAULTS):
        return None
    return f"{e} (in the rules, {place})"


def lines_at(*runs: str | tuple[int, ...]) -> tuple[str, ...]:
    """Each instruction's position from runs of one file's lines and columns, as the
    generated code writes them: `lines_at("a.mst", (21, 22), (5, 9), "b.mst", (5,), (1,))`
    is "a.mst:21:5", "a.mst:22:9", "b.mst:5:1"."""
    out: list[str] = []
    for file, lines, columns in zip(runs[::3], runs[1::3], runs[2::3], strict=True):
        out += [f"{file}:{line}:{column}" for line, column in zip(lines, columns, strict=True)]
    return tuple(out)
