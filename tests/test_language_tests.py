"""`muster test`: every shipped battle's tests written in the rule language pass,
and the runner reports a failure at its file:line."""

from __future__ import annotations

import shutil

import pytest

from compiler.build import shipped_battles
from compiler.check import compile_ruleset
from compiler.cli import main
from compiler.language_tests import Runner, collect, run_tests
from dsl.diagnostics import CompileError, Reporter
from dsl.source import SourceFiles
from tests.conftest import RULESETS


@pytest.mark.parametrize("battle", shipped_battles())
def test_every_language_test_of_the_battle_passes(battle):
    tests, run = run_tests(battle)
    assert tests, f"{battle} has language tests in rulesets/{battle}/tests/"
    assert not run.failed, [o.failure for o in run.failed]


def test_the_exclusive_rules_tested_are_cited():
    # The exclusive rules with language tests, by the sections the tests cite.
    for battle, sections in (
        ("monmouth", {"4.2", "4.31", "4.4", "4.5", "4.64", "4.7", "4.11", "6.292"}),
        ("newtown", {"5.2.1", "5.2.3", "5.4.2", "5.5", "6.5.1", "1.8"}),
    ):
        text = "\n".join(p.read_text() for p in (RULESETS / battle / "tests").glob("*.mst"))
        for section in sections:
            assert f" {section}" in text, f"{battle} {section}"


@pytest.fixture()
def training_copy(tmp_path):
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    return folder


def test_a_failing_expectation_names_its_line(training_copy, capsys):
    (training_copy / "tests" / "wrong.mst").write_text(
        'test wrong "Red Guard cannot be in two places" {\n'
        "    scenario skirmish\n"
        "    at 0404 red_guard\n"
        "    during movement_phase move side red\n"
        '    act "0404 → 0403"\n'
        "    expect red_guard at 0505\n"
        "}\n",
        encoding="utf-8",
    )
    assert main(["test", str(training_copy)]) == 1
    out = capsys.readouterr().out
    assert "wrong.mst::wrong FAILED" in out and "movement.mst::red_guard_moves PASSED" in out
    assert "wrong.mst:6: expected red_guard at 0505, it is at 0403" in out
    assert "1 passed, 1 failed" in out


def test_a_mistake_in_a_test_is_reported_before_anything_runs(training_copy):
    (training_copy / "tests" / "typo.mst").write_text(
        'test typo "A unit that is not there" {\n'
        "    at 0404 red_gaurd\n"
        "    at 9999 red_line\n"
        "    expect red_gaurd at 0404\n"
        "}\n",
        encoding="utf-8",
    )
    with pytest.raises(CompileError) as info:
        run_tests(training_copy)
    found = {(d.span.line, d.message) for d in info.value.diagnostics}
    assert (2, "no unit 'red_gaurd'") in found
    assert (3, "no hex on the map '9999'") in found
    assert any(line == 4 for line, _m in found)
    assert "did you mean 'red_guard'?" in str(info.value)


def test_a_define_is_expected_by_its_value(tmp_path):
    rules = compile_ruleset(RULESETS / "monmouth")[0]
    test_file = tmp_path / "defines.mst"
    test_file.write_text(
        'test arrival "Bonus movement on arrival" § monmouth 4.1 {\n'
        "    scenario campaign\n"
        "    set turn 2\n"
        "    at 0111 nj_1\n"
        "    set arrived_on nj_1 2\n"
        "    expect movement_allowance(nj_1) 7\n"
        "    expect entry_choices(nj_1) 0111\n"
        "    expect east_of_21xx(2015) yes\n"
        "}\n",
        encoding="utf-8",
    )
    reporter = Reporter(SourceFiles())
    tests = collect([test_file], rules, reporter)
    reporter.check()
    runner = Runner(rules)
    assert runner.run(tests[0]).failure == (
        f"{test_file}:8: expected east_of_21xx(…) yes, it gives False"
    )


def test_a_define_expectation_is_checked_before_anything_runs(tmp_path):
    rules = compile_ruleset(RULESETS / "monmouth")[0]
    test_file = tmp_path / "typo.mst"
    test_file.write_text(
        'test typo "A define that is not there" {\n'
        "    expect movement_allowence(nj_1) 7\n"
        "    expect movement_allowance(nj_1, 2) 7\n"
        "    expect movement_allowance(nj_9) 7\n"
        "}\n",
        encoding="utf-8",
    )
    reporter = Reporter(SourceFiles())
    collect([test_file], rules, reporter)
    with pytest.raises(CompileError) as info:
        reporter.check()
    found = {(d.span.line, d.message) for d in info.value.diagnostics}
    assert (2, "no define 'movement_allowence'") in found
    assert (3, "movement_allowance takes (u: unit)") in found
    assert (4, "no unit 'nj_9'") in found
