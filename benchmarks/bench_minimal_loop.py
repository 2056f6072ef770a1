"""How far the engine is from what Python allows: its random playouts beside a
minimal loop of the same shape.

For each scenario it plays `bench_play.py`'s seeded random games with the
engine (seed 0, 1, …; a chance node drawn by `engine.chance.sample`, a
decision by `random.Random(seed).choice` over the legal actions), recording
at every node the legal actions (a chance node's outcomes) and the action
played. The minimal loop then plays the same games from that table: the
same number of actions a game, the same legal actions to choose from at each
(the same branching), a decision chosen by the same seeded `choice` and a
chance outcome read from the table. It has no rules, positions or legality
to work out: its speed is the floor of a Python playout of that shape (the
choices drawn, the actions kept), and the ratio says how much of the
engine's time is the game itself. The loop's positions are numbered, each
with its legal actions and the position the action played leads to, read
from the table as a game of precomputed moves would. It checks that it played
the engine's actions, so that the shape is the same and not only alike.

Both are timed by CPU time, each the fastest of `--rounds` (the load of a
shared machine comes and goes); the engine's figure is the games alone
(`bench_play.py`'s also clones the state at every action).

    python benchmarks/bench_minimal_loop.py                    # Lee's Advance and the campaign
    python benchmarks/bench_minimal_loop.py --games 8 newtown/historical
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SCENARIOS = ("monmouth/lees_advance", "monmouth/campaign")

# One node of a recorded game: the legal actions (a chance node's outcomes), the
# action played, and whether a seeded choice made it (a decision) or chance did.
Node = tuple[tuple[int, ...], int, bool]


def engine_games(scenario: str, games: int) -> tuple[float, list[list[Node]]]:
    """The engine's CPU seconds for the seeded games, and each game's nodes."""
    from engine import chance

    battle, _, name = scenario.partition("/")
    game = importlib.import_module(f"generated.{battle}").load_game(
        {"scenario": name} if name else {}
    )
    start = time.process_time()
    played = []
    for seed in range(games):
        s = game.new_initial_state()
        rng = random.Random(seed)
        nodes: list[Node] = []
        while not s.is_terminal():
            legal = tuple(s.legal_actions())
            decided = not s.is_chance_node()
            action = rng.choice(legal) if decided else chance.sample(s, seed)
            s.apply_action(action)
            nodes.append((legal, action, decided))
        played.append(nodes)
    return time.process_time() - start, played


def minimal_games(played: list[list[Node]]) -> tuple[float, list[list[int]]]:
    """The minimal loop's CPU seconds for the same games, and the actions it played.

    Its game is a table: position i's legal actions (copied, as `legal_actions`
    returns a list of its own) and the position each action leads to (the one
    played: the next). A decision is chosen as the engine's was, a chance
    outcome read from the table.
    """
    tables = [
        [
            (legal, None if decided else action, {action: i + 1})
            for i, (legal, action, decided) in enumerate(nodes)
        ]
        for nodes in played
    ]
    start = time.process_time()
    games = []
    for seed, table in enumerate(tables):
        rng = random.Random(seed)
        actions: list[int] = []
        position, end = 0, len(table)
        while position < end:
            legal, drawn, leads_to = table[position]
            action = rng.choice(list(legal)) if drawn is None else drawn
            actions.append(action)
            position = leads_to[action]
        games.append(actions)
    return time.process_time() - start, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="*", help="BATTLE/SCENARIO (default: %(default)s)")
    parser.add_argument("--games", type=int, default=4, help="seeds per scenario (0, 1, …)")
    parser.add_argument("--rounds", type=int, default=3, help="keep the fastest of this many")
    opts = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    for scenario in opts.scenarios or DEFAULT_SCENARIOS:
        runs = [engine_games(scenario, opts.games) for _ in range(opts.rounds)]
        engine_seconds = min(seconds for seconds, _ in runs)
        played = runs[0][1]
        loops = [minimal_games(played) for _ in range(opts.rounds)]
        loop_seconds = min(seconds for seconds, _ in loops)
        if loops[0][1] != [[action for _, action, _ in nodes] for nodes in played]:
            sys.exit(f"{scenario}: the minimal loop did not play the engine's games")
        actions = sum(len(nodes) for nodes in played)
        decisions = [len(legal) for nodes in played for legal, _, decided in nodes if decided]
        print(
            f"{scenario}: {opts.games} games, {actions / opts.games:.0f} actions a game, "
            f"mean branching {sum(decisions) / max(len(decisions), 1):.1f}\n"
            f"          engine: {opts.games / engine_seconds:10.2f} games/s "
            f"{actions / engine_seconds:12.0f} actions/s\n"
            f"  a minimal loop: {opts.games / loop_seconds:10.2f} games/s "
            f"{actions / loop_seconds:12.0f} actions/s\n"
            f"  the loop is ×{engine_seconds / loop_seconds:.0f} the engine's speed"
        )


if __name__ == "__main__":
    main()
