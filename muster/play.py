"""`muster play`: one game with bots, its account printed and its log written."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.errors import BadInput
from muster.rule_switches import rule_switches


def _account_printer(quiet: bool):
    def on_move(state: Any, record: dict[str, Any], messages: list[str]) -> None:
        if quiet:
            return
        for m in messages:
            print(m if m.startswith("—") else f"  {m}")

    return on_move


def cmd_play(args: argparse.Namespace) -> int:
    from compiler.build import load_game
    from engine.bots import BotSpecError, parse_bots
    from engine.play import play_game, write_log

    params: dict[str, Any] = {"rules": rule_switches(args.rule)} if args.rule else {}
    if args.scenario:
        params["scenario"] = args.scenario
    game = load_game(args.ruleset, params)
    try:
        bots = parse_bots(args.bots, game.num_players())
    except BotSpecError as e:
        print(f"muster: {e}", file=sys.stderr)
        return 2
    scenario = f" — {game.scenario.title}" if game.scenario else ""
    print(f"{game.rules.title}{scenario} — seed {args.seed}, bots {', '.join(bots)}")
    record = play_game(game, bots, args.seed, _account_printer(args.quiet))
    if args.log:
        try:
            write_log(record, args.log)
        except OSError as e:
            raise BadInput(f"{args.log}: cannot write the log ({e.strerror or e})") from e
    final = record.final
    print(
        f"\nGame over after {final['moves']} actions: "
        + (f"{final['winner']} wins ({final['level']})" if final["winner"] else "draw")
    )
    print(f"returns {final['returns']}  state {final['hash'][:16]}")
    if args.log:
        print(f"log written to {args.log}")
    return 0
