"""A player's own chart values, kept out of the repository.

The printed charts of a GMT game (the Fire Table, the Close Combat Table, …)
are not public: the shipped rule files hold provisional values. A player who
owns the game writes the printed values in a local chart file beside the
battle's rule files — `rulesets/<battle>/charts.local.mst`, ignored by git —
that imports the battle and overrides its tables:

    import "ruleset.mst"

    override table close_combat_table "Close Combat Table" § series 12.23 {
        roll die
        columns odds 1:3 1:2 1:1 3:2 2:1 3:1 4:1 5:1
        cells attacker/defender
        ...
    }

Each `Game` made by `compiler.build.load_game` (what `muster play`,
`muster replay` and the tests use) reads the file, if there is one, and plays
with those tables; the generated package takes them compiled
(`params["charts"]`) and reads no rule file itself. The file is checked like any
rule file; it may only override tables.
"""

from __future__ import annotations

from pathlib import Path

from compiler import ir
from compiler.load import SHIPPED, load
from dsl import ast
from dsl.diagnostics import BAD_VALUE, Reporter
from dsl.source import SourceFiles, Span
from engine.rules import Rules, TableSpec

LOCAL_CHARTS = "charts.local.mst"


def local_chart_file(battle: str) -> Path | None:
    """The local chart file of a shipped battle, if the player has written one."""
    path = SHIPPED / battle / LOCAL_CHARTS
    return path if path.is_file() else None


def local_charts(path: Path, rules: Rules) -> dict[str, TableSpec]:
    """The tables a local chart file overrides, compiled against the battle's rules.

    Raises `CompileError` (every mistake, with its position) as `muster check` would.
    """
    from compiler.backends.engine_codegen import Codegen
    from compiler.check import compile_loaded

    path = path.resolve()
    reporter = Reporter(SourceFiles())
    loaded = load(path, reporter)
    reporter.check()
    ours = loaded.files[-1]
    _check_only_tables(ours, reporter)
    reporter.check()
    ruleset = compile_loaded(loaded, reporter)
    _check_same_results(ours, ruleset, rules, reporter)
    reporter.check()
    codegen = Codegen(ruleset)
    known = {t.name for t in rules.tables}
    overridden = (t for t in ruleset.tables if t.span.file == ours.path and t.name in known)
    return {t.name: TableSpec(**codegen.table(t)) for t in overridden}


def _check_only_tables(ours: ast.File, reporter: Reporter) -> None:
    for decl in ours.decls:
        if not _may_hold(decl):
            reporter.error(
                decl.span,
                BAD_VALUE,
                "a local chart file holds `import` and `override table` declarations only",
            )


def _check_same_results(ours: ast.File, ruleset: ir.Ruleset, rules: Rules, r: Reporter) -> None:
    """The charts may change what a roll gives, not which results there are."""
    if [x.name for x in ruleset.results] != [x.name for x in rules.results]:
        r.error(
            Span(ours.path, 1, 1, 1, 1),
            BAD_VALUE,
            "the local charts change the battle's results: they may only override tables",
        )


def _may_hold(decl: ast.Decl) -> bool:
    """What a local chart file may declare: imports and tables that override the battle's."""
    if isinstance(decl, ast.Import):
        return True
    return isinstance(decl, ast.Entity) and decl.kind == "table" and decl.override
