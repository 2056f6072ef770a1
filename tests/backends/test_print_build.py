"""`muster build`: print outputs in generated/<battle>/print/, `--only`, the progress bar."""

from __future__ import annotations

import io

import pytest

from compiler.build import build
from compiler.progress import Progress
from muster.cli import main
from tests.conftest import RULESETS


def files_under(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


@pytest.mark.slow
def test_build_writes_engine_and_print_components(tmp_path):
    build(RULESETS / "training", tmp_path, progress=False)
    files = files_under(tmp_path)
    assert "rules.py" in files and "__init__.py" in files
    for name in (
        "print/counters-letter.pdf",
        "print/counters-a4.pdf",
        "print/charts-letter.pdf",
        "print/charts-a4.pdf",
        "print/counters/red_guard-front.png",
        "print/counters/red_guard-back.png",
        "print/charts/combat_table.png",
        "print/map.png",
        "print/map-letter.pdf",
        "print/map-a4.pdf",
    ):
        assert name in files
    assert [f for f in files if f.startswith(".")] == [".muster-build", ".muster-files"]
    assert (tmp_path / ".muster-files").read_text().splitlines() == [
        f for f in files if not f.startswith(".")
    ]


@pytest.mark.slow
def test_only_counters_remakes_counters_and_keeps_the_rest(tmp_path):
    build(RULESETS / "training", tmp_path, progress=False)
    stale = tmp_path / "print" / "counters" / "gone-front.png"
    stale.write_bytes(b"old")
    with open(tmp_path / ".muster-files", "a", encoding="utf-8") as f:
        f.write("print/counters/gone-front.png\n")  # as if an earlier build wrote it
    mine = tmp_path / "print" / "counters" / "my-notes.txt"
    mine.write_text("not the build's\n", encoding="utf-8")
    charts_before = (tmp_path / "print" / "charts-letter.pdf").read_bytes()
    assert (
        main(["build", str(RULESETS / "training"), "--out", str(tmp_path), "--only", "counters"])
        == 0
    )
    assert not stale.exists()
    assert mine.read_text(encoding="utf-8") == "not the build's\n"  # never deleted
    assert (tmp_path / "print" / "charts-letter.pdf").read_bytes() == charts_before
    assert (tmp_path / "rules.py").exists()


def test_only_engine_writes_no_print_files(tmp_path):
    assert (
        main(["build", str(RULESETS / "training"), "--out", str(tmp_path), "--only", "engine"]) == 0
    )
    assert not (tmp_path / "print").exists()


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_counts_to_the_end_on_a_terminal():
    out = Tty()
    bar = Progress(4, out)
    for what in "abcd":
        bar.step(what)
    text = out.getvalue()
    assert "[" + "#" * 30 + "] 4/4 d" in text and text.endswith("\n")
    quiet = io.StringIO()
    Progress(2, quiet).step("x")
    assert quiet.getvalue() == ""
