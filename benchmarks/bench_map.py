"""Map model benchmark: build time, line-of-sight queries, reachable-hex searches.

For each shipped battle with a map (or the rulesets named on the command
line) it prints:

- the time to build the map model (networkx graph) and the run-time tables
  (movement costs, ZOC, the precomputed LOS table);
- line-of-sight queries per second: precomputed (`engine.los.sees` on the
  tables) against on demand (shapely, `compiler.map.los.LosModel`), and the ratio;
- reachable-hex searches per second: Dijkstra on the run-time tables
  (`engine.pathing.reachable`) against networkx on the same map, and the ratio.

Figures only; nothing is asserted. Run: `.venv/bin/python benchmarks/bench_map.py [RULESET …]`.
"""

from __future__ import annotations

import gc
import random
import sys
import time
from collections.abc import Callable

import networkx as nx

from compiler.build import shipped_battles
from compiler.check import compile_ruleset
from compiler.map.board import build_board
from compiler.map.los import LosModel
from compiler.map.model import MapModel
from engine import los as rt
from engine import pathing

SEED = 1778
QUERIES = 4000
SEARCHES = 2000
ALLOWANCE = 4


def rate(fn: Callable[[], object], n: int) -> float:
    """Calls per second of fn, over n calls, starting from a collected heap."""
    gc.collect()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return n / (time.perf_counter() - start)


def bench(ruleset: str) -> None:
    rules, _sources = compile_ruleset(ruleset)
    if rules.map is None:
        print(f"{rules.name}: no map")
        return
    start = time.perf_counter()
    model = MapModel(rules)
    built_model = time.perf_counter() - start
    board = build_board(rules, model)
    built = time.perf_counter() - start
    n = len(board.labels)
    print(f"{rules.name}: {n} hexes, LOS precomputed to range {board.los_range}")
    print(f"  build       model {built_model * 1000:8.1f} ms   with run-time tables {built:8.3f} s")

    rng = random.Random(SEED)
    occupied = frozenset(rng.sample(range(n), max(1, n // 10)))
    labels = board.labels
    occupied_labels = {labels[h] for h in occupied}
    pairs = []
    while board.los_range >= 2 and len(pairs) < QUERIES:
        a, b = rng.randrange(n), rng.randrange(n)
        if 2 <= rt.distance(board, a, b) <= board.los_range:
            pairs.append((a, b))
    if pairs:
        los = LosModel(model)
        fast_iter, slow_iter = iter(pairs * 2), iter(pairs * 2)
        fast = rate(lambda: rt.sees(board, *next(fast_iter), occupied), len(pairs))
        slow_n = min(len(pairs), 500)
        slow = rate(
            lambda: los.sight(*(labels[h] for h in next(slow_iter)), occupied_labels), slow_n
        )
        print(
            f"  LOS         precomputed {fast:10.0f}/s   on demand (shapely) {slow:8.0f}/s"
            f"   ratio {fast / slow:6.1f}×"
        )

    starts = [rng.randrange(n) for _ in range(SEARCHES)]
    graph = model.movement_digraph()
    ours_iter, theirs_iter = iter(starts), iter(starts)
    ours = rate(lambda: pathing.reachable(board, next(ours_iter), ALLOWANCE), len(starts))
    theirs = rate(
        lambda: nx.single_source_dijkstra_path_length(
            graph, labels[next(theirs_iter)], cutoff=ALLOWANCE
        ),
        len(starts),
    )
    print(
        f"  reachable   run-time tables {ours:8.0f}/s   networkx {theirs:8.0f}/s"
        f"   ratio {ours / theirs:6.1f}×   ({ALLOWANCE} MP)"
    )


def main(argv: list[str]) -> None:
    for ruleset in argv or shipped_battles():
        bench(ruleset)


if __name__ == "__main__":
    main(sys.argv[1:])
