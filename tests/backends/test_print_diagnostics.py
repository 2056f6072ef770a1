"""Bad counter looks are diagnostics with positions, found by `muster check` (whatever it
accepts, the build draws), and a failed build writes nothing."""

from __future__ import annotations

import pytest

from compiler.build import build
from compiler.check import compile_ruleset
from dsl.diagnostics import BAD_VALUE, UNKNOWN_NAME, UNKNOWN_PROPERTY, CompileError
from muster.cli import main
from tests.print_helpers import PRINT_TEST

SOURCE = (PRINT_TEST / "ruleset.mst").read_text(encoding="utf-8")


def variant(tmp_path, old: str, new: str):
    assert old in SOURCE
    folder = tmp_path / "variant"
    folder.mkdir()
    (folder / "ruleset.mst").write_text(SOURCE.replace(old, new, 1), encoding="utf-8")
    return folder


def codes(e: CompileError) -> list[str]:
    return [d.code.code for d in e.diagnostics]


@pytest.mark.parametrize(
    ("old", "new", "code", "words"),
    [
        (
            "box movement when rear_guard",
            "box movement when rearguard",
            UNKNOWN_PROPERTY,
            "rear_guard",
        ),
        ("box movement when rear_guard", "box name when rear_guard", BAD_VALUE, "box VALUE"),
        ("counters unit", "counters unit\n    centre symbol strenght", UNKNOWN_NAME, "strength"),
        ("counters unit", 'counters unit\n    body "nocolour"', BAD_VALUE, "not a colour"),
        ("counters unit", "counters unit\n    left stars(rank, 2)", BAD_VALUE, "stars(value)"),
        ("counters unit", "counters regiment", BAD_VALUE, "counters is one of"),
    ],
)
def test_bad_counter_looks_are_reported_at_their_place(tmp_path, old, new, code, words):
    with pytest.raises(CompileError) as e:
        compile_ruleset(variant(tmp_path, old, new))
    assert code.code in codes(e.value)
    assert words in str(e.value)
    assert "ruleset.mst:" in str(e.value)


def place(folder, text: str) -> str:
    """`ruleset.mst:LINE:COLUMN` of the declaration whose line holds `text`."""
    lines = (folder / "ruleset.mst").read_text(encoding="utf-8").splitlines()
    line, found = next((n, t) for n, t in enumerate(lines, 1) if text in t)
    return f"ruleset.mst:{line}:{len(found) - len(found.lstrip()) + 1}"


# What a counter cannot be drawn with, or cannot print: each found by the check, at
# its declaration (old text, new text, the message, a text of the declaration's line).
UNDRAWABLE = [
    ('band "tan"; stripe "#b22222"', 'band "tanned"', "'tanned' is not a colour", "regulars"),
    ('short "Crown"; color "#c9a96e"', 'color "green-ish"', "'green-ish' is not a colour", "crown"),
    ("{ symbol howitzer;", "{ symbol howitzzer;", "did you mean 'howitzer'", "howitzer"),
    ('short "Wesley"', 'short "Wesley\'s Regiment of Foot"', "does not fit", "unit wesley"),
    (
        'back "Wounded"',
        'back "Incapacitatedandcarriedfromthefield"',
        "does not fit",
        "colonel_blue",
    ),
    ("counters unit\n", 'counters unit\n    top_right "LONG TEXT"\n', "does not fit", "grenadiers"),
    (
        'marker disrupted "Disrupted" {',
        'marker disrupted "Disrupted" { short "Disrupted and Shattered Too";',
        "does not fit",
        "marker disrupted",
    ),
]


@pytest.mark.parametrize(("old", "new", "words", "declared"), UNDRAWABLE)
def test_what_a_counter_cannot_draw_fails_the_check_and_the_build(
    tmp_path, capsys, old, new, words, declared
):
    """`muster check` refuses what the print build could not draw, at the place that
    declares it; `muster build` refuses the same, exit 1, no traceback, nothing written."""
    folder = variant(tmp_path, old, new)
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert f"{place(folder, declared)}: error:" in err, err
    for only in ("engine", "counters"):
        assert main(["build", str(folder), "--out", str(tmp_path / "out"), "--only", only]) == 1
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err and "internal error" not in err
    assert not (tmp_path / "out").exists()


def test_a_name_too_long_for_the_counter_fails_the_build_and_writes_nothing(tmp_path):
    folder = variant(tmp_path, 'short "Wesley"', 'short "Wesley\'s Regiment of Foot"')
    out = tmp_path / "out"
    with pytest.raises(CompileError) as e:
        build(folder, out, progress=False)
    assert codes(e.value) == [BAD_VALUE.code]
    assert "does not fit on a 5/8-inch counter at 6 pt" in str(e.value)
    assert "ruleset.mst:" in str(e.value) and "shorter `short` name" in str(e.value)
    assert not out.exists()


def test_the_cli_prints_the_diagnostic_without_a_traceback(tmp_path, capsys):
    folder = variant(tmp_path, 'short "Jaegers"', 'short "Jaeger Company of the Field"')
    assert main(["build", str(folder), "--out", str(tmp_path / "out"), "--only", "counters"]) == 1
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_value_too_wide_for_its_slot_says_how_to_move_it(tmp_path):
    folder = variant(tmp_path, "counters unit\n", 'counters unit\n    top_right "LONG TEXT"\n')
    with pytest.raises(CompileError) as e:
        build(folder, tmp_path / "out", progress=False)
    assert "'LONG TEXT' does not fit" in str(e.value) and "counter_face" in str(e.value)
