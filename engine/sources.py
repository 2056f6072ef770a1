"""Where compiled rules come from: the rule file, line and text of an instruction.

Every instruction of a compiled procedure carries its rule-file position
(`ProcedureSpec.lines`, "rulesets/series/movement.mst:47"), relative to the
project when the rule file lies inside it, absolute otherwise. An error
raised while an instruction runs gets a note naming that position and the
rule file's text there, the way a template engine names the template line
behind a failure, so a designer reads which rule failed, not which
generated function.
"""

from __future__ import annotations

import linecache
from pathlib import Path

# Positions are relative to the project: the folder that holds `engine/`.
PROJECT = Path(__file__).resolve().parent.parent


def rule_text(where: str) -> str:
    """The text of the rule file at `where` ("path:line"), or "" when it cannot be read."""
    path, _, line = where.rpartition(":")
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
    rules, procedure P at FILE:LINE:" and the rule's text on the next line."""
    return next((n.rstrip() for n in getattr(e, "__notes__", ()) if n.startswith(NOTE_START)), None)


def lines_at(*runs: str | tuple[int, ...]) -> tuple[str, ...]:
    """Each instruction's position from runs of one file's lines, as the generated
    code writes them: `lines_at("a.mst", (21, 22), "b.mst", (5,))`."""
    out: list[str] = []
    for file, lines in zip(runs[::2], runs[1::2], strict=True):
        out += [f"{file}:{line}" for line in lines]
    return tuple(out)
