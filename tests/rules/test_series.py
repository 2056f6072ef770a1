"""The series rules: a library that checks alone, cites every section, vouches for every value."""

from __future__ import annotations

import pytest

from compiler.check import compile_ruleset
from compiler.load import load, resolve_ruleset
from compiler.provenance import citations, provisional_values, unvouched_literals
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles
from muster.cli import main
from muster.coverage import coverage
from tests.conftest import RULESETS, compiled, rulebook

SERIES = RULESETS / "series"
RESULT_CODES = {"-", "AM", "R", "D", "1", "2", "DC", "AC", "PIN", "*"}


@pytest.fixture(scope="module")
def series():
    return compile_ruleset(SERIES)[0]


@pytest.fixture(scope="module")
def series_files():
    return load(resolve_ruleset(SERIES), Reporter(SourceFiles())).files


def test_the_series_is_a_library_that_checks_alone(series):
    assert series.library
    assert not series.sides and not series.units and series.map is None
    names = {p.name for p in series.procedures}
    assert {"game", "game_turn", "player_turn", "close_combat", "retreat_unit"} <= names


@pytest.mark.parametrize(
    "command",
    [["build", "series", "--only", "engine"], ["play", "series"], ["test", "series"]],
)
def test_the_series_alone_is_refused_as_a_library_not_an_internal_error(command, tmp_path, capsys):
    """`muster check series` says ok, a library; what would build or play it
    exits 1 saying so (it was exit 3, an internal error, in the generator)."""
    if command[0] == "build":
        command = [*command, "--out", str(tmp_path / "out")]
    assert main(command) == 1
    err = capsys.readouterr().err
    assert "rulesets/series/ruleset.mst: 'series' is a library" in err
    assert "internal error" not in err
    assert not (tmp_path / "out").exists()
    assert main(["check", "series"]) == 0
    assert "ok (a library" in capsys.readouterr().out


def test_a_battle_without_a_map_is_refused_by_the_check(tmp_path, capsys):
    """A battle (not a library) with no map checked ok, then `build` and `play`
    ended in exit 3: the check now says so at its ruleset header, and what
    would build or play it exits 1 with the same words."""
    assert main(["new", "tiny", "--dir", str(tmp_path / "tiny")]) == 0
    folder = tmp_path / "tiny"
    entry = folder / "ruleset.mst"
    entry.write_text(entry.read_text(encoding="utf-8").replace('import "map.mst"\n', ""), "utf-8")
    for name, old, new in (
        ("forces.mst", "    setup ", "    # setup "),
        ("victory.mst", "units_at(crossroads)", "all_units()"),
    ):
        path = folder / name
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), "utf-8")
    capsys.readouterr()
    header = next(
        n
        for n, t in enumerate(entry.read_text(encoding="utf-8").splitlines(), 1)
        if t.startswith("ruleset ")
    )
    for command in (
        ["check"],
        ["build", "--out", str(tmp_path / "out"), "--only", "engine"],
        ["play", "--seed", "1"],
    ):
        assert main([command[0], str(folder), *command[1:]]) == 1, command
        err = capsys.readouterr().err
        assert f"ruleset.mst:{header}:1: error: the battle 'tiny' has no map" in err, err
        assert "internal error" not in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_each_result_code_of_13_1_is_its_own_cited_declaration(series):
    by_code = {r.code: r for r in series.results}
    assert set(by_code) >= RESULT_CODES
    for code in RESULT_CODES:
        cites = {(c.document, c.section) for c in by_code[code].prov.cites}
        assert ("series", "13.1") in cites, code


def test_no_number_is_neither_cited_nor_provisional(series_files):
    assert unvouched_literals(series_files) == []


def test_provisional_values_say_why(series):
    found = provisional_values(series)
    assert found
    assert all(p.reason and p.where.startswith("rulesets/series/") for p in found)
    tables = {p.what for p in found}
    assert any("close_combat_table" in w for w in tables)
    # Values the text gives are not provisional: the die, the stacking limit, morale checks.
    fire_table = next(t for t in series.tables if t.name == "rifle_fire_damage")
    row_4 = next(r for r in fire_table.rows if r.low == 4)
    assert ("series", "10.4") in {(c.document, c.section) for c in row_4.prov.cites}


@pytest.mark.skipif(rulebook("monmouth.txt") is None, reason="needs ../shared/rulebooks")
def test_every_numbered_section_2_to_16_is_cited(series_files):
    text = rulebook("monmouth.txt").read_text(encoding="utf-8")
    [series_cov] = coverage(text, ["series"], citations(series_files))
    numbered = [s for s, _via, _n in series_cov.rows if s.number.split(".")[0].isdigit()]
    in_scope = [s for s in numbered if 2 <= int(s.number.split(".")[0]) <= 16]
    assert len(in_scope) > 100
    uncited = [s.number for s in series_cov.uncited if s in in_scope]
    assert uncited == []


@pytest.mark.skipif(rulebook("monmouth.txt") is None, reason="needs ../shared/rulebooks")
def test_coverage_names_the_documents_of_a_battles_rulebook(capsys):
    from muster.cli import main

    book = str(rulebook("monmouth.txt"))
    assert main(["coverage", str(RULESETS / "monmouth"), "--rulebook", book, "--strict"]) == 0
    out = capsys.readouterr().out
    assert "§ series: " in out and "§ monmouth: " in out and "UNCITED" not in out
    # the series cites only itself: the text's first document is its own
    assert main(["coverage", str(SERIES), "--rulebook", book, "--strict"]) == 0
    assert "§ monmouth" not in capsys.readouterr().out


def test_check_summarises_a_battle_on_one_screen(capsys):
    from compiler.provenance import provisional_values
    from muster.cli import main

    rules = compiled("newtown")[0]
    assert main(["check", str(RULESETS / "newtown")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) <= 20
    counts = {line.split()[0]: line.split()[1] for line in out[1:]}
    kinds = [u.kind for u in rules.units]
    assert int(counts["units"]) == kinds.count("unit")
    assert int(counts["leaders"]) == kinds.count("leader")
    assert int(counts["pieces"]) == kinds.count("piece")
    assert int(counts["scenarios"]) == len(rules.scenarios)
    assert int(counts["provisional"]) == len(provisional_values(rules))
