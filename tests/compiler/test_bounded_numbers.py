"""Every number a rule file writes has a range that follows from what it means
(`compiler/check/bounds.py`): one outside it is refused with file:line:col and the
range, quickly and in little memory, never by building what it asks for (a map
of four billion rows ate all memory before)."""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT, RULESETS

MEMORY = 1 << 30  # bytes: the check of a small battle needs a few tens of MB
SECONDS = 60  # a shared, loaded machine; the check itself takes about a second

CHECK = "import sys; from muster.cli import main; sys.exit(main(['check', sys.argv[1]]))"

# (what, file, text as shipped, text written, words of the diagnostic)
CASES = [
    ("the issue's map", "battle.mst", "rows 1..8", "rows 1..4294967296", "a number of 10 digits"),
    ("map rows", "battle.mst", "rows 1..8", "rows 1..100000", "'rows' 100000 is outside 0..99"),
    ("map columns", "battle.mst", "columns 1..10", "columns 0..5000", "outside 0..99"),
    ("line of sight", "battle.mst", "los_range 3", "los_range 100000", "outside 0..12"),
    (
        "a fire range",
        "battle.mst",
        'unit_type infantry "Infantry" {',
        'unit_type gun "Gun" { symbol artillery; range 50 }\n'
        'attribute range "Range" { type int }\n'
        'unit_type infantry "Infantry" {',
        "'range' 50 is outside 0..12",
    ),
    ("a die", "battle.mst", "die 0..9", "die 0..1000000", "'die' 1000000 is outside 0..100"),
    ("a negative die", "battle.mst", "die 0..9", "die -5..9", "'die' -5 is outside 0..100"),
    ("game turns", "battle.mst", "turns 1..2", "turns 1..100000", "outside 1..999"),
    ("a strength", "battle.mst", "strength 4 / 2", "strength 400 / 2", "outside 0..99"),
    ("a morale", "battle.mst", "morale 1 / 0", "morale 1 / -50", "'morale' -50 is outside -9..9"),
    ("a movement allowance", "battle.mst", "movement 4", "movement 100000", "outside 0..99"),
    ("a turn of entry", "battle.mst", "setup 0604", "enters 5000 at 0601", "outside 1..999"),
    ("a marker count", "battle.mst", "count 1", "count 1000000", "outside 0..999"),
    (
        "a bag's counters",
        "battle.mst",
        'marker turn_marker "Game Turn" {',
        'bag cup "Cup" { contents vp_marker(999999999) }\nmarker turn_marker "Game Turn" {',
        "the bag's counters 999999999 is outside 0..999",
    ),
    ("a terrain's cost", "battle.mst", "move 1", "move 500", "'move' 500 is outside 0..99"),
    ("a turn-track turn", "battle.mst", 'turn 2 "Morning"', 'turn 2000 "Morning"', "1..999"),
    ("a table row", "battle.mst", "6..7 ", "6..100000 ", "outside -999..999"),
    (
        "a modifier",
        "battle.mst",
        '-1                                "Defender in woods"',
        '-500                              "Defender in woods"',
        "the modifier -500 is outside -99..99",
    ),
    ("a constant", "battle.mst", "<= 6 and", "<= 6000000000 and", "a number of 10 digits"),
    ("a restriction's end", "battle.mst", "until turn 2", "until turn 5000", "outside 1..999"),
    (
        "a restriction's hexes",
        "battle.mst",
        "# ---------------------------------------------------------------- sides",
        'restriction tired "Tired" { max_hexes 5000 }',
        "'max_hexes' 5000 is outside 0..199",
    ),
    (
        "a restriction's allowance",
        "battle.mst",
        "# ---------------------------------------------------------------- sides",
        'restriction slow "Slow" { allowance 100 }',
        "'allowance' 100 is outside 0..99",
    ),
    ("scenario turns", "ruleset.mst", "turns 2..2", "turns 2..5000", "outside 1..999"),
    ("a turn's order", "ruleset.mst", "order 2 blue", "order 5000 blue", "outside 1..999"),
    ("a reinforcement", "ruleset.mst", "2 at 0301", "5000 at 0301", "outside 1..999"),
]


def limited() -> None:
    """In the child: at most MEMORY bytes of address space."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


@pytest.mark.parametrize(
    ("what", "name", "shipped", "written", "words"), CASES, ids=[c[0] for c in CASES]
)
def test_a_number_out_of_its_range_is_refused_at_its_place(
    tmp_path, what, name, shipped, written, words
):
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder, ignore=shutil.ignore_patterns("tests"))
    path = folder / name
    text = path.read_text(encoding="utf-8")
    assert shipped in text
    edited = text.replace(shipped, written, 1)
    path.write_text(edited, encoding="utf-8")
    line = edited[: edited.index(written)].count("\n") + 1
    column = edited.split("\n")[line - 1].index(written.split("\n")[0]) + 1
    done = subprocess.run(
        [sys.executable, "-c", CHECK, str(folder)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        preexec_fn=limited,
        timeout=SECONDS,
    )
    assert done.returncode == 1, done.stderr
    assert words in done.stderr
    place = f"training/{name}:{line}:"
    found = [ln for ln in done.stderr.splitlines() if ln.startswith(place) and words in ln]
    assert found, f"no diagnostic at {place}{column}: {done.stderr}"
    assert int(found[0].split(":")[2]) >= column
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_the_shipped_battles_are_within_every_range():
    """No shipped number is refused (their dumps are compared in test_dump and elsewhere)."""
    for battle in ("training", "monmouth", "newtown", "series"):
        done = subprocess.run(
            [sys.executable, "-c", CHECK, battle],
            capture_output=True,
            text=True,
            cwd=ROOT,
            preexec_fn=limited,
            timeout=SECONDS * 2,
        )
        assert done.returncode == 0, done.stderr


def test_a_die_inherited_from_a_library_is_bounded(tmp_path):
    """A battle without a `die` takes its library's, which is held to the same range."""
    for name in ("series", "monmouth"):
        shutil.copytree(RULESETS / name, tmp_path / name, ignore=shutil.ignore_patterns("tests"))
    series = tmp_path / "series" / "ruleset.mst"
    series.write_text(series.read_text(encoding="utf-8").replace("die 0..9", "die 0..5000", 1))
    battle = tmp_path / "monmouth" / "ruleset.mst"
    text = battle.read_text(encoding="utf-8")
    battle.write_text("\n".join(ln for ln in text.split("\n") if not ln.startswith("    die ")))
    done = subprocess.run(
        [sys.executable, "-c", CHECK, str(tmp_path / "monmouth")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        preexec_fn=limited,
        timeout=SECONDS,
    )
    assert done.returncode == 1, done.stderr
    assert "series/ruleset.mst:" in done.stderr
    assert "'die' 5000 is outside 0..100" in done.stderr
