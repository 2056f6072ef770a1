"""The designer's commands `muster los` and `muster path` on the map of every feature."""

from __future__ import annotations

from muster.cli import main
from tests.maps import MAPS

FEATURES = str(MAPS / "features.mst")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_los_says_clear_and_what_the_line_passes(capsys):
    code, out, _err = run(capsys, "los", FEATURES, "0302", "0702")
    assert code == 0
    assert out.splitlines() == [
        "0302 → 0702, range 4: clear",
        "  the line passes: along 0401/0402, 0502, along 0601/0602",
    ]


def test_los_says_why_it_is_blocked(capsys):
    # Along the hexside 0201/0202: forest in 0202, a unit in 0201.
    _code, out, _err = run(capsys, "los", FEATURES, "0302", "0102", "--units", "0201")
    assert "blocked along the hexside 0201/0202: the hexes on both sides block" in out
    assert "(combat units and Forest, 11.44)" in out
    _code, out, _err = run(capsys, "los", FEATURES, "0701", "0703")
    assert out.startswith("0701 → 0703, range 2: clear")
    _code, out, _err = run(capsys, "los", FEATURES, "0502", "0505", "--units", "0504")
    assert "blocked by 0504 (combat units)" in out


def test_path_prints_the_cheapest_path_and_its_cost(capsys):
    code, out, _err = run(capsys, "path", FEATURES, "0302", "0706", "--unit", "west_guns")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("West Guns (class artillery, movement 3): 0302 → 0706 costs 7 MP")
    assert lines[-1].endswith("(7)") and len(lines) == 8
    _code, out, _err = run(capsys, "path", FEATURES, "0302", "0801", "--unit", "west_guns")
    assert "no path from 0302 to 0801" in out


def test_bad_input_is_a_message_not_a_traceback(capsys):
    code, _out, err = run(capsys, "path", FEATURES, "0302", "0706", "--unit", "west_gunz")
    assert code == 1 and "no unit 'west_gunz'; did you mean 'west_guns'?" in err
    code, _out, err = run(capsys, "los", FEATURES, "0302", "12")
    assert code == 1 and "'12' is not a hex of the map (0101..0807)" in err
    assert "Traceback" not in err
