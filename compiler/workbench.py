"""The designer's workbench on the command line: `muster new`, `muster check --watch`.

Kept apart from `compiler.cli` so the commands a designer uses while writing
a battle (scaffold, watch, and the language tests and editor server) sit
together; `compiler.cli` registers them with `add_commands`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from compiler.check import check_ruleset
from compiler.load import display_name, resolve_ruleset
from compiler.scaffold import ScaffoldError, default_folder, new_battle
from compiler.watch import watch


def cmd_new(args: argparse.Namespace) -> int:
    folder = Path(args.dir) if args.dir else default_folder(args.name, Path.cwd())
    try:
        scaffold = new_battle(args.name, folder, args.title)
    except ScaffoldError as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    for path in scaffold.files:
        print(f"  wrote {display_name(path)}")
    rules, _sources, _warnings = check_ruleset(scaffold.folder)
    where = display_name(scaffold.folder)
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


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register the workbench's subcommands on the `muster` parser."""
    n = sub.add_parser("new", help="scaffold a new battle that imports the series")
    n.add_argument("name", help="the battle's name: lower-case letters, digits and _")
    n.add_argument("--title", help='its title (default: from the name, "Mill Creek")')
    n.add_argument("--dir", help="the folder to create (default rulesets/NAME or NAME)")
    n.set_defaults(func=cmd_new)
