"""Building a ruleset: compile, generate, and write outputs all or nothing.

Every output — the engine package, the print-and-play parts under
`print/` and the VASSAL module `<name>.vmod` — is written into an
`OutputFolder`: a fresh folder beside the target, swapped in only when the
whole build has succeeded, so a failed or killed build never leaves
half-written files and never destroys any (see `compiler/output_folder.py`
for what a build refuses to write over).
Shipped rulesets build into the project's `generated/<name>/`; others into
`generated/<name>/` under the working directory unless told otherwise.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import io
import linecache
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path

from compiler import ir
from compiler.backends.engine_codegen import generate
from compiler.backends.print_and_play.steps import ChartsShared, print_steps
from compiler.backends.vassal import vassal_steps
from compiler.backends.vassal.images import screen_charts
from compiler.check import compile_ruleset
from compiler.check.header import RULESET_KEYS
from compiler.check.props import Props
from compiler.load import PROJECT_ROOT, SHIPPED, load, resolve_ruleset
from compiler.local_charts import local_chart_file, local_charts
from compiler.output_folder import BuildRefused, OutputFolder
from compiler.outputs import OUTPUTS, PARTS
from compiler.progress import Progress
from dsl import ast
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles
from engine.game import Game

Step = Callable[[], dict[str, str | bytes]]

GENERATED = PROJECT_ROOT / "generated"


def is_shipped(entry: Path) -> bool:
    try:
        entry.relative_to(SHIPPED)
    except ValueError:
        return False
    return True


def output_dir(rules: ir.Ruleset, entry: Path, out: Path | None = None) -> Path:
    if out is not None:
        return out
    if is_shipped(entry):
        return GENERATED / rules.name
    return Path.cwd() / "generated" / rules.name


def module_path(rules: ir.Ruleset) -> str:
    """The VASSAL module's path in the output folder."""
    return f"{rules.name}.vmod"


def vassal_output(
    rules: ir.Ruleset,
    sources: SourceFiles,
    engine: Callable[[], dict[str, str]] | None = None,
    shared: ChartsShared | None = None,
) -> list[tuple[str, Step]]:
    """The VASSAL module's steps; the scenarios' engines come from `engine()` (the package the
    build generates anyway), or are generated here; its charts from `shared`, when the
    build's print-and-play charts step makes them."""
    made: dict[str, types.ModuleType] = {}

    def game_of(scenario: str) -> Game:
        if "pkg" not in made:
            files = engine() if engine is not None else generate(rules)
            made["pkg"] = load_generated(files, rules.name)
        return made["pkg"].load_game({"scenario": scenario})

    return vassal_steps(rules, sources, game_of, shared)


def refuse_shipped_folder(rules: ir.Ruleset, entry: Path, target: Path) -> None:
    """A shipped battle's `generated/<name>/` takes only that battle's build."""
    try:
        name = target.resolve().relative_to(GENERATED.resolve()).as_posix()
    except ValueError:
        return
    if (SHIPPED / name / "ruleset.mst").is_file() and not (
        is_shipped(entry) and entry.parent.name == name and rules.name == name
    ):
        raise BuildRefused(
            f"{target} is the shipped battle {name!r}'s folder, not {rules.name!r}'s"
        )


def build(
    arg: str | Path, out: Path | None = None, only: str | None = None, progress: bool = True
) -> tuple[ir.Ruleset, Path]:
    """Compile a ruleset and write its outputs (or `only` one); raises `CompileError`."""
    rules, sources = compile_ruleset(arg)
    if rules.library:
        generate(rules)  # refuses it, before any folder is made
    entry = resolve_ruleset(arg)
    target = output_dir(rules, entry, out)
    outputs = [only] if only else list(OUTPUTS)
    steps = _build_steps(rules, sources, outputs)
    refuse_shipped_folder(rules, entry, target)
    adopt = Path(os.path.abspath(target)) == GENERATED / rules.name and is_shipped(entry)
    bar = Progress(len(steps)) if progress else None
    with OutputFolder(target, rules.name, _remade(rules, outputs), adopt=adopt) as folder:
        for what, run in steps:
            for name, content in run().items():
                folder.write(name, content)
            if bar is not None:
                bar.step(what)
    if target.parent == GENERATED:
        _mark_generated_package()
    return rules, target


def _build_steps(
    rules: ir.Ruleset, sources: SourceFiles, outputs: list[str]
) -> list[tuple[str, Step]]:
    """The steps that make these outputs, each named (`generate` refuses a library)."""
    engine = functools.cache(lambda: dict(generate(rules)))
    # Charts drawn once: the module's are made from the print-and-play ones.
    shared = ChartsShared(screen_charts) if {"charts", "vassal"} <= set(outputs) else None
    steps: list[tuple[str, Step]] = []
    if "engine" in outputs:
        steps.append(("engine", engine))
    for part in PARTS:
        if part in outputs:
            made = print_steps(rules, sources, part, shared)
            steps += [(what, _under_print(run)) for what, run in made]
    if "vassal" in outputs:
        steps += vassal_output(rules, sources, engine, shared)
    return steps


def _under_print(run: Step) -> Step:
    """A print-and-play step whose files go under `print/`."""
    return lambda: {f"print/{k}": v for k, v in run().items()}


def _remade(rules: ir.Ruleset, outputs: list[str]) -> tuple[str, ...]:
    """The paths in the output folder that this build makes afresh."""
    remade = tuple(f"print/{p}" for p in PARTS if p in outputs)
    if "vassal" in outputs:
        remade += (module_path(rules),)
    return remade


def _mark_generated_package() -> None:
    """`generated/` is a package: the shipped battles' engines are imported from it."""
    init = GENERATED / "__init__.py"
    if not init.exists():
        init.write_text('"""Engines generated by Muster from the shipped rulesets."""\n')


def shipped_battles() -> list[str]:
    """Names of the shipped rulesets that build into a game (not libraries)."""
    return [
        entry.parent.name
        for entry in sorted(SHIPPED.glob("*/ruleset.mst"))
        if not _is_library(entry)
    ]


def _is_library(entry: Path) -> bool:
    """Whether a ruleset is a library (`library` in its ruleset declaration: the last
    one read, the entry file's if it has one), from its files parsed alone rather
    than by compiling the ruleset (the trees are kept for a build that follows).
    Rule files that do not parse, or declare no ruleset, are compiled, so that
    their errors are reported as a build reports them."""
    reporter = Reporter(SourceFiles())
    declared = [
        d
        for parsed in load(entry, reporter).files
        for d in parsed.decls
        if isinstance(d, ast.Entity) and d.kind == "ruleset"
    ]
    if reporter.has_errors() or not declared:
        return compile_ruleset(entry.parent)[0].library
    return Props(declared[-1], reporter, RULESET_KEYS).flag("library")


def load_generated(files: dict[str, str], name: str) -> types.ModuleType:
    """Import a generated package from its source text, without writing it.

    Its data files (`board.json`) are read through `importlib.resources`, as
    from a package on disk: the package's loader hands them out from `files`.
    """
    pkg_name = f"_muster_generated_{name}"
    pkg = types.ModuleType(pkg_name)
    pkg.__path__ = []
    pkg.__package__ = pkg_name
    pkg.__spec__ = importlib.machinery.ModuleSpec(pkg_name, _PackageData(files), is_package=True)
    rules_mod = types.ModuleType(f"{pkg_name}.rules")
    rules_mod.__package__ = pkg_name
    sys.modules[pkg_name] = pkg
    sys.modules[f"{pkg_name}.rules"] = rules_mod
    pkg.rules = rules_mod  # as importing the submodule would set it
    for file, module in (("rules.py", rules_mod), ("__init__.py", pkg)):
        filename = f"<generated {name}/{file}>"
        source = files[file]
        # Tracebacks through code compiled in memory show its lines, as from a file.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), module.__dict__)
    return pkg


class _PackageData(importlib.abc.Loader):
    """The loader of a package generated in memory: its files as package resources."""

    def __init__(self, files: dict[str, str]) -> None:
        self.texts = files

    def get_resource_reader(self, name: str) -> _PackageData:
        return self

    def open_resource(self, resource: str) -> io.BytesIO:
        if resource not in self.texts:
            raise FileNotFoundError(resource)
        return io.BytesIO(self.texts[resource].encode("utf-8"))

    def resource_path(self, resource: str) -> str:
        raise FileNotFoundError(resource)  # nothing is on disk

    def is_resource(self, path: str) -> bool:
        return path in self.texts

    def contents(self) -> list[str]:
        return sorted(self.texts)


def load_game(arg: str | Path, params: dict | None = None) -> Game:
    """A `Game` of a ruleset, compiled fresh from its rule files."""
    return load_rules_and_game(arg, params)[1]


def load_rules_and_game(arg: str | Path, params: dict | None = None) -> tuple[ir.Ruleset, Game]:
    """The checked rules and a `Game` of them, compiled once: for what needs both (a
    VASSAL log of a replayed game is written from the IR and played by the engine)."""
    rules, _sources = compile_ruleset(arg)
    return rules, with_local_charts(load_generated(generate(rules), rules.name), params)


def with_local_charts(pkg: types.ModuleType, params: dict | None = None) -> Game:
    """`pkg.load_game(params)` with a player's local chart values compiled and handed
    over: the file `params["local_charts"]` names, else the battle's own
    `rulesets/NAME/charts.local.mst` if it exists (the generated package itself
    imports only `engine/`, so it cannot read rule files)."""
    params = dict(params or {})
    path = params.pop("local_charts", None) or local_chart_file(pkg.NAME)
    if path is not None:
        params["charts"] = local_charts(Path(path), pkg.RULES)
    return pkg.load_game(params)


def import_shipped(name: str) -> types.ModuleType:
    """The committed generated package of a shipped battle."""
    return importlib.import_module(f"generated.{name}")
