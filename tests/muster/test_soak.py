"""`muster soak` and the firing counter: a two-game smoke, the invariants
catching broken positions written by hand, and every scenario's set-up
within the stacking limit (series 7.1) — the long soaks themselves are run
by hand (`docs/soak/`)."""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter

import pytest

from compiler.backends.engine_codegen import generate
from compiler.build import load_generated
from compiler.check import compile_ruleset
from engine.errors import BadInput
from engine.firing import Firing
from engine.state import ELIMINATED, ON_MAP
from muster.cli import main
from muster.language_tests import fired_in_tests
from muster.soak import (
    DETAIL,
    NO_REASON,
    Declaration,
    Invariants,
    Problem,
    SoakReport,
    declarations,
    markdown,
    never_fired,
    read_reasons,
)
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


def test_a_soak_plays_the_rules_chosen_and_says_so(tmp_path, capsys):
    """`--rule` as `muster play` takes it: every game plays with the switch, the
    report's command and its text name it, and the rule's step is passed over
    (its switch's arm `else`, never `then`)."""
    report, counts = tmp_path / "soak.md", tmp_path / "soak.json"
    args = ["soak", "training", "--games", "2", "--first-seed", "5", "--rule", "withdrawal=off"]
    assert main([*args, "--report", str(report), "--counts", str(counts), "--quiet"]) == 0
    text = report.read_text()
    assert text.count("`muster soak training --games 2 --first-seed 5 --rule withdrawal=off`")
    assert "seeds 5–6, withdrawal off;" in text
    fired = json.loads(counts.read_text())["counts"]
    assert fired["step:close_combat.withdraw"] > 0
    assert fired["branch:close_combat@1:else"] == fired["step:close_combat.withdraw"]
    assert "branch:close_combat@1:then" not in fired
    assert main([*args[:4], "--rule", "withdrawl=off", "--quiet"]) == 1  # (as muster play)
    assert "unknown rule switch 'withdrawl'" in capsys.readouterr().err


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
    known = {(d.kind, d.name) for d in declarations(rules, game.rules)}
    assert {k for k in counts if ":" not in k[1]} <= known
    assert counts[("result", "retreat")] == counts[("step", "result:retreat.do")]


def test_a_clone_played_on_counts_nothing(training_package):
    """Only the line of play counts: a clone is a bot's look-ahead (the
    heuristic bot's made Monmouth's initiative steps count about seven times
    per roll), so what it runs fires nothing, while the original still counts."""
    _rules, package = training_package
    game = package.load_game()
    game.firing = Firing(game.rules)
    s = game.new_initial_state()
    before = Counter(game.firing.counts)
    play_out(s.clone(), seed=3)
    assert game.firing.counts == before
    play_out(s, seed=3)
    assert game.firing.counts[("step", "game.victory")] == before[("step", "game.victory")] + 1


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


def test_each_arm_of_a_conditional_and_each_table_row_are_counted(training_package):
    rules, package = training_package
    game = package.load_game()
    game.firing = Firing(game.rules)
    for seed in (1, 2, 3):
        play_out(game.new_initial_state(), seed=seed)
    counts = game.firing.counts
    decls = declarations(rules, game.rules)
    branches = [d for d in decls if d.kind == "branch"]
    # Both arms of every conditional are declared, each where its test is written.
    assert branches and len(branches) % 2 == 0
    for d in branches:
        path, line = d.where.rsplit(":", 1)
        text = (RULESETS.parent / path).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        assert any(w in text for w in ("if ", "for each", "step ", "while")), (d, text)
    taken = {d.name.rsplit(":", 1)[1] for d in branches if counts[("branch", d.name)]}
    assert taken == {"then", "else"}
    rows = [d for d in decls if d.kind == "table_row" and d.name.startswith("combat_table#")]
    assert len(rows) == len(next(t for t in rules.tables if t.name == "combat_table").rows)
    read = sum(counts[("table_row", d.name)] for d in rows)
    assert read == counts[("table", "combat_table")]  # one row read for each roll


def test_the_battles_tests_name_what_they_make_fire(tmp_path):
    battle = tmp_path / "training"
    shutil.copytree(RULESETS / "training", battle)
    (battle / "tests" / "opening.mst").write_text(
        'test opening "The game begins" {\n    scenario skirmish\n    start\n'
        "    expect phasing red\n}\n",
        encoding="utf-8",
    )
    rules, _ = compile_ruleset(battle)
    tested = fired_in_tests(rules, battle)
    assert tested[("step", "game.turns")] == "opening"
    assert tested[("step", "player_turn.begin")] == "opening"
    assert ("table", "combat_table") not in tested  # no test rolls on it


def silent_report() -> SoakReport:
    return SoakReport("b", [], [], Counter({("step", "fired.x"): 3}), {"night": False})


def test_a_never_fired_declaration_gets_its_reason():
    decls = [
        Declaration("step", "fired.x", "b.mst:1", (), ""),
        Declaration("step", "rare.x", "b.mst:2", (), ""),
        Declaration("branch", "p@4:else", "b.mst:3", (), ""),
        Declaration("trigger", "dark", "b.mst:4", (), "night"),
        Declaration("result", "rout", "b.mst:5", (), ""),
    ]
    tested = {("step", "rare.x"): "a_rare_test"}
    reasons = {"branch b.mst:3 else": "every unit there has a step to lose"}
    report = silent_report()
    got = {d.name: why for d, why in never_fired(report, decls, tested, reasons)}
    assert got == {
        "rare.x": "a rarity: the test `a_rare_test` makes it fire",
        "p@4:else": "every unit there has a step to lose",
        "dark": "its rule `night` is off in every scenario soaked",
        "rout": NO_REASON,
    }
    text = markdown(report, 1, decls, tested, {**reasons, "step gone.x": "stale"})
    assert "1 without a reason" in text and "`step gone.x`" in text


def test_a_reasons_line_without_a_reason_is_refused_with_its_place(tmp_path):
    path = tmp_path / "b.reasons"
    path.write_text("# why\nstep a.b: it is rare\nbranch b.mst:3 else\n", encoding="utf-8")
    with pytest.raises(BadInput, match=r"b.reasons:3: expected `KEY: reason`"):
        read_reasons(path)
    path.write_text("# why\nstep a.b: it is rare\n", encoding="utf-8")
    assert read_reasons(path) == {"step a.b": "it is rare"}


@pytest.mark.parametrize("battle", ["monmouth", "newtown"])
def test_every_declaration_the_shipped_soak_never_fired_has_a_reason(battle):
    text = (RULESETS.parent / "docs" / "soak" / f"{battle}.md").read_text(encoding="utf-8")
    silent = text.split("### Never fired", 1)[1]
    rows = [r for r in silent.splitlines() if r.startswith("| ") and "---" not in r][1:]
    assert rows, "the report lists what never fired"
    assert any(r.startswith("| branch |") for r in rows), "made with the branch counts"
    assert [r for r in rows if NO_REASON in r] == []
    assert "Reasons that name no declaration" not in silent


def test_a_problem_row_keeps_an_exceptions_place_whole_and_cuts_an_invariants_detail():
    """An exception's message is cut before it is recorded, so that the rule's place
    after it ("procedure P at FILE:LINE:COLUMN", a long path under a temporary folder)
    is always in the report whole; a broken invariant's detail is cut at `DETAIL`."""
    place = "(procedure close_combat at /tmp/" + "deep/" * 30 + "battle.mst:364:17)"
    problems = [
        Problem("skirmish", 1, "random,random", 10, "exception", f"ZeroDivisionError: x {place}"),
        Problem("skirmish", 1, "random,random", 11, "army morale", "y" * (DETAIL + 50)),
    ]
    report = SoakReport("training", [], problems, Counter(), {})
    text = markdown(report, 1, [])
    assert place in text
    assert "y" * DETAIL + " |" in text and "y" * (DETAIL + 1) not in text
