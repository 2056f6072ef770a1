"""Games per second of `muster simulate` on 1 and on 2 processes, and the ratio.

    nice .venv/bin/python benchmarks/bench_simulate.py --games 24 --scenario lees_advance

The games are the same on both runs (seeds from the run's seed and the game's
index); the ratio shows how well the local process pool uses a second core.
Each run first compiles the ruleset, once, on one core; the games alone are
timed too (the pool over a factory made beforehand) and their ratio printed.
On a machine shared with other work the ratio says as much about the load.
"""

from __future__ import annotations

import argparse
import time

from engine.balance import table
from engine.bots import parse_bots
from engine.simulate import game_of, run_local, tasks
from muster.simulation import game_factory, simulate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--battle", default="monmouth")
    ap.add_argument("--scenario", default="lees_advance")
    ap.add_argument("--games", type=int, default=24)
    ap.add_argument("--bots", default="heuristic,random")
    args = ap.parse_args()
    params = {"scenario": args.scenario}
    rates = {}
    tables = {}
    for jobs in (1, 2):
        started = time.perf_counter()
        report = simulate(args.battle, params, args.games, args.bots, 1, jobs=jobs, swap=True)
        elapsed = time.perf_counter() - started
        rates[jobs] = args.games / elapsed
        tables[jobs] = table(report)
        print(
            f"{jobs} process(es): {args.games} games in {elapsed:.1f} s = {rates[jobs]:.3f} games/s"
        )
    print(f"ratio 2 : 1 processes = {rates[2] / rates[1]:.2f}")
    factory = game_factory(args.battle, params)
    game_of(factory)
    a, b = parse_bots(args.bots, 2)
    alone = {}
    for jobs in (1, 2):
        started = time.perf_counter()
        list(run_local(factory, tasks(1, args.games, (a, b), True), jobs))
        alone[jobs] = time.perf_counter() - started
        print(f"{jobs} process(es), the games alone: {alone[jobs]:.1f} s")
    print(f"ratio 2 : 1 processes, the games alone = {alone[1] / alone[2]:.2f}")
    print(f"tables identical: {tables[1] == tables[2]}")


if __name__ == "__main__":
    main()
