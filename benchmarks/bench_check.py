"""Speed of `muster check`: per battle, cold and warm.

For each shipped ruleset (or those named on the command line) it prints:

- cold: a fresh `muster check` process, loading the parse tables shipped
  in the package (what a designer gets each time they run `muster check`);
- warm, every file: a second check in the same process, parsing all files
  again (the Lark parser and the imports already loaded);
- warm, one file edited: a re-check in the same process after one file's
  text changed, the other files' syntax trees kept (what `muster check
  --watch` and the language server do on a save). The goal is under 0.3 s
  for Monmouth.

Figures only; nothing is asserted. Run: `.venv/bin/python benchmarks/bench_check.py [RULESET …]`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from compiler.check import compile_ruleset
from compiler.load import resolve_ruleset
from muster.watch import Watcher

REPEATS = 5


def seconds(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    """The median wall time of fn over `repeats` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def process(ruleset: str) -> None:
    cmd = [sys.executable, "-m", "muster.cli", "check", ruleset]
    subprocess.run(cmd, check=True, capture_output=True)


def bench(ruleset: str) -> None:
    entry = resolve_ruleset(ruleset)
    rules, _sources = compile_ruleset(entry)
    cold = seconds(lambda: process(ruleset), 3)
    warm = seconds(lambda: compile_ruleset(entry))
    watcher = Watcher(entry)
    watcher.check()
    edited = max(watcher.cache, key=lambda p: len(watcher.cache[p][0]))  # the largest file
    text = edited.read_text(encoding="utf-8")
    edits = iter(range(1_000_000))
    one = seconds(lambda: watcher.check({edited: f"{text}\n# edit {next(edits)}\n"}))
    print(f"{rules.name}: {len(watcher.cache)} files")
    print(f"  cold                  {cold:6.3f} s")
    print(f"  warm, every file      {warm:6.3f} s")
    print(
        f"  warm, one file edited {one:6.3f} s   ({edited.name}, {len(text)} chars; "
        f"ratio to cold {cold / one:5.1f}×)"
    )


def main(argv: list[str]) -> None:
    for ruleset in argv or ["training", "newtown", "monmouth"]:
        bench(ruleset)


if __name__ == "__main__":
    main(sys.argv[1:])
