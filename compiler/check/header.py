"""Pass 2: the ruleset declaration — name, source, die, turns, the start.

The entry file's declaration is the last one read; an imported library's
gives what the entry's leaves out (the die).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.check.bounds import DIE_FACE, TURN, all_within, prop_range
from compiler.check.collect import Declarations
from compiler.check.props import Props
from dsl import ast
from dsl.diagnostics import BAD_VALUE, DUPLICATE, MISSING, Reporter
from dsl.source import Span

RULESET_KEYS = {"source", "die", "turns", "start", "library"}


@dataclass(frozen=True)
class Header:
    """What the ruleset declaration says."""

    decl: ast.Entity
    library: bool
    source: str | None
    die: tuple[int, int]
    turns: tuple[int, int]
    start: str


def read_header(decls: Declarations, reporter: Reporter, entry: str) -> Header:
    """The entry's ruleset declaration, checked; raises `CompileError` when there is none
    (reported at the start of the entry file, `entry` as diagnostics name it)."""
    decl, inherited_die = _entry_declaration(decls, reporter, entry)
    reporter.check()
    assert decl is not None
    p = Props(decl, reporter, RULESET_KEYS)
    library = p.flag("library")
    source = _source(p, reporter)
    die = prop_range(p, "die", DIE_FACE, required=inherited_die is None)
    die = die or inherited_die or (0, 9)
    turns = prop_range(p, "turns", TURN, required=not library) or (1, 1)
    start = p.name("start", "game") or "game"
    return Header(decl, library, source, die, turns, start)


def _entry_declaration(
    decls: Declarations, reporter: Reporter, entry: str
) -> tuple[ast.Entity | None, tuple[int, int] | None]:
    """The entry file's ruleset declaration and the die an imported one gives."""
    items = decls.of("ruleset")
    if not items:
        reporter.error(
            Span(entry, 1, 1, 1, 1),
            MISSING,
            "the ruleset has no ruleset declaration",
            'declare `ruleset NAME "Title" { … }` in this file or a file it imports',
        )
        return None, None
    files = [d.span.file for d in items]
    for d in items[1:]:
        if files.count(d.span.file) > 1:
            reporter.error(d.span, DUPLICATE, "one ruleset declaration per file")
    die = None
    for d in items[:-1]:
        faces = _die_of(d)
        if faces and all_within(reporter, d.span, "'die'", faces, DIE_FACE):
            die = faces
    return items[-1], die


def _die_of(d: ast.Entity) -> tuple[int, int] | None:
    """`die LOW..HIGH` of a ruleset declaration, if it says so."""
    line = next((ln for ln in d.body.lines if isinstance(ln, ast.Line) and ln.key == "die"), None)
    if line is None or len(line.values) != 2 or not isinstance(line.values[1], ast.Range):
        return None
    r = line.values[1]
    if r.low is None or r.high is None:
        return None
    return (int(r.low), int(r.high))


def _source(p: Props, reporter: Reporter) -> str | None:
    """`source none "why"`: a battle with no source document says why."""
    line = p.line("source")
    if line is None:
        return None
    vals = line.values[1:]
    if (
        len(vals) == 2
        and isinstance(vals[0], ast.Name)
        and vals[0].id == "none"
        and isinstance(vals[1], ast.String)
    ):
        return vals[1].value
    reporter.error(
        line.span, BAD_VALUE, 'write `source none "why"` for a battle with no source document'
    )
    return None
