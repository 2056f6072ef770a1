"""The designer's workbench on the command line: `muster new`, `muster check --watch`,
`muster test`.

Kept apart from `muster.cli` so the commands a designer uses while writing
a battle (scaffold, watch, and the language tests and editor server) sit
together; `muster.cli` registers them with `add_commands`. Like the
commands of `muster.cli`, a command whose work needs the engine builder
imports it when run, so that `muster check` starts without it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from compiler.check import check_ruleset
from compiler.load import display_name, resolve_ruleset
from dsl.diagnostics import CompileError
from muster.scaffold import ScaffoldError, default_folder, new_battle
from muster.watch import watch


def cmd_new(args: argparse.Namespace) -> int:
    folder = Path(args.dir) if args.dir else default_folder(args.name, Path.cwd())
    try:
        scaffold = new_battle(args.name, folder, args.title)
    except ScaffoldError as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    where = display_name(scaffold.folder)
    try:
        rules, _sources, _warnings = check_ruleset(scaffold.folder)
    except CompileError as e:
        # The name itself clashes (a series declaration's name): keep nothing.
        shutil.rmtree(scaffold.folder)
        print(e, file=sys.stderr)
        print(
            f"muster: {where} not kept: a battle named {args.name!r} does not check as "
            "written; choose another name",
            file=sys.stderr,
        )
        return 1
    for path in scaffold.files:
        print(f"  wrote {display_name(path)}")
    print(
        f"{rules.title} ({rules.name}): ok — next: edit the TODOs, `muster check --watch {where}`"
    )
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    try:
        watch(resolve_ruleset(args.ruleset), print)
    except KeyboardInterrupt:
        return 0
    return 0  # pragma: no cover - watch returns only when interrupted


def cmd_test(args: argparse.Namespace) -> int:
    """Run a battle's language tests; pytest-like lines, failures at their file:line."""
    # Imported here, as `muster.cli` imports each command's modules: running
    # tests builds engines (and imports the map libraries), which `muster
    # check` and `muster new` must not pay for.
    from compiler.build import shipped_battles
    from muster.language_tests import run_tests, test_folder

    targets = shipped_battles() if args.ruleset == "shipped" else [args.ruleset]
    failed = passed = 0
    start = time.perf_counter()
    failures: list[str] = []
    for target in targets:
        tests, run = run_tests(target, args.k)
        where = display_name(test_folder(resolve_ruleset(target)))
        print(f"muster test {target}: {len(tests)} test(s) in {where}")
        for o in run.outcomes:
            mark = "PASSED" if o.failure is None else "FAILED"
            print(f"{o.test.file}::{o.test.name} {mark}")
            if o.failure is not None:
                failures.append(f"{o.test.name} — {o.test.title}\n    {o.failure}")
        failed += len(run.failed)
        passed += len(run.outcomes) - len(run.failed)
    if failures:
        print("=" * 20 + " failures " + "=" * 20)
        print("\n".join(failures))
    took = time.perf_counter() - start
    summary = f"{passed} passed" + (f", {failed} failed" if failed else "")
    print(f"{'=' * 20} {summary} in {took:.2f} s {'=' * 20}")
    return 1 if failed else 0


def cmd_lsp(args: argparse.Namespace) -> int:
    """The language server over stdio, for editors (docs/editor.md)."""
    try:
        # pygls is an optional dependency (`pip install 'muster[editor]'`): a
        # documented lazy import, so that nothing else needs it.
        from muster.language_server import serve
    except ImportError:
        print(
            "muster: the language server needs pygls: pip install 'muster[editor]'", file=sys.stderr
        )
        return 2
    serve()
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register the workbench's subcommands on the `muster` parser."""
    n = sub.add_parser("new", help="scaffold a new battle that imports the series")
    n.add_argument("name", help="the battle's name: lower-case letters, digits and _")
    n.add_argument("--title", help="its title (default: the name in words, capitalised)")
    n.add_argument("--dir", help="the folder to create (default rulesets/NAME or NAME)")
    n.set_defaults(func=cmd_new)

    t = sub.add_parser("test", help="run a battle's tests written in the rule language")
    t.add_argument("ruleset", help="a battle, or `shipped` for every shipped battle")
    t.add_argument("-k", help="only the tests whose name contains this")
    t.set_defaults(func=cmd_test)

    ls = sub.add_parser("lsp", help="the language server for editors, over stdio")
    ls.set_defaults(func=cmd_lsp)
