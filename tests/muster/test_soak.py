"""`muster soak` and the firing counter: a two-game smoke, the invariants
catching broken positions written by hand, and every scenario's set-up
within the stacking limit (series 7.1) — the long soaks themselves are run
by hand (`docs/soak/`)."""

from __future__ import annotations

import json
import random

import pytest

from compiler.backends.engine_codegen import generate
from compiler.build import load_generated
from compiler.check import compile_ruleset
from engine.firing import Firing
from engine.state import ELIMINATED, ON_MAP
from muster.cli import main
from muster.soak import Invariants, declarations
from tests.conftest import RULESETS, play_out


def test_a_two_game_soak_reports_no_problem_and_counts_what_fired(tmp_path, capsys):
    report, counts = tmp_path / "soak.md", tmp_path / "soak.json"
    args = ["soak", "training", "--games", "2", "--report", str(report), "--counts", str(counts)]
    assert main([*args, "--quiet"]) == 0
    text = report.read_text()
    assert "**Exceptions: 0. Broken invariants: 0.**" in text
    assert "| skirmish | 2 |" in text and "| night_march | 2 |" in text
    data = json.loads(counts.read_text())
    assert data["format"] == "muster.soak/1" and data["battle"] == "training"
    # Every game runs the sequence of play: its steps fired, once per turn and more.
    assert data["counts"]["step:game.turns"] >= 4
    assert any(k.startswith("table:") for k in data["counts"])


def test_the_soak_of_a_library_is_refused(capsys):
    assert main(["soak", str(RULESETS / "series"), "--games", "1"]) == 2
    assert "library" in capsys.readouterr().err


@pytest.fixture(scope="module")
def training_package():
    rules, _ = compile_ruleset(RULESETS / "training")
    return rules, load_generated(generate(rules), rules.name)


def test_counting_is_off_by_default_and_counts_steps_when_on(training_package):
    rules, package = training_package
    game = package.load_game()
    assert game.firing is None
    play_out(game.new_initial_state(), seed=3)  # nothing to count into, nothing breaks
    game.firing = Firing(game.rules)
    play_out(game.new_initial_state(), seed=3)
    counts = game.firing.counts
    assert counts[("step", "game.victory")] == 1  # once a game
    assert counts[("step", "game.turns")] >= 1
    assert counts[("table", "combat_table")] > 0
    # Each key names a declaration of the rule files (the bodies of results and
    # triggers run as procedures of their own, `result:retreat`, counted as
    # their result or trigger).
    known = {(d.kind, d.name) for d in declarations(rules)}
    assert {k for k in counts if ":" not in k[1]} <= known
    assert counts[("result", "retreat")] == counts[("step", "result:retreat.do")]


def test_the_invariants_catch_positions_no_rule_may_make(training_package):
    _rules, package = training_package
    game = package.load_game()
    invariants = Invariants(game, package.rules.define__stack_ok)
    s = game.new_initial_state()
    assert invariants.broken(s, turn_began=True) == []
    r = game.rules
    guard, line = r.unit_index("red_guard"), r.unit_index("red_line")
    s.unit_hex[line] = s.unit_hex[guard]  # 4 + 3 SPs: over the limit of 6
    assert [w for w, _ in invariants.broken(s, turn_began=True)] == ["stacking"]
    assert invariants.broken(s, turn_began=False) == []  # checked only as a turn begins
    s = game.new_initial_state()
    s.unit_status[guard] = ELIMINATED  # eliminated, yet standing in a hex
    s.unit_loss[line] = len(r.units[line].strengths)  # lost more steps than it has
    found = {w for w, _ in invariants.broken(s, turn_began=False)}
    assert found == {"one location per unit", "step counts"}
    assert s.unit_status[line] == ON_MAP


def overstacked(package, game, s) -> list[str]:
    return [
        game.rules.board.labels[h]
        for h, units in s.units_by_hex().items()
        if not package.rules.define__stack_ok(s, units)
    ]


@pytest.fixture(scope="module", params=["monmouth", "newtown"])
def battle(request):
    rules, _ = compile_ruleset(RULESETS / request.param)
    return rules, load_generated(generate(rules), rules.name)


def test_every_printed_set_up_is_within_the_stacking_limit(battle):
    """§ series 7.1: the set-ups the rulebooks print are legal positions, so the
    provisional strengths of the units they stack together must fit the limit
    (Newtown's historical 3415 stack did not)."""
    rules, package = battle
    for scenario in rules.scenarios:
        game = package.load_game({"scenario": scenario.name})
        s = game.new_initial_state()
        assert overstacked(package, game, s) == [], scenario.name


def test_every_chosen_set_up_hex_has_room(battle):
    """§ series 7.1: a hex a player chooses for a unit at set-up must have room
    for it (Newtown's historical Blacksnake could join a full stack until its
    scenario said `stacking (stack_ok(units))`)."""
    rules, package = battle
    for scenario in rules.scenarios:
        game = package.load_game({"scenario": scenario.name})
        for seed in range(8):
            rng = random.Random(seed)
            s = game.new_initial_state()
            while s.stack and s.stack[-1].proc == "setup" and not s.is_chance_node():
                s.apply_action(rng.choice(s.legal_actions()))
            assert overstacked(package, game, s) == [], f"{scenario.name}, seed {seed}"
