"""Speed of play counted in machine instructions, which no load on the machine moves.

Runs `valgrind --tool=callgrind` on the workload docs/engine.md measures: the
benchmark's seeded random games (`bench_play.py`: seeds 0 and 1 of Lee's
Advance, seed 0 of the Monmouth campaign), with `clone()` at every action and
the final save, `PYTHONHASHSEED=0`. The cost of importing the engine and
loading both games is counted apart, in a run that plays nothing, and
subtracted. Prints millions of instructions a game, for this tree and, with
`--against REV`, for that commit checked out in a temporary `git worktree`
(only that tree's packages importable, as `bench_play.py` does).

    python benchmarks/bench_instructions.py                  # this tree
    python benchmarks/bench_instructions.py --against 3f287ed

Each run takes minutes (callgrind is some fifty times slower than Python).
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Workload name -> (scenario, seeds); "load" plays nothing.
WORKLOADS = {
    "load": ("", ()),
    "lees_advance": ("lees_advance", (0, 1)),
    "campaign": ("campaign", (0,)),
}


def worker(workload: str) -> None:
    """Import the engine, load both games, then play the workload's seeds (the engine
    imported here, as `bench_play.py`'s worker does: the tree measured is the one on
    the worker's path)."""
    from engine import chance
    from engine.save import to_json

    pkg = importlib.import_module("generated.monmouth")
    games = {name: pkg.load_game({"scenario": name}) for name in ("lees_advance", "campaign")}
    scenario, seeds = WORKLOADS[workload]
    for seed in seeds:
        s = games[scenario].new_initial_state()
        rng = random.Random(seed)
        while not s.is_terminal():
            action = chance.sample(s, seed) if s.is_chance_node() else rng.choice(s.legal_actions())
            s.clone()
            s.apply_action(action)
        to_json(s)


def count(tree: Path, workload: str) -> int:
    """Instructions callgrind counts for one workload run in `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory(prefix="muster-callgrind-") as tmp:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/callgrind.out",
                sys.executable,
                str(Path(__file__).resolve()),
                "--worker",
                workload,
            ],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or found is None:
        sys.exit(f"callgrind of {workload} in {tree} failed:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def measure(tree: Path, label: str) -> None:
    """Print millions of instructions a game of each scenario, the load subtracted."""
    load = count(tree, "load")
    figures = []
    for workload in ("lees_advance", "campaign"):
        games = len(WORKLOADS[workload][1])
        figures.append(f"{workload} {(count(tree, workload) - load) / games / 1e6:,.1f} M a game")
    print(f"{label}: {', '.join(figures)} (import and load {load / 1e6:,.1f} M)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="none", help="a commit to measure too, or none")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.worker:
        worker(opts.worker)
        return
    measure(ROOT, "this tree")
    if opts.against == "none":
        return
    with tempfile.TemporaryDirectory(prefix="muster-baseline-") as tmp:
        tree = Path(tmp) / "tree"
        git = ["git", "-C", str(ROOT), "worktree"]
        subprocess.run([*git, "add", "--detach", "-q", str(tree), opts.against], check=True)
        try:
            measure(tree, opts.against)
        finally:
            subprocess.run([*git, "remove", "--force", str(tree)], check=True)


if __name__ == "__main__":
    main()
