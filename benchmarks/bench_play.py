"""Speed of play: random games of every shipped battle and scenario.

Prints, for each scenario, games per second and actions per second of
random play to the end, and the cost of the operations search bots lean on
(`legal_actions`, `clone`, `apply_action`). Figures, not assertions.

    python benchmarks/bench_play.py [games per scenario]
"""

from __future__ import annotations

import importlib
import random
import sys
import time

from compiler.build import shipped_battles
from engine import chance


def play(game, seed: int) -> tuple[int, float, float, float]:
    """One random game: its length, and seconds in legal_actions, clone and apply."""
    s = game.new_initial_state()
    rng = random.Random(seed)
    t_legal = t_clone = t_apply = 0.0
    while not s.is_terminal():
        if s.is_chance_node():
            action = chance.sample(s, seed)
        else:
            t = time.perf_counter()
            legal = s.legal_actions()
            t_legal += time.perf_counter() - t
            action = rng.choice(legal)
        t = time.perf_counter()
        s.clone()
        t_clone += time.perf_counter() - t
        t = time.perf_counter()
        s.apply_action(action)
        t_apply += time.perf_counter() - t
    return s.move_number, t_legal, t_clone, t_apply


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    for battle in shipped_battles():
        pkg = importlib.import_module(f"generated.{battle}")
        for scenario in [sc.name for sc in pkg.RULES.scenarios] or [None]:
            game = pkg.load_game({"scenario": scenario} if scenario else {})
            start = time.perf_counter()
            moves = 0
            legal = clone = apply = 0.0
            for seed in range(games):
                n, t_legal, t_clone, t_apply = play(game, seed)
                moves, legal, clone, apply = (
                    moves + n,
                    legal + t_legal,
                    clone + t_clone,
                    apply + t_apply,
                )
            total = time.perf_counter() - start
            print(f"{battle}/{scenario or '-'}: {games} games, {moves / games:.0f} actions a game")
            print(
                f"  {games / total:8.2f} games/s   {moves / total:9.0f} actions/s   "
                f"per action: legal_actions {1e6 * legal / moves:6.1f} µs   "
                f"clone {1e6 * clone / moves:6.1f} µs   apply {1e6 * apply / moves:6.1f} µs"
            )


if __name__ == "__main__":
    main()
