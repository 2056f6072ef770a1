"""Building a ruleset: compile, generate, and write outputs all or nothing.

A build makes every output in memory first — the engine package and the
print-and-play parts under `print/` — then writes them to a temporary folder
beside the target and moves it into place, so a failed build never leaves
half-written files.
Shipped rulesets build into the project's `generated/<name>/`; others into
`generated/<name>/` under the working directory unless told otherwise.
"""

from __future__ import annotations

import functools
import importlib
import linecache
import shutil
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path

from compiler import ir
from compiler.backends.engine_codegen import generate
from compiler.backends.print_and_play import print_steps
from compiler.backends.vassal import vassal_steps
from compiler.check import compile_ruleset
from compiler.load import PROJECT_ROOT, SHIPPED, resolve_ruleset
from compiler.local_charts import local_chart_file, local_charts
from compiler.outputs import OUTPUTS, PARTS
from compiler.progress import Progress
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


def write_atomically(
    target: Path, files: dict[str, str | bytes], replace: tuple[str, ...] = ()
) -> None:
    """Write every file into a fresh folder, then swap it in for `target`.

    Files already in `target` are kept unless their path starts with one of
    `replace` (the outputs this build remakes: stale ones must go).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name, content in files.items():
            path = tmp / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        if target.exists():
            # Keep what another backend wrote there (git-ignored images, PDFs).
            for old in target.rglob("*"):
                rel = old.relative_to(target)
                stale = rel.as_posix().startswith(replace) if replace else False
                if (
                    old.is_file()
                    and not stale
                    and not (tmp / rel).exists()
                    and "__pycache__" not in rel.parts
                ):
                    (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(old, tmp / rel)
            backup = target.with_name(f".{target.name}.old")
            if backup.exists():
                shutil.rmtree(backup)
            target.rename(backup)
            tmp.rename(target)
            shutil.rmtree(backup)
        else:
            tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def module_path(rules: ir.Ruleset) -> str:
    """The VASSAL module's path in the output folder."""
    return f"{rules.name}.vmod"


def vassal_output(
    rules: ir.Ruleset,
    sources: SourceFiles,
    engine: Callable[[], dict[str, str]] | None = None,
) -> list[tuple[str, Step]]:
    """The VASSAL module's steps; the scenarios' engines come from `engine()` (the package the
    build generates anyway), or are generated here."""
    made: dict[str, types.ModuleType] = {}

    def game_of(scenario: str) -> Game:
        if "pkg" not in made:
            files = engine() if engine is not None else generate(rules)
            made["pkg"] = load_generated(files, rules.name)
        return made["pkg"].load_game({"scenario": scenario})

    return vassal_steps(rules, sources, game_of)


def build(
    arg: str | Path, out: Path | None = None, only: str | None = None, progress: bool = True
) -> tuple[ir.Ruleset, Path]:
    """Compile a ruleset and write its outputs (or `only` one); raises `CompileError`."""
    rules, sources = compile_ruleset(arg)
    entry = resolve_ruleset(arg)
    target = output_dir(rules, entry, out)
    outputs = [only] if only else list(OUTPUTS)
    steps = []
    engine = functools.cache(lambda: dict(generate(rules)))
    if "engine" in outputs:
        steps.append(("engine", engine))
    for part in PARTS:
        if part in outputs and not rules.library:
            steps += [
                (what, lambda run=run: {f"print/{k}": v for k, v in run().items()})
                for what, run in print_steps(rules, sources, part)
            ]
    if "vassal" in outputs and not rules.library:
        steps += vassal_output(rules, sources, engine)
    bar = Progress(len(steps)) if progress else None
    files: dict[str, str | bytes] = {}
    for what, run in steps:
        files.update(run())
        if bar is not None:
            bar.step(what)
    replace = tuple(f"print/{p}" for p in PARTS if p in outputs)
    if "vassal" in outputs:
        replace += (module_path(rules),)
    write_atomically(target, files, replace)
    if target.parent == GENERATED:
        init = GENERATED / "__init__.py"
        if not init.exists():
            init.write_text('"""Engines generated by Muster from the shipped rulesets."""\n')
    return rules, target


def shipped_battles() -> list[str]:
    """Names of the shipped rulesets that build into a game (not libraries)."""
    return [
        entry.parent.name
        for entry in sorted(SHIPPED.glob("*/ruleset.mst"))
        if not compile_ruleset(entry.parent)[0].library
    ]


def load_generated(files: dict[str, str], name: str) -> types.ModuleType:
    """Import a generated package from its source text, without writing it."""
    pkg_name = f"_muster_generated_{name}"
    pkg = types.ModuleType(pkg_name)
    pkg.__path__ = []
    pkg.__package__ = pkg_name
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


def load_game(arg: str | Path, params: dict | None = None) -> Game:
    """A `Game` of a ruleset, compiled fresh from its rule files."""
    rules, _sources = compile_ruleset(arg)
    return with_local_charts(load_generated(generate(rules), rules.name), params)


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
