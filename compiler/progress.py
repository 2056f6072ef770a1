"""A progress bar for long builds, drawn on stderr only when it is a terminal."""

from __future__ import annotations

import sys
from typing import TextIO


class Progress:
    """Counts finished steps of a known total and redraws one line: `[#####.....] 5/10 what`."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty()

    def step(self, what: str) -> None:
        self.done += 1
        if not self.live:
            return
        filled = self.WIDTH * self.done // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {what[:40]:<40}")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()
