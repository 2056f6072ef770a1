"""A battle written as a new designer would (tests/data/designer/mill_creek):
it checks, builds, plays to the end, and its tests in the rule language pass.
Its set-up binds the unit placed and keeps to the stacking limit; a fixed
set-up that over-stacks is an error naming the hex and the units."""

from __future__ import annotations

import shutil
from pathlib import Path

from compiler.backends.print_and_play.charts import terrain_changes_chart, terrain_chart
from compiler.build import load_game
from compiler.check import check_ruleset
from engine import effects
from engine.game import SetupError
from engine.save import to_json
from muster.cli import main
from muster.language_tests import run_tests
from table.views import terrain_changes_json
from tests.conftest import play_out

MILL_CREEK = Path(__file__).parent.parent / "data" / "designer" / "mill_creek"


def test_it_checks_builds_and_plays(capsys):
    rules, _sources, warnings = check_ruleset(MILL_CREEK)
    assert warnings == []
    scenario = rules.scenarios[0]
    assert scenario.stacking is not None
    assert any(e.chosen and e.condition is not None for e in scenario.setup)
    game = load_game(MILL_CREEK)
    end = play_out(game.new_initial_state(), seed=3)
    assert end.is_terminal()
    assert main(["play", str(MILL_CREEK), "--seed", "1", "--quiet"]) == 0
    assert "Game over" in capsys.readouterr().out


def test_its_language_tests_pass():
    tests, run = run_tests(MILL_CREEK)
    assert {t.name for t in tests} >= {
        "setup_choices",
        "attacker_takes_the_crossroads",
        "no_attack_across_the_creek",
    }
    assert not run.failed, [o.failure for o in run.failed]


def test_an_over_stacked_fixed_setup_names_the_hex_and_units(tmp_path, capsys):
    folder = tmp_path / "mill_creek"
    shutil.copytree(MILL_CREEK, folder)
    scenarios = folder / "scenarios.mst"
    text = scenarios.read_text().replace(
        "        0203 attacker_foot attacker_general",
        "        0203 attacker_foot attacker_general attacker_third",
    )
    scenarios.write_text(
        text.replace("choose attacker_second attacker_third", "choose attacker_second")
    )
    game = load_game(folder)
    try:
        game.new_initial_state()
    except SetupError as e:
        message = str(e)
    else:
        raise AssertionError("the over-stacked set-up was accepted")
    assert "hex 0203" in message and "attacker_foot" in message and "attacker_third" in message
    assert main(["play", str(folder), "--quiet"]) == 1
    assert "over its stacking limit" in capsys.readouterr().err


GAPS = MILL_CREEK.parent / "gaps"


def test_the_gaps_are_said_now_and_were_errors_before(tmp_path):
    """Each rule in data/designer/gaps/ was an error to the checker before this work
    (main_errors.txt, recorded with it): a hexside's state changing in play, the
    hexes left and entered in a retreat and an advance, a condition on a whole
    combat, a set-up binding the unit placed (with the scenario's stacking),
    `true`/`false` and range membership. Added to Mill Creek, each checks clean now."""
    before = (GAPS / "main_errors.txt").read_text()
    cases = sorted(GAPS.glob("*.mst"))
    assert len(cases) == 7
    for case in cases:
        recorded = before.split(f"== {case.name}", 1)[1].split("\n== ", 1)[0]
        assert "mill_creek/gap.mst:" in recorded and "error:" in recorded, case.name
        folder = tmp_path / case.stem
        shutil.copytree(MILL_CREEK, folder)
        shutil.copy(case, folder / "gap.mst")
        entry = folder / "ruleset.mst"
        entry.write_text(entry.read_text() + '\nimport "gap.mst"\n')
        _rules, _sources, warnings = check_ruleset(folder)
        # It compiles (an error raises); a gap's rule, used nowhere, may be a slip.
        assert all("never used" in w.message for w in warnings), warnings


def test_the_defender_blows_the_bridge_in_play():
    """Random games reach the decision and take it, and a blown bridge shows in the
    observation with the marker's hexes."""
    game = load_game(MILL_CREEK)
    spec = game.rules.terrain_changes[0]
    assert spec.marker == "blown_bridge"
    labels = game.rules.board.labels
    assert spec.hexes == () and [(labels[a], labels[b]) for a, b in spec.hexsides] == [
        ("0504", "0604")
    ]
    blown = 0
    for seed in range(6):
        end = play_out(game.new_initial_state(), seed=seed)
        blown += "bridge_blown" in end.observation(1)["vars"]["changed_terrain"]
    assert blown > 0


def test_the_terrain_changes_chart_says_where_and_what_marks_it():
    rules, _sources, _warnings = check_ruleset(MILL_CREEK)
    chart = terrain_changes_chart(rules)
    assert [c.text for c in chart.rows[0]] == [
        "The bridge is blown",
        "0504/0604: no Bridge",
        "Bridge Blown",
    ]
    pontoon = [c.text for c in chart.rows[1]]
    assert pontoon[0] == "The pontoon is laid" and pontoon[2] == "Pontoon"
    assert pontoon[1] == (
        "Pontoon added at one of, chosen when made:\n"
        "0501/0601, 0502/0602, 0505/0605, 0506/0606, 0508/0608, 0502/0601,\n"
        "0503/0602, 0504/0603, 0505/0604, 0506/0605, 0507/0606, 0508/0607"
    )
    assert chart.subtitle == "§ mill_creek 3.5, 3.8"


def test_the_tec_says_the_upper_ford_in_words():
    """An impassable-unless hexside: its condition in words, never "+0 MP"."""
    rules, _sources, _warnings = check_ruleset(MILL_CREEK)
    rows = {r[0].text: [c.text for c in r] for r in terrain_chart(rules).rows}
    ford = rows["Upper Ford (hexside)"]
    assert ford[1] == "prohibited unless the pontoon is laid; then +2 MP\ninstead of Creek"
    assert "not across while prohibited" in ford


def test_the_table_shows_the_marker_of_a_change_made():
    game = load_game(MILL_CREEK)
    s = game.new_initial_state()
    assert terrain_changes_json(s, to_json(s)) == []
    effects.change_terrain(s, "bridge_blown")
    assert terrain_changes_json(s, s.observation(1)) == [
        {
            "name": "bridge_blown",
            "title": "The bridge is blown",
            "marker": "blown_bridge",
            "hexes": [],
            "hexsides": [["0504", "0604"]],
        }
    ]
