"""How long a bot takes to answer: the slowest, the 95th percentile and the median.

Plays seeded games of a scenario, the bot under test against the heuristic,
and times each of its decisions that has a choice (a single legal action is
answered at once and not counted), until `--decisions` are timed. A seconds
budget (`mcts:0.2s`) is a promise the bot must keep: the slowest decision
should not pass the budget by more than a quarter (`mcts:0.2s`: 0.25 s).
`--bot table` is the table's default bot (`table.server.default_bot`),
which should answer within 1 s at the 95th percentile; `--every-scenario`
times each scenario of each shipped battle in turn. The machine's load
(`os.getloadavg`) is printed beside the figures, which it moves. Figures,
not assertions.

    python benchmarks/bench_bot_time.py                          # 200 decisions of mcts:0.2s
    python benchmarks/bench_bot_time.py --bot table --every-scenario --decisions 300
    python benchmarks/bench_bot_time.py --battle newtown --scenario historical
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compiler.build import import_shipped  # noqa: E402
from engine import chance  # noqa: E402
from engine.bots import make_bot  # noqa: E402
from engine.game import Game  # noqa: E402
from table.server import default_bot  # noqa: E402

BATTLES = ("training", "monmouth", "newtown")


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


def timed(game: Game, bot: str, seed: int, wanted: int) -> list[float]:
    """`wanted` decisions of `bot`, timed over seeded games from `seed` on, sorted."""
    times: list[float] = []
    while len(times) < wanted:
        times += timed_decisions(game, bot, seed, wanted - len(times))
        seed += 1
    return sorted(times)


def report(label: str, times: list[float]) -> str:
    """The slowest, 95th percentile and median of sorted times, with the load."""
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{label}: {len(times)} decisions, slowest {times[-1]:.3f} s, "
        f"95th percentile {p95:.3f} s, median {statistics.median(times):.3f} s  "
        f"(load average {load})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", default="mcts:0.2s", help="a bot spec, or `table` for its default")
    ap.add_argument("--battle", default="monmouth")
    ap.add_argument("--scenario", default="lees_advance", help="'' for the first")
    ap.add_argument("--every-scenario", action="store_true", help="each shipped scenario in turn")
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    bot = default_bot() if args.bot == "table" else args.bot
    if args.every_scenario:
        chosen = [
            (battle, sc.name)
            for battle in BATTLES
            for sc in import_shipped(battle).load_game().rules.scenarios
        ]
    else:
        chosen = [(args.battle, args.scenario)]
    for battle, scenario in chosen:
        game = import_shipped(battle).load_game({"scenario": scenario} if scenario else {})
        times = timed(game, bot, args.seed, args.decisions)
        print(report(f"{bot} on {battle} {scenario}", times), flush=True)


if __name__ == "__main__":
    main()
