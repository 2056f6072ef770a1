"""`muster replay`: certify a game's log by playing it again from its seed."""

from __future__ import annotations

import argparse


def cmd_replay(args: argparse.Namespace) -> int:
    from compiler.build import load_game
    from compiler.load import SHIPPED
    from engine.game import ParamsError
    from engine.play import ReplayError, certify, read_log

    log = read_log(args.log, partial=args.partial)
    name = log.header["ruleset"]
    # The log names its battle; only the user names files to read.
    if args.ruleset is None and not (SHIPPED / name / "ruleset.mst").is_file():
        raise ReplayError(
            f"{args.log}:1: the log's ruleset {name!r} is not a shipped battle: "
            "name its rule files with --ruleset PATH"
        )
    try:
        game = load_game(args.ruleset or name, log.header["params"])
    except ParamsError as e:  # an unknown scenario or rule switch in the header
        raise ReplayError(f"{args.log}:1: {e}") from e
    if game.rules.name != name:
        raise ReplayError(f"{args.log}:1: a log of {name!r}, not of {game.rules.name!r}")
    done = certify(game, log)
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
    return 0
