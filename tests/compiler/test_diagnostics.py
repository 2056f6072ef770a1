"""Diagnostics: every error reported at its line with its code, no traceback.

Each file in data/diagnostics/ is added to the training battle; its lines
marked `# E: code` must each get an error of that code, and no other line may.
A file with only `# W: code` marks compiles, and must give exactly those
warnings. A mark may end with a "quoted text" that the diagnostic's message
or one of its notes must contain (what the message tells the designer to write).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from compiler.check import check_ruleset, compile_ruleset
from dsl.diagnostics import SEVERITY_ERROR, CompileError
from muster.cli import main
from tests.conftest import RULESETS
from tests.maps import COMMON, write_map

DATA = Path(__file__).parent.parent / "data" / "diagnostics"
MARK = re.compile(r'#\s*([EW]):\s*([a-z-]+)(?:\s+"([^"]*)")?\s*$')


def with_extra(tmp_path, extra: Path) -> Path:
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    shutil.copy(extra, folder / "extra.mst")
    entry = folder / "ruleset.mst"
    entry.write_text(entry.read_text() + '\nimport "extra.mst"\n')
    return folder


def marks(case: Path) -> dict[str, dict[tuple[int, str], str | None]]:
    """The expected diagnostics of a case file: by severity, (line, code) → text."""
    out: dict[str, dict[tuple[int, str], str | None]] = {"E": {}, "W": {}}
    for n, line in enumerate(case.read_text().splitlines(), start=1):
        m = MARK.search(line)
        if m:
            out[m.group(1)][(n, m.group(2))] = m.group(3)
    return out


@pytest.mark.parametrize("case", sorted(DATA.glob("*.mst")), ids=lambda p: p.stem)
def test_expected_diagnostics(tmp_path, case):
    expected = marks(case)
    assert expected["E"] or expected["W"], "a case file marks at least one diagnostic"
    folder = with_extra(tmp_path, case)
    if expected["E"]:
        with pytest.raises(CompileError) as info:
            compile_ruleset(folder)
        found = [d for d in info.value.diagnostics if d.severity == SEVERITY_ERROR]
        want = expected["E"]
    else:
        _rules, _sources, found = check_ruleset(folder)
        want = expected["W"]
    elsewhere = [d for d in found if not d.span.file.endswith("extra.mst")]
    assert not elsewhere, [d.message for d in elsewhere]
    got = {(d.span.line, d.code.code): d for d in found}
    assert set(got) == set(want), [(k, d.message) for k, d in got.items()]
    for key, text in want.items():
        if text is not None:
            said = " / ".join([got[key].message, *got[key].notes])
            assert text in said, f"line {key[0]}: {text!r} not in {said!r}"


def test_messages_have_position_caret_and_suggestion(tmp_path, capsys):
    folder = with_extra(tmp_path, DATA / "names.mst")
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"extra\.mst:2:\d+: error: unknown function 'distence'  \[unknown-name\]", err)
    assert "did you mean 'distance'?" in err
    assert "did you mean 'entered'?" in err
    assert "^" in err
    assert "Traceback" not in err
    assert re.search(r"Found \d+ errors\.", err)


def test_missing_ruleset_is_a_clean_error(capsys):
    assert main(["check", "no/such/place"]) == 2
    assert "no ruleset" in capsys.readouterr().err


def test_a_slope_against_the_terrain_elevation_is_a_warning(tmp_path):
    common = COMMON.read_text(encoding="utf-8")
    common = common.replace('terrain clear "Clear" {', 'terrain clear "Clear" {\n    elevation 0')
    common = common.replace(
        'terrain forest "Forest" {', 'terrain forest "Forest" {\n    elevation 2'
    )
    (tmp_path / "common.mst").write_text(common, encoding="utf-8")
    path = write_map(tmp_path, "forest 0505 0303", "slope 0504/0505 0303/0304")
    path.write_text(path.read_text().replace(str(COMMON), "common.mst"), encoding="utf-8")
    _rules, _sources, warnings = check_ruleset(path)
    slips = [w for w in warnings if w.code.code == "slope-elevation"]
    assert len(slips) == 1  # 0303/0304 climbs from clear to forest, as written
    assert "0504/0505" in slips[0].message and "0505/0504" in slips[0].notes[0]


def test_check_shows_warnings_and_succeeds(tmp_path, capsys):
    folder = with_extra(tmp_path, DATA / "warnings.mst")
    assert main(["check", str(folder)]) == 0
    captured = capsys.readouterr()
    assert re.search(r"extra\.mst:2:\d+: warning: the definition 'never_read'", captured.err)
    assert "warnings    4" in captured.out
