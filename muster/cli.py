"""The `muster` command: check, build, play and replay rulesets.

Every command takes a ruleset path or the name of a shipped battle. Errors in
rule files are printed with their positions and exit with status 1; nothing
prints a Python traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compiler.load import PROJECT_ROOT, RulesetNotFound
from compiler.output_folder import BuildRefused
from compiler.outputs import OUTPUTS
from dsl.diagnostics import CompileError
from engine.errors import BadInput
from engine.nodes import RULE_FAULTS
from engine.play import SEED_LIMIT, ReplayError
from engine.sources import rule_note_of
from muster.workbench import add_commands

# `--changed` of the map commands: the terrain as in play (engine/terrain_state.py).
CHANGED_HELP = (
    "terrain changes made, e.g. bridge_blown pontoon_laid@0505/0605 "
    "(NAME@PLACE for a change made at one of its places)"
)


def _positive(text: str) -> int:
    """An argparse type: a whole number of at least 1 (games, processes, dots per inch)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return value


def _port(text: str) -> int:
    """An argparse type: a TCP port (0 lets the system choose)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, not {text!r}")
    return value


def _seed(text: str) -> int:
    """An argparse type: a seed a log can carry (`muster replay` refuses any
    other), a whole number between -2**63 and 2**63, both excluded."""
    try:
        value = int(text)
    except ValueError:
        value = SEED_LIMIT
    if not -SEED_LIMIT < value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(
            f"expected a whole number between -2**63 and 2**63, not {text[:40]!r}"
        )
    return value


def _folder(text: str) -> str:
    """An argparse type: a path that is not empty (`--out ""` is no folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, not an empty path")
    return text


def cmd_table(args: argparse.Namespace) -> int:
    """`muster table`: the web page to play a battle (the optional `table` extra)."""
    try:
        from muster.table import run_table  # lazy: Starlette and uvicorn are an optional extra
    except ImportError as e:
        print(
            f"muster: the table needs its extra: pip install -e '.[table]' ({e})", file=sys.stderr
        )
        return 2
    return run_table(args)


def add_simulate_parser(sub: Any) -> None:
    """`muster simulate` (muster/simulation.py; imported only when it runs)."""
    s = sub.add_parser("simulate", help="play many seeded games with bots: a balance report")
    s.add_argument("ruleset")
    s.add_argument("--scenario", help="the scenario (default: the first declared)")
    s.add_argument("--games", type=_positive, default=100, help="how many games (default 100)")
    s.add_argument(
        "--bots", default="heuristic,heuristic", help="one bot per side, e.g. heuristic,mcts:200"
    )
    s.add_argument(
        "--jobs", type=_positive, default=1, help="processes on this machine (default 1)"
    )
    s.add_argument("--seed", type=int, default=1, help="the run's seed: game i plays seed(K, i)")
    s.add_argument("--swap", action="store_true", help="play each seed twice, sides swapped")
    s.add_argument(
        "--out", type=_folder, help="write the JSON report and PNG plots into this folder"
    )
    s.add_argument("--cluster", help="a Dask scheduler's address (needs the `cluster` extra)")
    s.add_argument("--rule", action="append", default=[], help="switch a rule: name=on|off")
    s.add_argument(
        "--journal",
        type=Path,
        help="keep each game in this file as it finishes; a run cut short resumes from it",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func="muster.simulation:cmd_simulate")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="muster", description="Compile and play wargame rulesets.")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("check", help="check a ruleset and summarise it")
    c.add_argument("ruleset")
    c.add_argument(
        "--provisional", action="store_true", help="list every provisional value and why"
    )
    c.add_argument("--watch", action="store_true", help="re-check on every save (Ctrl-C stops)")
    c.set_defaults(func="muster.check:cmd_check")
    add_commands(sub)

    cv = sub.add_parser("coverage", help="the rulebook's numbered sections against the citations")
    cv.add_argument("ruleset")
    cv.add_argument("--rulebook", required=True, help="the rulebook as plain text")
    cv.add_argument("--documents", help="names of the documents in the text, in order (a,b)")
    cv.add_argument("--all", action="store_true", help="list cited sections too")
    cv.add_argument("--strict", action="store_true", help="exit 1 when a section is uncited")
    cv.add_argument(
        "--soak", help="firing counts of `muster soak --counts`: an executed column per section"
    )
    cv.add_argument(
        "--tests",
        default=str(PROJECT_ROOT / "tests") if (PROJECT_ROOT / "tests").is_dir() else None,
        help="test folder whose `§ doc N` citations fill the tested column, with the "
        "battle's tests/*.mst (default: tests/)",
    )
    cv.set_defaults(func="muster.coverage:cmd_coverage")

    d = sub.add_parser("dump", help="print the checked IR as JSON (see docs/ir.md)")
    d.add_argument("ruleset")
    d.add_argument(
        "--code",
        metavar="PROCEDURE",
        help="print a procedure's compiled instructions with their rule-file lines instead",
    )
    d.set_defaults(func="muster.dump:cmd_dump")

    b = sub.add_parser(
        "build", help="build a ruleset's engine package and print-and-play components"
    )
    b.add_argument("ruleset", help="a ruleset, or `shipped` for every shipped battle")
    b.add_argument("--out", type=_folder, help="output folder (default generated/<name>)")
    b.add_argument("--only", choices=OUTPUTS, help="build only this output (default: all)")
    b.set_defaults(func="muster.build:cmd_build")

    pl = sub.add_parser("play", help="play one game with bots and print its account")
    pl.add_argument("ruleset")
    pl.add_argument(
        "--bots",
        default="random,random",
        help="one bot per side: random, eager, heuristic, mcts[:ITERATIONS|:SECONDSs]",
    )
    pl.add_argument("--seed", type=_seed, default=1)
    pl.add_argument("--log", help="write the game's JSONL log here")
    pl.add_argument("--rule", action="append", default=[], help="switch a rule: name=on|off")
    pl.add_argument("--scenario", help="the scenario to play (default: the first declared)")
    pl.add_argument("--quiet", action="store_true", help="print only the result")
    pl.set_defaults(func="muster.play:cmd_play")

    tb = sub.add_parser(
        "table", help="a local web page to play the battle against a bot or a friend"
    )
    tb.add_argument("ruleset")
    tb.add_argument("--scenario")
    tb.add_argument("--side", help="the side you play (a side's name, or both for hot seat)")
    tb.add_argument(
        "--bot", help="the bot that plays the other side (default: heuristic if built, else random)"
    )
    tb.add_argument(
        "--seed",
        type=_seed,
        help="the first game's dice (as muster play --seed; each later game plays the "
        "next seed); by default every game's seed is drawn at random",
    )
    tb.add_argument("--port", type=_port, default=8765)
    tb.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (this machine only by default)",
    )
    tb.add_argument(
        "--allow-host",
        action="append",
        metavar="NAME",
        help="a name people use to reach the table on a network (repeatable)",
    )
    tb.add_argument("--load", help="resume a saved position (the engine's JSON)")
    tb.add_argument("--replay", help="open a play log in the replay viewer")
    tb.set_defaults(func=cmd_table)

    mp = sub.add_parser("map", help="draw the map as a PNG at print resolution")
    mp.add_argument("ruleset")
    mp.add_argument("-o", "--out", default="map.png", help="the PNG to write (default map.png)")
    mp.add_argument("--dpi", type=_positive, default=300, help="dots per inch (default 300)")
    mp.add_argument("--los", nargs=2, metavar=("A", "B"), help="overlay the line of sight A→B")
    mp.add_argument("--units", help="hexes holding combat units, e.g. 0304,0506")
    mp.add_argument("--changed", nargs="+", default=[], metavar="CHANGE", help=CHANGED_HELP)
    mp.set_defaults(func="muster.map_commands:cmd_map")

    for name, func, what in (
        (
            "los",
            "muster.map_commands:cmd_los",
            "is the line of sight from hex A to hex B clear, and why",
        ),
        (
            "path",
            "muster.map_commands:cmd_path",
            "the cheapest path for a unit from hex A to hex B",
        ),
    ):
        q = sub.add_parser(name, help=what)
        q.add_argument("ruleset")
        q.add_argument("a")
        q.add_argument("b")
        if name == "los":
            q.add_argument("--units", help="hexes holding combat units, e.g. 0304,0506")
        else:
            q.add_argument("--unit", required=True, help="the unit's name in the rule files")
        q.add_argument("--changed", nargs="+", default=[], metavar="CHANGE", help=CHANGED_HELP)
        q.set_defaults(func=func)

    add_simulate_parser(sub)

    sk = sub.add_parser(
        "soak", help="play many games of every scenario, checking invariants and what fired"
    )
    sk.add_argument("ruleset")
    sk.add_argument("--games", type=_positive, default=200, help="games per scenario (default 200)")
    sk.add_argument("--scenario", help="soak only this scenario")
    sk.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    sk.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=on|off",
        help="switch a rule on or off in every game (repeatable), as `muster play` does",
    )
    sk.add_argument("--report", help="write the Markdown report here (default: stdout)")
    sk.add_argument("--counts", help="write the firing counts as JSON (for muster coverage --soak)")
    sk.add_argument(
        "--reasons", help="a file of `KEY: reason` lines: why each declaration never fires"
    )
    sk.add_argument("--quiet", action="store_true", help="no progress on stderr")
    sk.set_defaults(func="muster.soak:cmd_soak")

    r = sub.add_parser("replay", help="replay a JSONL log and verify its final state")
    r.add_argument("log")
    r.add_argument(
        "--ruleset", help="the ruleset's rule files (default: the shipped battle the log names)"
    )
    r.add_argument(
        "--partial", action="store_true", help="replay a game in progress (no end line yet)"
    )
    r.add_argument(
        "--vassal",
        metavar="FILE.vlog",
        help="also write the game as a VASSAL log, to step through in the battle's module",
    )
    r.set_defaults(func="muster.replay:cmd_replay")
    return p


def _command(func: Callable[[argparse.Namespace], int] | str) -> Callable[..., int]:
    """A command's function; "module:function" is imported only when that command runs,
    so that `muster check` starts without the engine, the table or the simulator."""
    if callable(func):
        return func
    module, name = func.split(":")
    return getattr(importlib.import_module(module), name)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return _command(args.func)(args)
    except CompileError as e:
        print(e, file=sys.stderr)
        return 1
    except RulesetNotFound as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    except ReplayError as e:
        print(f"muster: replay failed: {e}", file=sys.stderr)
        return 1
    except BuildRefused as e:
        print(f"muster: build refused, nothing changed: {e}", file=sys.stderr)
        return 1
    except BadInput as e:
        print(f"muster: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("muster: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `muster dump … | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:
        if not _named_by_user(e, args):
            return _internal_error(e)
        print(f"muster: {e.filename}: {e.strerror or e}", file=sys.stderr)
        return 1
    except RULE_FAULTS as e:
        note = rule_note_of(e)
        if note is None:
            return _internal_error(e)
        print(f"muster: the rules fail in play: {e}\n  {note}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug in Muster, not in its input
        return _internal_error(e)


def _named_by_user(e: OSError, args: argparse.Namespace) -> bool:
    """Whether the file an `OSError` is about is one the user named on the
    command line, lies under one (a build's `--out`), or is the hidden file
    beside one that a command writes first and renames into place
    (`.NAME.build-…`, `.NAME.….png`): only then is it bad input; a file of
    Muster's own that cannot be read or written is a fault."""
    if not isinstance(e.filename, str | bytes | os.PathLike) or not e.filename:
        return False
    failed = Path(os.fsdecode(e.filename)).absolute()
    given = [v for v in vars(args).values() if isinstance(v, str | os.PathLike) and str(v)]
    named = [Path(v).absolute() for v in given]
    return any(failed.is_relative_to(p) or _staged_beside(failed, p) for p in named)


def _staged_beside(failed: Path, named: Path) -> bool:
    return failed.parent == named.parent and failed.name.startswith(f".{named.name}.")


def _internal_error(e: BaseException) -> int:
    """Status 3: a bug in Muster, reported as one (the traceback with MUSTER_DEBUG=1)."""
    if os.environ.get("MUSTER_DEBUG"):
        raise e
    print(
        f"muster: internal error ({type(e).__name__}: {e}); "
        "please report it, with MUSTER_DEBUG=1 for the traceback",
        file=sys.stderr,
    )
    return 3


if __name__ == "__main__":
    sys.exit(main())
