"""Soak: every bot plays seeded games of every scenario of every shipped battle to the end.

    nice .venv/bin/python benchmarks/soak_bots.py --games 20 --bots random,heuristic --jobs 2

Each bot plays itself, `--games` games per scenario (`--swap` pairs), on the
simulator's machinery; an exception in any game stops the soak with its
traceback. The tests play a few capped games of each (tests/engine/test_bots.py).
"""

from __future__ import annotations

import argparse
import time

from compiler.build import import_shipped
from muster.simulation import simulate

BATTLES = ("training", "monmouth", "newtown")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--bots", default="random,heuristic,mcts:8")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument(
        "--only", action="append", help="battle:scenario to play (repeatable; default: all)"
    )
    args = ap.parse_args()
    every = [
        (battle, sc.name)
        for battle in BATTLES
        for sc in import_shipped(battle).load_game().rules.scenarios
    ]
    # In the order --only names them (shortest first, say), else all.
    chosen = [tuple(o.split(":", 1)) for o in args.only] if args.only else every
    unknown = [":".join(c) for c in chosen if c not in every]
    if unknown:
        ap.error(f"no such scenario: {', '.join(unknown)}")
    for spec in args.bots.split(","):
        for battle, scenario in chosen:
            started = time.monotonic()
            report = simulate(
                battle,
                {"scenario": scenario},
                args.games,
                f"{spec},{spec}",
                args.seed,
                jobs=args.jobs,
                swap=True,
            )
            elapsed = time.monotonic() - started
            wins = ", ".join(f"{k} {v['count']}" for k, v in report["sides"].items())
            print(
                f"{spec:10} {battle}:{scenario:18} {report['games']} games to the end in "
                f"{elapsed:6.0f} s; wins {wins}, draws {report['outcomes']['draw']['count']}, "
                f"{report['moves']['mean']} actions a game",
                flush=True,
            )


if __name__ == "__main__":
    main()
