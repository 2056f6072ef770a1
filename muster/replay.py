"""`muster replay`: certify a game's log by playing it again from its seed;
`--vassal FILE` also writes the game as a VASSAL log (`.vlog`) to step through."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compiler.backends.vassal.sequence import text

if TYPE_CHECKING:
    from compiler import ir
    from engine.game import Game


def cmd_replay(args: argparse.Namespace) -> int:
    from compiler.backends.vassal.played_game import PlayedGame
    from compiler.build import load_rules_and_game
    from compiler.load import SHIPPED
    from engine.errors import BadInput
    from engine.game import ParamsError
    from engine.play import ReplayError, certify, read_log
    from muster.user_files import write_whole

    vassal = Path(args.vassal) if args.vassal is not None else None
    if vassal is not None and vassal.resolve() == Path(args.log).resolve():
        raise BadInput(f"{args.vassal}: the VASSAL log would overwrite the game's log")
    log = read_log(args.log, partial=args.partial)
    name = log.header["ruleset"]
    # The log names its battle; only the user names files to read.
    if args.ruleset is None and not (SHIPPED / name / "ruleset.mst").is_file():
        raise ReplayError(
            f"{args.log}:1: the log's ruleset {name!r} is not a shipped battle: "
            "name its rule files with --ruleset PATH"
        )
    try:
        rules, game = load_rules_and_game(args.ruleset or name, log.header["params"])
    except ParamsError as e:  # an unknown scenario or rule switch in the header
        raise ReplayError(f"{args.log}:1: {e}") from e
    if game.rules.name != name:
        raise ReplayError(f"{args.log}:1: a log of {name!r}, not of {game.rules.name!r}")
    played = None
    if vassal is not None:
        played = PlayedGame(rules, game, _heading(rules, game, log.header))
    done = certify(game, log, played.record if played is not None else None)
    got = done.state.state_hash()[:16]
    chance = f"{done.seeded} seeded outcome(s) re-derived from the seed"
    if done.physical:
        chance += f", {done.physical} physical roll(s) taken on the log's word"
    if done.finished:
        print(f"replayed {done.actions} actions ({chance}): final state matches ({got})")
    else:
        over = "the game is over" if done.state.is_terminal() else "a game in progress"
        print(
            f"partial: replayed {done.actions} actions ({chance}); {over}, no end line; state {got}"
        )
    if played is not None:
        summary = f"{played.heading}; {done.actions} actions; {_outcome(rules, log.end)}"
        write_whole(Path(args.vassal), played.vlog(summary))
        print(
            f"VASSAL log {args.vassal}: {len(played.steps)} steps; load it in the {rules.name} "
            "module (File → Load Game…) and press Step forward (Page Down)"
        )
    return 0


def _heading(rules: ir.Ruleset, game: Game, header: dict[str, Any]) -> str:
    """The game in a line: battle, scenario, seed and who played."""
    played = game.scenario.name if game.scenario is not None else None
    scenario = next((s for s in rules.scenarios if s.name == played), None)
    where = text(rules.title) + (f" — {text(scenario.title)}" if scenario is not None else "")
    bots = ", ".join(header.get("bots", [])) or "not recorded"
    return f"{where}: a Muster game, seed {header['seed']}, bots {bots}"


def _outcome(rules: ir.Ruleset, end: dict[str, Any] | None) -> str:
    """How the game ended, as its end line says."""
    if end is None:
        return "a game in progress"
    side = next((s for s in rules.sides if s.name == end["winner"]), None)
    if side is None:
        return "a draw"
    return f"{text(side.title)} wins" + (f" ({end['level']})" if end["level"] else "")
