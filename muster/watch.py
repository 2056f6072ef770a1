"""`muster check --watch`: re-check a ruleset on every save, parsing only what changed.

A `Watcher` keeps the syntax tree of every file it has parsed (a
`ParseCache`); on each re-check a file whose text is unchanged is not parsed
again, so an edit to one file of a large battle costs one file's parse and the
whole-ruleset check (benchmarks/bench_check.py measures it). Saves are seen
by polling modification times — no extra library, and it works the same on
every file system. The language server uses `Watcher.check` with the
editor's unsaved texts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from compiler import ir
from compiler.check import compile_loaded
from compiler.load import ParseCache, load
from dsl.diagnostics import CompileError, Diagnostic, Reporter, render, render_all
from dsl.source import SourceFiles


@dataclass(frozen=True, slots=True)
class Report:
    """One check: the rules (None when there were errors), every diagnostic, and its cost."""

    rules: ir.Ruleset | None
    diagnostics: tuple[Diagnostic, ...]
    sources: SourceFiles
    parsed: int  # files parsed this time (the others came from the cache)
    seconds: float

    def text(self) -> str:
        if self.rules is None:
            return render_all(list(self.diagnostics), self.sources)
        lines = [render(d, self.sources) for d in self.diagnostics]
        return "\n".join([*lines, f"{self.rules.title} ({self.rules.name}): ok"])


class Watcher:
    def __init__(self, entry: Path) -> None:
        self.entry = entry
        self.cache: ParseCache = {}
        self._stamps: dict[Path, float] = {}

    def check(self, overlay: dict[Path, str] | None = None) -> Report:
        """Check the ruleset now; `overlay` gives texts to read in place of the disk."""
        start = time.perf_counter()
        before = {p: entry[1] for p, entry in self.cache.items()}
        sources = SourceFiles()
        reporter = Reporter(sources)
        rules = None
        try:
            loaded = load(self.entry, reporter, self.cache, overlay)
            reporter.check()
            rules = compile_loaded(loaded, reporter)
        except CompileError:
            pass
        parsed = sum(1 for p, entry in self.cache.items() if before.get(p) is not entry[1])
        self._stamps = self._current()
        return Report(
            rules, tuple(reporter.diagnostics), sources, parsed, time.perf_counter() - start
        )

    def watched(self) -> set[Path]:
        """The files of the ruleset: those it read, and every rule file of its folder
        (a file with a syntax error, or one not imported yet, is watched too)."""
        return set(self.cache) | set(self.entry.parent.rglob("*.mst")) | {self.entry}

    def changed(self) -> bool:
        return self._current() != self._stamps

    def _current(self) -> dict[Path, float]:
        stamps = {}
        for path in self.watched():
            try:
                stamps[path] = path.stat().st_mtime
            except OSError:
                stamps[path] = -1.0
        return stamps


def watch(entry: Path, say: Callable[[str], None], interval: float = 0.25) -> None:
    """Check, then re-check after every save, until interrupted (Ctrl-C)."""
    watcher = Watcher(entry)
    while True:
        report = watcher.check()
        stamp = time.strftime("%H:%M:%S")
        say(report.text())
        say(
            f"[{stamp}] checked in {report.seconds:.2f} s ({report.parsed} file(s) parsed); "
            "watching for changes, Ctrl-C to stop"
        )
        while not watcher.changed():
            time.sleep(interval)
