"""The bots read the battle's ways of winning: a side whose victory counts its
units off the map makes for the exits and leaves, a hex a victory names is an
objective, and battles whose `bot_weights` say it all keep their weights."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from compiler.build import import_shipped, load_game
from engine import chance
from engine.bots import make_bot
from engine.bots.heuristic import Policy
from engine.bots.weights import weights_for
from engine.state import EXITED, State
from tests.conftest import first_movement

DESIGNER = Path(__file__).parents[1] / "data" / "designer"


@pytest.fixture(scope="module")
def escape():
    return load_game(DESIGNER / "the_escape")


def _choice(s: State) -> str:
    p = s.current_player()
    action = Policy(s.game).choose(s, s.legal_actions(), p, random.Random(1), deep=True)
    return s.action_to_string(action)


def test_a_side_that_wins_by_leaving_makes_for_the_exits(escape):
    """The Escape has no weight for exits: its victory counts Blue's exits, so
    Blue (and only Blue) weighs them, and Red makes for the hexes Blue may leave
    from, to bar them: each exit weighs 1, shared among its hexes."""
    w = weights_for(escape)
    blue, red = escape.rules.side_index("blue"), escape.rules.side_index("red")
    assert w.exits == {blue}
    labels = escape.rules.board.labels
    barred = [(labels[h], side, round(wt, 3)) for h, side, wt in w.objectives]
    road = [("0904", red, 1.0)]
    edge = [(f"090{row}", red, round(1 / 6, 3)) for row in range(1, 7)]
    assert barred == road + edge


def test_a_unit_on_an_exit_hex_leaves_the_map(escape):
    s = first_movement(escape, blue_first="0904", blue_second="0104", blue_general="0104")
    assert _choice(s) == "1st Blue Foot exits the map at 0904"


def test_a_unit_short_of_the_exits_steps_towards_them(escape):
    s = first_movement(escape, blue_first="0504", blue_second="0102", blue_general="0102")
    assert _choice(s).startswith("move 1st Blue Foot 0504 → 06")  # a column nearer the edge


def _blue_result(game, blue: str, seed: int) -> tuple[float, int]:
    """Blue's return and how many of its units left the map, in one seeded game
    against the random bot."""
    bots = [make_bot(blue, 0, seed), make_bot("random", 1, seed)]
    s = game.new_initial_state()
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance.sample(s, seed))
        else:
            s.apply_action(bots[s.current_player()].step(s))
    exited = sum(1 for u in game.units_by_side[0] if s.unit_status[u] == EXITED)
    return s.returns()[0], exited


def test_the_heuristic_leaves_the_map_and_wins_more_than_the_random_bot(escape):
    seeds = range(6)
    heuristic = [_blue_result(escape, "heuristic", seed) for seed in seeds]
    randomly = [_blue_result(escape, "random", seed) for seed in seeds]
    assert all(exited for _, exited in heuristic)
    wins = [sum(1 for r, _ in results if r > 0) for results in (heuristic, randomly)]
    assert wins[0] > wins[1]


def test_a_hex_a_victory_names_is_an_objective_of_its_winner():
    """The Ambush marks no victory hex; Red wins holding 0504."""
    game = load_game(DESIGNER / "the_ambush")
    w = weights_for(game)
    assert w.objectives == ((game.hex_by_label["0504"], game.rules.side_index("red"), 1.0),)


@pytest.mark.parametrize(
    ("battle", "scenario"),
    [("monmouth", "lees_advance"), ("monmouth", "campaign"), ("newtown", "historical")],
)
def test_battles_whose_weights_say_it_all_keep_them(battle, scenario):
    """Every objective, variable and exit the shipped battles' victory reads is
    weighed by their `bot_weights`: the goals add nothing."""
    game = import_shipped(battle).load_game({"scenario": scenario})
    w = weights_for(game)
    assert w.exits == frozenset()
    declared = [
        spec for spec in game.rules.bot_weights if not spec.scenarios or scenario in spec.scenarios
    ]
    assert w.objectives == next(spec.objectives for spec in reversed(declared) if spec.objectives)
    named = {"vp"} | {name for spec in declared for name in spec.variables}
    assert set(w.variables) == named


def test_a_winning_trigger_of_a_rule_played_without_is_no_goal(tmp_path):
    """The Escape with its trigger (Blue wins on leaving with 6 SP) under an
    optional rule and no victory counting exits: with the rule on Blue makes for
    the exits; played without it, the trigger wins nothing and Blue weighs no
    exit (nor does Red bar them)."""
    battle = tmp_path / "the_escape"
    shutil.copytree(DESIGNER / "the_escape", battle)
    victory = battle / "victory.mst"
    text = victory.read_text()
    trigger = text[text.index("trigger blue_escapes") : text.index("victory blue_got_away")]
    got_away = text[text.index("victory blue_got_away") : text.index("victory red_holds")]
    ruled = 'rule escape_wins "The escape wins" optional § the_escape 4.1 {\n' + trigger + "}\n\n"
    victory.write_text(text.replace(trigger, ruled).replace(got_away, ""))
    without, played = load_game(battle), load_game(battle, {"rules": {"escape_wins": True}})
    blue = played.rules.side_index("blue")
    off, on = weights_for(without), weights_for(played)
    assert on.exits == {blue} and on.objectives
    assert off.exits == frozenset() and not off.objectives
