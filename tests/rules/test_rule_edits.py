"""Editing the rule files changes play: tables, stacking, movement costs, patches."""

from __future__ import annotations

import shutil

import pytest

from compiler.build import load_game
from engine.save import from_json, to_json
from tests.conftest import RULESETS, hand_written_combat

BATTLE = "battle.mst"


def edited(tmp_path, old: str, new: str, file: str = BATTLE):
    """The training battle with one piece of text replaced, compiled."""
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    path = folder / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} should occur once in {file}"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return load_game(folder)


def step_action(game, state, unit: str, to: str) -> int:
    u = game.unit_by_name[unit]
    here = state.unit_hex[u]
    d = game.rules.board.neighbors[here].index(game.hex_by_label[to])
    return game.actions.step(u, d)


def test_a_table_entry_decides_the_combat(training, tmp_path):
    s = from_json(training, hand_written_combat())
    s.apply_action(9)
    assert to_json(s)["units"]["blue_foot"]["status"] == "eliminated"

    # The same roll on a table whose 3:1 cell of row 8.. reads -/R: a retreat.
    game = edited(
        tmp_path, "8..     -/R   -/1   -/1   -/1   1/1", "8..     -/R   -/1   -/1   -/R   1/1"
    )
    s = from_json(game, hand_written_combat())
    s.apply_action(9)
    assert not s.is_chance_node() and s.current_player() == game.side_by_name["blue"]
    s.apply_action(s.legal_actions()[0])  # Blue picks the retreat hex
    blue_foot = to_json(s)["units"]["blue_foot"]
    assert blue_foot["status"] == "map" and blue_foot["hex"] != "0604"


def test_the_stacking_limit_decides_where_units_may_go(training, tmp_path):
    # Red Line (3 SP) may not join Red Guard (4 SP): seven is over the limit of six.
    s = training.new_initial_state()
    assert step_action(training, s, "red_line", "0404") not in s.legal_actions()

    game = edited(tmp_path, "strength) <= 6", "strength) <= 8")
    s = game.new_initial_state()
    assert step_action(game, s, "red_line", "0404") in s.legal_actions()


def test_a_movement_cost_decides_how_far_units_go(training, tmp_path):
    # The Red Battery (MA 3) steps into woods at 0302 via 0303: woods cost 2,
    # so after 0303 (woods, 2 MP) it has 1 MP left and can go on into 0302.
    def second_step_legal(game) -> bool:
        s = game.new_initial_state()
        s.apply_action(step_action(game, s, "red_guns", "0303"))
        return step_action(game, s, "red_guns", "0302") in s.legal_actions()

    assert (
        training.rules.terrain[training.rules.board.terrain[training.hex_by_label["0303"]]].name
        == "woods"
    )
    assert second_step_legal(training) is False  # 0302 is woods too: 2 + 2 > 3
    game = edited(tmp_path, "move 2\n    defend_drm -1", "move 1\n    defend_drm -1")
    assert second_step_legal(game) is True


def start_of_combat() -> dict:
    position = hand_written_combat()
    position["stack"][-1] = {"procedure": "close_combat", "step": "odds", "bindings": {"combat": 0}}
    return position


def test_the_withdrawal_patch_gives_the_defender_a_choice(training, tmp_path):
    s = from_json(training, start_of_combat())
    assert not s.is_chance_node()
    assert s.current_player() == training.side_by_name["blue"]
    yes = training.actions.option(1)
    assert sorted(s.legal_actions()) == [training.actions.option(0), yes]
    s.apply_action(yes)
    while not s.is_terminal():
        assert not s.is_chance_node()  # withdrawing skips the roll
        s.apply_action(s.legal_actions()[0])
    assert to_json(s)["units"]["blue_foot"]["hex"] != "0604"

    # The same position with the rule switched off goes straight to the die.
    off = load_game(RULESETS / "training", {"rules": {"withdrawal": False}})
    assert from_json(off, start_of_combat()).is_chance_node()

    # And the battle file alone, without the patch, has no such step at all.
    alone = load_game(RULESETS / "training" / BATTLE)
    assert "withdrawal" not in alone.switch_on
    assert from_json(alone, start_of_combat()).is_chance_node()


def test_unknown_switches_are_refused():
    with pytest.raises(ValueError, match="unknown rule switch"):
        load_game(RULESETS / "training", {"rules": {"withdrawl": False}})


def test_a_save_resumes_in_the_version_of_a_replaced_step_its_switch_says(tmp_path):
    # An optional rule replaces the close combat's roll; a position saved at
    # that step resumes in the rule's version only when the rule is on.
    rule = """
rule loud_roll "Loud roll" optional {
    extend procedure close_combat {
        replace roll
        step roll {
            say("The dice are thrown loudly.")
            roll combat_table at odds with combat_drm into result
        }
    }
}
"""
    game_off = edited(
        tmp_path, 'import "battle.mst"\n', 'import "battle.mst"\n' + rule, "ruleset.mst"
    )
    game_on = type(game_off)(game_off.rules, {"rules": {"loud_roll": True}}, game_off.rules_hash)
    close_combat = game_off.rules.procedures["close_combat"]
    for game, version in ((game_off, "battle.mst"), (game_on, "ruleset.mst")):
        s = from_json(game, hand_written_combat())
        assert s.is_chance_node()  # waiting on the roll's die
        assert close_combat.lines[s.stack[-1].pc].split(":")[0].endswith(version)
        s.apply_action(9)
        assert to_json(s)["units"]["blue_foot"]["status"] == "eliminated"
