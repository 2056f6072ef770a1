"""CPU seconds and resident memory of each step of a whole `muster build`.

    nice .venv/bin/python benchmarks/bench_build.py monmouth [--reference OLD/print/map.png]

Prints, step by step, the CPU the step took, the process's resident set
after it and the peak so far (the kernel's high-water mark), then the whole
build's CPU and peak. With `--reference`, the map this build drew is compared
with that PNG pixel by pixel: a change made for speed or memory must leave the
map as it was. Figures only; nothing is asserted. For whole-process figures
run `/usr/bin/time -v muster build RULESET --out DIR` as well.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from PIL import Image

from compiler import build


def rss_mib() -> int:
    """This process's resident set now, in MiB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def peak_mib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def timed(what: str, run: build.Step) -> build.Step:
    """The step, printing its CPU and the memory after it."""

    def step() -> dict[str, str | bytes]:
        started = time.process_time()
        files = run()
        cpu = time.process_time() - started
        print(f"  {what:26s} cpu {cpu:6.2f} s   rss {rss_mib():5d} MiB   peak {peak_mib():5d} MiB")
        return files

    return step


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("ruleset", nargs="?", default="monmouth")
    ap.add_argument("--reference", type=Path, help="a map.png to compare the new map with")
    args = ap.parse_args()
    steps = build._build_steps
    build._build_steps = lambda *a: [(w, timed(w, run)) for w, run in steps(*a)]
    started = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        build.build(args.ruleset, Path(tmp) / "out", progress=False)
        print(f"whole build: cpu {time.process_time() - started:.2f} s, peak {peak_mib()} MiB")
        if args.reference:
            new = Image.open(Path(tmp) / "out" / "print" / "map.png")
            old = Image.open(args.reference)
            same = new.size == old.size and new.tobytes() == old.tobytes()
            print(f"map pixels identical to {args.reference}: {same}")


if __name__ == "__main__":
    main()
