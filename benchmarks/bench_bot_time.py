"""How long a bot takes to answer: the slowest, the 95th percentile and the mean.

Plays seeded games of a scenario, the bot under test against the heuristic,
and times each of its decisions that has a choice (a single legal action is
answered at once and not counted), until `--decisions` are timed. A seconds
budget (`mcts:0.2s`) is a promise the bot must keep: the slowest decision
should not pass the budget by more than a little. The machine's load
(`os.getloadavg`) is printed beside the figures, which it moves. Figures,
not assertions.

    python benchmarks/bench_bot_time.py                          # 200 decisions of mcts:0.2s
    python benchmarks/bench_bot_time.py --bot heuristic          # the table's default bot
    python benchmarks/bench_bot_time.py --battle newtown --scenario ''
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import chance  # noqa: E402
from engine.bots import make_bot  # noqa: E402
from engine.game import Game  # noqa: E402


def timed_decisions(game: Game, bot: str, seed: int, wanted: int) -> list[float]:
    """Seconds of each decision (with a choice) `bot` takes in one game, the
    heuristic playing the other side; at most `wanted` of them."""
    s = game.new_initial_state()
    tested = seed % 2  # the bot plays each side in turn, game by game
    players = [make_bot(bot if p == tested else "heuristic", p, seed) for p in range(2)]
    times: list[float] = []
    while not s.is_terminal() and len(times) < wanted:
        if s.is_chance_node():
            action = chance.sample(s, seed)
        else:
            p = s.current_player()
            counted = p == tested and len(s.legal_actions()) > 1
            start = time.perf_counter()
            action = players[p].step(s)
            if counted:
                times.append(time.perf_counter() - start)
        s.apply_action(action)
        s.take_messages()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", default="mcts:0.2s")
    ap.add_argument("--battle", default="monmouth")
    ap.add_argument("--scenario", default="lees_advance")
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    pkg = importlib.import_module(f"generated.{args.battle}")
    game = pkg.load_game({"scenario": args.scenario} if args.scenario else {})
    times: list[float] = []
    seed = args.seed
    while len(times) < args.decisions:
        times += timed_decisions(game, args.bot, seed, args.decisions - len(times))
        seed += 1
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.bot} on {args.battle} {args.scenario}: {len(times)} decisions")
    print(f"  slowest {times[-1]:.3f} s, 95th percentile {p95:.3f} s, ", end="")
    print(f"mean {statistics.fmean(times):.3f} s  (load average {load})")


if __name__ == "__main__":
    main()
