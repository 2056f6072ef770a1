"""Rules that are options of others (`part_of`) and rules never played together
(`excludes`): a game plays neither way round, whoever chooses its switches."""

from __future__ import annotations

import shutil

import pytest

from compiler.build import import_shipped, load_game
from engine.game import ParamsError
from engine.rule_switches import players_choice
from engine.save import from_json
from tests.conftest import RULESETS, hand_written_combat

# The training battle's withdrawal made an option of a rule of night fighting, and
# two weathers that exclude each other: rain on unless chosen otherwise, fog not.
RELATED = """
rule night "Night fighting" advanced {
}
rule fog "Fog" optional excludes rain {
}
rule rain "Rain" advanced {
}
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("relations") / "training"
    shutil.copytree(RULESETS / "training", folder)
    path = folder / "ruleset.mst"
    text = path.read_text(encoding="utf-8")
    old = 'rule withdrawal "Defender withdrawal" {'
    assert text.count(old) == 1
    text = text.replace(old, 'rule withdrawal "Defender withdrawal" part_of night {')
    path.write_text(text + RELATED, encoding="utf-8")
    return folder


def start_of_combat() -> dict:
    position = hand_written_combat()
    position["stack"][-1] = {"procedure": "close_combat", "step": "odds", "bindings": {"combat": 0}}
    return position


def offers_withdrawal(game) -> bool:
    """Whether the defender is asked to withdraw before the roll (the rule's patch)."""
    return not from_json(game, start_of_combat()).is_chance_node()


def test_an_option_of_a_rule_is_played_only_with_it(folder):
    game = load_game(folder)
    assert game.switch_on["night"] and game.switch_on["withdrawal"]
    assert offers_withdrawal(game)
    # Night fighting left out: its option goes with it, and play says so.
    without = load_game(folder, {"rules": {"night": False}})
    assert without.switch_on["withdrawal"] is False
    assert not offers_withdrawal(without)
    with pytest.raises(ParamsError, match=r"'withdrawal'.*is part of 'night'.*leaves out"):
        load_game(folder, {"rules": {"night": False, "withdrawal": True}})


def test_a_rule_chosen_leaves_out_the_rules_it_excludes(folder):
    assert load_game(folder).switch_on["rain"] is True
    fog = load_game(folder, {"rules": {"fog": True}})
    assert fog.switch_on["fog"] is True and fog.switch_on["rain"] is False
    with pytest.raises(ParamsError, match=r"'fog'.*'rain'.*exclude each other"):
        load_game(folder, {"rules": {"fog": True, "rain": True}})
    assert load_game(folder, {"rules": {"fog": False}}).switch_on["rain"] is True


def test_monmouth_plays_its_options_and_play_balance_consistently(monmouth_package):
    """Monmouth 4.4: the Historical Deployment Option is Molly Pitcher's; V, 5.1/5.2
    (our reading): Pro-British and Pro-American are never both played."""
    load = monmouth_package.load_game
    game = load({"scenario": "campaign", "rules": {"molly_pitcher": True}})
    assert game.switch_on["historical_molly_pitcher"] is False
    game = load(
        {"scenario": "campaign", "rules": {"molly_pitcher": True, "historical_molly_pitcher": True}}
    )
    assert game.switch_on["historical_molly_pitcher"] is True
    with pytest.raises(ParamsError, match="part of 'molly_pitcher'"):
        load({"scenario": "campaign", "rules": {"historical_molly_pitcher": True}})
    with pytest.raises(ParamsError, match="exclude each other"):
        load({"scenario": "campaign", "rules": {"pro_british": True, "pro_american": True}})

    # Where the scenario leaves Molly Pitcher out, her option is not the players' either.
    offered = {
        sc.name: {sw.name for sw in players_choice(game.rules, sc)} for sc in game.rules.scenarios
    }
    assert "historical_molly_pitcher" in offered["campaign"]
    assert "historical_molly_pitcher" not in offered["holding_action"]
    assert all({"pro_british", "pro_american"} <= names for names in offered.values())


def test_newtown_plays_automatic_ambush_only_with_the_ambush():
    """Newtown 5.5.1, "For play balance treat Ambush as automatic", is an option of
    5.5's Indian Ambush: off with it, and not offered where a scenario leaves the
    ambush out (the historical scenario)."""
    package = import_shipped("newtown")
    game = package.load_game({"scenario": "campaign", "rules": {"indian_ambush": False}})
    assert game.switch_on["automatic_ambush"] is False
    with pytest.raises(ParamsError, match="part of 'indian_ambush'"):
        package.load_game({"rules": {"indian_ambush": False, "automatic_ambush": True}})
    offered = {
        sc.name: {sw.name for sw in players_choice(game.rules, sc)} for sc in game.rules.scenarios
    }
    assert "automatic_ambush" in offered["campaign"]
    assert "automatic_ambush" not in offered["historical"]
