"""`muster test`: every shipped battle's tests written in the rule language pass,
and the runner reports a failure at its file:line."""

from __future__ import annotations

import re
import shutil

import pytest

from compiler.check import compile_ruleset
from dsl.diagnostics import CompileError, Reporter
from dsl.source import SourceFiles
from muster.cli import main
from muster.language_tests import Runner, collect, run_tests
from tests.conftest import ROOT, RULESETS, SHIPPED_BATTLES, compiled, rulebook


@pytest.mark.slow
@pytest.mark.parametrize("battle", SHIPPED_BATTLES)
def test_every_language_test_of_the_battle_passes(battle):
    tests, run = run_tests(battle)
    assert tests, f"{battle} has language tests in rulesets/{battle}/tests/"
    assert not run.failed, [o.failure for o in run.failed]


# Where each battle's exclusive rules run in its rulebook, first line to the
# line that ends them (the historical articles after them hold no rules).
EXCLUSIVE_PART = {
    "monmouth": ("Monmouth Courthouse — Exclusive Rulebook.", "Historical Article"),
    "newtown": ("Newtown Exclusive Rules\n\nDesign Note", "Newtown Historical Essay"),
}

# Sections that hold no rule of their own: headings whose rules are their
# sub-sections, and lists a scenario's set-up reads.
NOT_RULES = {
    "monmouth": {
        "4.3": "heading: Leader Rules (4.31–4.33)",
        "4.6": "heading: Command & Control (4.61–4.64)",
        "6.1": "heading: Scenario I (6.11–6.19)",
        "6.2": "heading: Scenario II (6.21–6.292)",
        "6.3": "heading: Scenario III (6.31–6.392)",
        "6.29": "heading: Special Scenario Rules (6.291, 6.292)",
        "6.39": "heading: Special Scenario Rules (6.391, 6.392)",
        "6.12": "a set-up list (scenarios.mst `setup`; test_monmouth_scenarios checks it)",
        "6.32": "a set-up list (scenarios.mst `setup`; test_monmouth_scenarios checks it)",
    },
    "newtown": {
        "1.5": "deployment by the hexes printed on the counters (forces.mst `setup`)",
        "1.9": "heading: Activation Markers (1.9.1, 1.9.2)",
        "2.5": "heading: Victory Point Schedule (2.5.1–2.5.3)",
        "3.1": "heading: Leaders (3.1.1, 3.1.2)",
        "3.2": "heading: Retreat Priorities (3.2.1, 3.2.2)",
        "3.5": "heading: Strategic Movement (3.5.1–3.5.3)",
        "3.6": "heading: Combat Considerations (3.6.1–3.6.3)",
        "4.2": "heading: Opportunity Cards (4.2.1–4.2.4)",
        "5.2": "heading: Indian Player Movement Phases (5.2.1–5.2.3)",
        "5.3": "heading: Indian Sortie (5.3.1–5.3.3)",
        "5.4": "heading: Indian Resolve (5.4.1–5.4.4)",
        "6.1": "heading: 8th Foot (Platoon) (6.1.1–6.1.7)",
        "6.5": "heading: The Cattle Herd (6.5.1, 6.5.2)",
    },
}

# Rules that play but have no language test yet, each with what stands in
# the way. Shrink this list; never grow it without a reason.
NOT_YET = {
    "monmouth": {},
    "newtown": {},
}


def rulebook_sections(battle: str) -> list[str]:
    """The numbered sections of a battle's exclusive rules, in the book's order
    (the test skips in a clone without `shared/`, where the rulebooks are not)."""
    path = rulebook(f"{battle}.txt")
    if path is None:
        pytest.skip("the rulebooks are in ../shared/, absent from this clone")
    text = path.read_text(encoding="utf-8")
    first, end = EXCLUSIVE_PART[battle]
    text = text[text.index(first) : text.index(end, text.index(first))]
    found = re.findall(r"^(\d+\.\d+(?:\.\d+)*)\s", text, flags=re.MULTILINE)
    return list(dict.fromkeys(found))


def sections_tested(battle: str) -> set[str]:
    """The sections of the battle that its language tests cite (`§ battle 4.31, 4.64`)."""
    cited: set[str] = set()
    for path in (RULESETS / battle / "tests").glob("*.mst"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("test "):
                for doc, sections in re.findall(r"§ (\w+) ([\w.]+(?:, [\w.]+)*)", line):
                    if doc == battle:
                        cited.update(s.strip() for s in sections.split(","))
    return cited


@pytest.mark.parametrize("battle", sorted(EXCLUSIVE_PART))
def test_every_exclusive_rule_has_a_language_test(battle):
    sections = rulebook_sections(battle)
    assert len(sections) > 40, "the rulebook's sections were found"
    tested = sections_tested(battle)
    exempt = NOT_RULES[battle].keys() | NOT_YET[battle].keys()
    missing = [s for s in sections if s not in tested and s not in exempt]
    assert not missing, f"{battle}: sections with no language test citing them: {missing}"
    # An exemption that is tested, or that names no section, is stale.
    assert not (NOT_YET[battle].keys() & tested), "tested now: remove from NOT_YET"
    assert exempt <= set(sections), exempt - set(sections)


def test_the_sections_are_read_from_the_rulebook():
    assert rulebook_sections("monmouth")[:4] == ["4.1", "4.11", "4.12", "4.13"]
    assert "6.392" in rulebook_sections("monmouth")
    assert rulebook_sections("newtown")[:3] == ["1.1", "1.2", "1.3"]
    assert "6.5.2" in rulebook_sections("newtown")
    assert "4.64" in sections_tested("monmouth") and "5.5" in sections_tested("newtown")


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


def failing(folder, capsys, file: str, *lines: str) -> tuple[str, str]:
    """Add a test file of these lines to a battle's tests, run them all (one
    fails: exit 1) and give what they printed, out and err."""
    (folder / "tests" / file).write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["test", str(folder)]) == 1
    printed = capsys.readouterr()
    return printed.out, printed.err


def test_a_drm_expected_without_its_bindings_fails_that_test_only(training_copy, capsys):
    """The combat DRM list reads its `combat`: a line that does not bind it
    is the failure of its test, saying what to write (it was exit 3)."""
    out, _err = failing(
        training_copy,
        capsys,
        "drm.mst",
        'test unbound "A DRM list asked without its combat" {',
        "    scenario skirmish",
        '    expect drm combat_drm "Flank attack" 1',
        "}",
    )
    assert (
        "drm.mst:3: the list combat_drm reads 'combat': bind it on the line, "
        '`expect drm combat_drm "Flank attack" 1 combat VALUE`'
    ) in out
    assert "movement.mst::red_guard_moves PASSED" in out and "1 passed, 1 failed" in out


def test_an_act_for_a_choice_made_without_asking_says_so(training_copy, capsys):
    """One combat to resolve is taken without asking: an `act` naming it
    finds nothing, and the failure says the choice was made, and how."""
    out, _err = failing(
        training_copy,
        capsys,
        "auto.mst",
        'test auto "One combat, chosen without asking" {',
        "    scenario skirmish",
        "    at 0404 red_guard",
        "    at 0403 blue_foot",
        "    combat red_guard against blue_foot",
        "    during close_combat_phase resolve side red",
        '    act "Red Guard"',
        "}",
    )
    assert "auto.mst:7: no legal action is 'Red Guard'" in out
    assert (
        "(made without asking, as the only option: "
        "Close Combat Phase: choose the next combat: combat 1 (Red Guard against Blue Foot))"
    ) in out


def test_dice_where_none_is_rolled_says_what_the_game_waits_for(training_copy, capsys):
    out, _err = failing(
        training_copy,
        capsys,
        "dice.mst",
        'test dice_nowhere "A die where the game waits for a move" {',
        "    scenario skirmish",
        "    at 0404 red_guard",
        "    during movement_phase move side red",
        "    dice 3",
        "}",
    )
    assert (
        "dice.mst:5: no die is rolled here (dice 3): the game waits for the Red Army "
        "player (move a unit one hex, or pass): pass; move Red Guard 0404 → 0403"
    ) in out


def test_a_position_line_after_an_expect_names_the_first_line_that_plays(training_copy, capsys):
    _out, err = failing(
        training_copy,
        capsys,
        "late.mst",
        'test late "A position line after an expectation" {',
        "    scenario skirmish",
        "    expect turn 1",
        "    at 0404 red_guard",
        "}",
    )
    assert (
        "late.mst:4:5: error: `at` sets up the position: put it before `expect` (line 3), "
        "the first line that plays"
    ) in err


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


@pytest.mark.slow
def test_a_define_is_expected_by_its_value(tmp_path):
    rules = compiled("monmouth")[0]
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


@pytest.mark.slow
def test_a_define_expectation_is_checked_before_anything_runs(tmp_path):
    rules = compiled("monmouth")[0]
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


@pytest.mark.slow
def test_the_series_examples_pass_in_the_rule_language():
    # The series rulebook's worked examples (tests/rules/test_rulebook_examples.py
    # plays them from Python) on the examples battle of tests/data/.
    tests, run = run_tests(ROOT / "tests" / "data" / "examples" / "examples.mst")
    assert {t.name for t in tests} >= {
        "militia_rifles_hit",
        "five_against_four",
        "zoc_out_of_an_orchard",
    }
    assert not run.failed, [o.failure for o in run.failed]


def test_an_outer_frame_goes_on_after_the_call_it_stands_in(tmp_path):
    # Blue's combat phase of turn 1, inside its player turn, inside the game
    # turn's second step, inside the game's turns: when each returns, the frame
    # below goes on after its call (the turn ends, the next begins with red),
    # not from its step's start (which played blue's turn 1 again).
    rules = compile_ruleset(RULESETS / "training")[0]
    test_file = tmp_path / "frames.mst"
    test_file.write_text(
        'test next_turn "After the last player turn the next turn begins" {\n'
        "    at 0404 red_guard\n"
        "    during game turns\n"
        "    during game_turn second\n"
        "    during player_turn combat side blue\n"
        "    expect turn 2\n"
        "    expect phasing red\n"
        "}\n"
        'test left_out "A frame whose step does not call the next resumes at its start" {\n'
        "    during game turns\n"
        "    during player_turn combat side blue\n"
        "    expect turn 1\n"
        "}\n",
        encoding="utf-8",
    )
    reporter = Reporter(SourceFiles())
    tests = collect([test_file], rules, reporter)
    reporter.check()
    runner = Runner(rules)
    assert [runner.run(t).failure for t in tests] == [None, None]


@pytest.mark.parametrize(
    ("effect", "message"),
    [("score(red, lookup(bonus, 5))", "table 'bonus' has no row"), ("score(red, 1 / 0)", "")],
)
def test_a_rule_that_fails_in_play_fails_its_test_at_the_line(training_copy, effect, message):
    # A table with no row for the value a rule looks up, a division by zero: an
    # error of the rules at play time, reported as the failure of the test line
    # that met it, with the rule's file:line:column.
    battle = training_copy / "battle.mst"
    battle.write_text(
        battle.read_text(encoding="utf-8")
        + 'table bonus "Bonus" {\n    rows strength\n    kind number\n    1..2    1\n}\n'
        + 'procedure bonus_asked "Bonus" {\n'
        + f'    step ask: ask red "Take the bonus?" {{ {effect} }}\n}}\n',
        encoding="utf-8",
    )
    lines = battle.read_text(encoding="utf-8").splitlines()
    line, text = next((n, t) for n, t in enumerate(lines, 1) if effect in t)
    (training_copy / "tests" / "bonus.mst").write_text(
        'test no_row "A value the table has no row for" {\n'
        "    during bonus_asked ask\n"
        '    act "Take the bonus? yes"\n'
        "}\n",
        encoding="utf-8",
    )
    tests, run = run_tests(training_copy, "no_row")
    failure = run.outcomes[0].failure or ""
    assert failure.startswith(f"{tests[0].file}:3: the rules fail here: {message}")
    # The rule the engine was running, at the effect's column.
    assert f"at {battle}:{line}:{text.index(effect) + 1})" in failure


@pytest.mark.slow
def test_a_position_that_cannot_play_on_names_the_rule(tmp_path):
    # No side has the initiative on an empty board: the second player turn is
    # the enemy of none's. The failure names the rule the engine was running.
    rules = compiled("newtown")[0]
    test_file = tmp_path / "second.mst"
    test_file.write_text(
        'test second "The second player turn, with no initiative side set" {\n'
        "    scenario campaign\n"
        "    during game turns\n"
        "    during game_turn second_player_turn\n"
        "    expect turn 1\n"
        "}\n",
        encoding="utf-8",
    )
    reporter = Reporter(SourceFiles())
    tests = collect([test_file], rules, reporter)
    reporter.check()
    failure = Runner(rules).run(tests[0]).failure or ""
    assert failure.startswith(f"{test_file}:4: bad position: $.stack: the position does not play")
    assert "in the rules, procedure player_turn at rulesets/" in failure
