"""Loading a generated engine: its package imported and a `Game` made, here and at an older commit.

What a player (or a simulator worker) waits for before the first move: the
import of `generated.NAME` (its rules module, and now its `board.json` read
and the grid geometry worked out) and `load_game()` (the `Game` built from
the rules), then the first position. The runtime (`engine.game` and what it
imports) is imported first and timed apart. Each figure is the median of several
fresh processes, each with only one tree's `engine/` and `generated/` on
its path. Figures, not assertions.

    python benchmarks/bench_load.py                       # against the commit before the redesign
    python benchmarks/bench_load.py --against c89bc72 --runs 7
    python benchmarks/bench_load.py --against none

The older tree is unpacked from git (`git archive`) into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "3f287ed"
BATTLES = ("training", "monmouth", "newtown")


def worker(battle: str) -> None:
    """Time one package's import, its Game and its first position, in this process."""
    import importlib

    start = time.perf_counter()
    importlib.import_module("engine.game")  # the runtime, the same in both trees
    engine = time.perf_counter()
    pkg = importlib.import_module(f"generated.{battle}")
    imported = time.perf_counter()
    game = pkg.load_game()
    made = time.perf_counter()
    game.new_initial_state().legal_actions()
    first = time.perf_counter()
    times = {
        "engine": engine - start,
        "import": imported - engine,
        "game": made - imported,
        "first": first - made,
    }
    print(json.dumps(times))


def measure(tree: Path, battle: str, runs: int) -> dict[str, float]:
    """Median seconds of each part over `runs` fresh processes in `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    samples: list[dict[str, float]] = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--worker", battle],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            sys.exit(f"the worker in {tree} failed:\n{out.stderr}")
        samples.append(json.loads(out.stdout.splitlines()[-1]))
    return {k: statistics.median(s[k] for s in samples) for k in samples[0]}


def unpack(rev: str, into: Path) -> Path:
    """The tree of commit `rev`, unpacked (engine, generated, and what they import)."""
    archive = into / "tree.tar"
    with archive.open("wb") as f:
        subprocess.run(["git", "-C", str(ROOT), "archive", rev], stdout=f, check=True)
    tree = into / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def report(label: str, t: dict[str, float]) -> None:
    print(
        f"  {label:>9}: engine/ {1000 * t['engine']:6.0f} ms   package {1000 * t['import']:6.1f} ms"
        f"   Game {1000 * t['game']:5.1f} ms   first position {1000 * t['first']:5.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("battles", nargs="*", help="(default: %(default)s)")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per figure")
    parser.add_argument("--against", default=BASELINE, help="a commit to compare with, or none")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    battles = opts.battles or list(BATTLES)
    if opts.worker:
        worker(battles[0])
        return
    with tempfile.TemporaryDirectory(prefix="muster-load-") as tmp:
        there = unpack(opts.against, Path(tmp)) if opts.against != "none" else None
        for battle in battles:
            print(f"{battle}:")
            here = measure(ROOT, battle, opts.runs)
            report("this tree", here)
            if there is not None:
                old = measure(there, battle, opts.runs)
                report(opts.against, old)
                parts = ("import", "game", "first")
                total = sum(here[k] for k in parts) / sum(old[k] for k in parts)
                print(f"  package + Game + first position: ×{total:.2f} the time")


if __name__ == "__main__":
    main()
