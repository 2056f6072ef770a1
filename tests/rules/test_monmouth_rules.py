"""Monmouth's exclusive rules at work in the engine, from positions written by hand.

The litmus rules of DESIGN.md: Lee relieved when Washington reaches his hex
(4.64), Lee's penalty for not reaching hex row 21xx (4.31), Washington's
leadership in adjacent hexes (4.31), heat (4.5), Command & Control (4.6), the
rear guard's zone (4.7), Morgan's entry (4.11) — and a few more: the hedgerow
(6.292), heavy guns (4.2), Molly Pitcher (4.4).
"""

from __future__ import annotations

import pytest

from compiler.build import import_shipped
from engine import chance, interpreter, primitives, restrictions
from engine.save import from_json
from engine.tables import modifiers_of
from tests.conftest import fresh_game, play_out

YES = 1


@pytest.fixture(scope="module")
def campaign():
    return fresh_game("monmouth", {"scenario": "campaign"})


def position(game, variables: dict, units: dict, stack: list, **extra) -> object:
    return from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": "monmouth",
            "vars": variables,
            "units": {name: {"hex": h} if isinstance(h, str) else h for name, h in units.items()},
            "stack": stack,
            **extra,
        },
    )


def movement(side: str, step: str = "move") -> list:
    """The stack of `side`'s Movement Phase at `step` (the units' moves, by default)."""
    return [
        {"procedure": "game", "step": "winner"},
        {"procedure": "movement_phase", "step": step, "bindings": {"side": side}},
    ]


def step(game, s, unit: str, to: str) -> int:
    u = game.unit_by_name[unit]
    d = game.rules.board.neighbors[s.unit_hex[u]].index(game.hex_by_label[to])
    return game.actions.step(u, d)


def unit_steps(game, s, unit: str) -> list[int]:
    u = game.unit_by_name[unit]
    return [
        a
        for a in s.legal_actions()
        if game.actions.kind_of(a) == "step" and game.actions.decode_step(a)[0] == u
    ]


AMERICAN, BRITISH = "american", "british"


# ---------------------------------------------------------------- 4.64 Lee relieved


def test_lee_is_relieved_when_washington_reaches_his_hex(campaign):
    game = campaign
    s = position(
        game,
        {"turn": 7, "phasing": AMERICAN},
        {"lee": "2115", "washington": "2015", "nj_1": "1810"},
        movement(AMERICAN),
    )
    am = s.vars["army_morale"][game.side_by_name[AMERICAN]]
    assert unit_steps(game, s, "lee") and unit_steps(game, s, "washington")
    s.apply_action(step(game, s, "washington", "2115"))
    assert s.vars["lee_relieved"] is True and s.vars["lee_relieved_on"] == 7
    assert s.vars["army_morale"][game.side_by_name[AMERICAN]] == am + 1
    assert s.vars["cc_intact_from"] == 8  # lifted at the next American player turn
    # Both stop for the turn; other units still move.
    assert not unit_steps(game, s, "washington") and not unit_steps(game, s, "lee")
    assert unit_steps(game, s, "nj_1")


# ---------------------------------------------------------------- 4.31 Lee's penalty


def test_lee_short_of_21xx_after_the_third_american_player_turn(campaign):
    game = campaign
    s = position(
        game,
        {"turn": 3, "phasing": AMERICAN, "army_morale": {BRITISH: 20, AMERICAN: 20}},
        {"lee": "1511"},
        [
            {"procedure": "game", "step": "winner"},
            {"procedure": "player_turn", "step": "close_combat", "bindings": {"side": AMERICAN}},
        ],
    )
    while not s.is_terminal() and not s.vars["lee_penalized"]:
        s.apply_action(s.legal_actions()[0])
    assert s.vars["lee_penalized"] is True
    assert s.vars["army_morale"][game.side_by_name[AMERICAN]] == 18
    assert s.vars["sidebar_vp"][game.side_by_name[BRITISH]] == 1


def test_lee_falls_back_west_of_21xx_once(campaign):
    game = campaign
    s = position(
        game,
        {"turn": 5, "phasing": AMERICAN, "lee_reached_21xx": True},
        {"lee": "2115"},
        movement(AMERICAN),
    )
    am = s.vars["army_morale"][game.side_by_name[AMERICAN]]
    s.apply_action(step(game, s, "lee", "2015"))
    assert s.vars["lee_penalized"] is True
    assert s.vars["army_morale"][game.side_by_name[AMERICAN]] == am - 2
    s.apply_action(step(game, s, "lee", "2115"))
    s.apply_action(step(game, s, "lee", "2015"))  # a one-time penalty
    assert s.vars["army_morale"][game.side_by_name[AMERICAN]] == am - 2


def test_no_penalty_once_lee_is_relieved(campaign):
    game = campaign
    s = position(
        game,
        {"turn": 5, "phasing": AMERICAN, "lee_reached_21xx": True, "lee_relieved": True},
        {"lee": "2115"},
        movement(AMERICAN),
    )
    s.apply_action(step(game, s, "lee", "2015"))
    assert s.vars["lee_penalized"] is False


# ---------------------------------------------------------------- 4.31 Washington, 4.5 heat


def test_washington_leads_the_adjacent_hexes_and_the_heat_tells(campaign):
    game = campaign
    s = position(
        game,
        {"turn": 6},
        {"washington": "2015", "nj_1": "2014", "nj_2": "1810"},
        [],
        terminal=True,
    )
    near, far = game.unit_by_name["nj_1"], game.unit_by_name["nj_2"]
    near_drms = dict(modifiers_of(s, "morale_check_drm", {"unit": near, "drm": 0}))
    far_drms = dict(modifiers_of(s, "morale_check_drm", {"unit": far, "drm": 0}))
    assert near_drms["Washington in an adjacent hex"] == 1
    assert "Washington in an adjacent hex" not in far_drms
    assert near_drms["Heat Game Turn"] == far_drms["Heat Game Turn"] == -1
    s.vars["turn"] = 5
    assert "Heat Game Turn" not in dict(
        modifiers_of(s, "morale_check_drm", {"unit": far, "drm": 0})
    )


def initiative_tie(game, turn: int):
    s = position(
        game,
        {"turn": turn, "initiative_side": BRITISH},
        {"nj_1": "1810"},
        [{"procedure": "game", "step": "winner"}, {"procedure": "game_turn", "step": "initiative"}],
    )
    assert s.is_chance_node()
    s.apply_action(5)
    s.apply_action(5)
    return s


def test_a_tied_initiative_skips_a_heat_turn(campaign):
    s = initiative_tie(campaign, 6)
    assert s.is_terminal() and s.vars["turn_lost_to_heat"] is True
    assert not any("Movement Phase" in m for m in s.messages)


def test_a_tied_initiative_is_rolled_again_otherwise(campaign):
    s = initiative_tie(campaign, 5)
    assert s.is_chance_node() and s.vars["turn_lost_to_heat"] is False


def test_momentum_spent_on_the_roll_saves_a_heat_turn(campaign):
    game = campaign
    s = position(
        game,
        {"turn": 6, "initiative_side": BRITISH, "momentum_spent": {BRITISH: 1, AMERICAN: 0}},
        {"nj_1": "1810"},
        [{"procedure": "game", "step": "winner"}, {"procedure": "initiative", "step": "spend"}],
    )
    s.apply_action(3)
    s.apply_action(5)  # British 3 + 2 for the chit, American 5: a tie, rolled again
    assert s.is_chance_node() and s.vars["turn_lost_to_heat"] is False


# ---------------------------------------------------------------- 4.6 Command & Control


def test_command_and_control_marks_the_brigades_and_countermarches_them():
    game = fresh_game("monmouth", {"scenario": "lees_advance"})
    s = game.new_initial_state()
    american = game.side_by_name[AMERICAN]
    rolled = []
    while not any(f.prim and f.proc == "move_units" and f.b["side"] == american for f in s.stack):
        top = s.stack[-1]
        if s.is_chance_node():
            if top.proc == "command_and_control_phase":
                face = 8 if not rolled else 9  # "Turn 4 +": Maxwell and Scott; countermarch
                rolled.append(face)
                s.apply_action(face)
            else:
                s.apply_action(0)
        else:
            s.apply_action(0 if 0 in s.legal_actions() else s.legal_actions()[0])
    assert rolled == [8, 9]
    impact = s.vars["cc_impact"]
    countermarch = next(i for i, r in enumerate(game.rules.results) if r.name == "cc_countermarch")
    marked = {game.rules.units[u].name for u in range(len(impact)) if impact[u] == countermarch}
    assert {"nj_1", "nj_2", "nj_3", "nj_4", "cilley", "parker", "gist"} <= marked
    assert not marked & {"wesson", "durkee", "grayson", "lee", "lafayette"}
    assert all(s.vars["cc_confused"][game.unit_by_name[n]] for n in marked)
    # They marched west, toward A-1 (no strategic road march from 2513 for 1st NJ).
    nj_1 = game.unit_by_name["nj_1"]
    assert s.unit_status[nj_1] != 0 or game.rules.board.columns[s.unit_hex[nj_1]] < 25
    assert (
        not restrictions.may_move(s, game.unit_by_name["cilley"])
        or s.unit_status[game.unit_by_name["cilley"]] != 0
    )


# ---------------------------------------------------------------- 4.7 the rear guard


def test_the_rear_guard_keeps_to_its_zone_until_turn_6(campaign):
    game = campaign
    for turn, expected in ((5, False), (6, True)):
        s = position(
            game,
            {"turn": turn},
            {"queens_light_dragoons_2": "3915", "diemar_hussars": "4113"},
            [],
            terminal=True,
        )
        dragoons, hussars = (
            game.unit_by_name["queens_light_dragoons_2"],
            game.unit_by_name["diemar_hussars"],
        )
        assert restrictions.may_enter(s, dragoons, game.hex_by_label["3814"]) is expected
        assert (
            restrictions.may_enter(s, dragoons, game.hex_by_label["4016"]) is True
        )  # behind the line
        assert (
            restrictions.may_enter(s, hussars, game.hex_by_label["4012"]) is True
        )  # 4.7 exception


# ---------------------------------------------------------------- 4.11 Morgan


def at_morgans_roll(game, turn: int = 8, **variables):
    """The American Movement Phase of `turn` (from 8): Morgan's entry roll is next."""
    return position(
        game, {"turn": turn, "phasing": AMERICAN, **variables}, {}, movement(AMERICAN, "morgan")
    )


def test_morgan_enters_at_a4_on_his_roll(campaign):
    game = campaign
    s = at_morgans_roll(game)
    assert s.is_chance_node()
    s.apply_action(0)  # the range on the track for turn 8
    assert s.vars["morgan_arrived_on"] == 8
    labels = game.rules.board.labels
    entering = primitives.get("enter_reinforcements")
    morgans = {
        game.unit_by_name[n] for n in ("morgan", "morgans_riflemen", "morgans_light_infantry")
    }
    while s.stack[-1].prim and s.stack[-1].proc == "enter_reinforcements":
        u = entering.due(s, s.stack[-1])[0]
        hexes = [a for a in s.legal_actions() if game.actions.kind_of(a) == "hex"]
        if u in morgans:
            assert {labels[a - game.actions.hex0] for a in hexes} == {"2828"}
            s.apply_action(hexes[0])
        else:
            s.apply_action(game.actions.PASS)  # the others' turn is long past: held back
    for name in ("morgan", "morgans_riflemen", "morgans_light_infantry"):
        u = game.unit_by_name[name]
        assert s.unit_status[u] == 0 and labels[s.unit_hex[u]] == "2828", name
        assert s.vars["arrived_on"][u] == 8


def test_morgan_stays_away_on_a_high_roll(campaign):
    game = campaign
    s = at_morgans_roll(game)
    s.apply_action(9)
    assert s.vars["morgan_arrived_on"] == 0
    assert s.unit_status[game.unit_by_name["morgan"]] != 0


# ---------------------------------------------------------------- 4.14 momentum and reinforcements


def at_variable_roll(game, side: str, turn: int, chits: int):
    """The side's Movement Phase on its variable reinforcements' turn (4.131: the
    Americans' 12, 4.132: the British 9), holding `chits` Momentum Chits: the
    Variable Reinforcement Entry Table roll is next."""
    held = {BRITISH: 0, AMERICAN: 0} | {side: chits}
    return position(
        game,
        {"turn": turn, "phasing": side, "momentum": held, "momentum_pool": 5 - chits},
        {},
        movement(side, "variable_reinforcements"),
    )


SPEND = "Spend a Momentum Chit for +2 on the Variable Reinforcement roll?"


@pytest.mark.parametrize(("side", "turn"), [(BRITISH, 9), (AMERICAN, 12)])
def test_a_momentum_chit_adds_two_to_the_variable_reinforcement_roll(campaign, side, turn):
    """4.14: "Each player may spend 1 Momentum chit per turn to add +2 DRM to his
    Variable Reinforcement die roll ... The British may do so on turn 9. The
    Americans may do so on turn 12." A roll of 2 fails the (provisional) table's
    4 or more; with the chit spent it is 4 and the reinforcements may enter."""
    game = campaign
    p = game.rules.side_index(side)
    for spend, passes in ((True, True), (False, False)):
        s = at_variable_roll(game, side, turn, chits=1)
        assert not s.is_chance_node() and s.current_player() == p
        answers = {s.action_to_string(a).rsplit("? ", 1)[1]: a for a in s.legal_actions()}
        assert s.action_to_string(answers["yes"]).startswith(SPEND)
        s.apply_action(answers["yes" if spend else "no"])
        assert s.vars["momentum"][p] == (0 if spend else 1)
        assert s.vars["momentum_pool"] == (5 if spend else 4)  # (spent chits go back, 12.62)
        assert s.is_chance_node()
        s.apply_action(2)
        rolled = [m for m in s.messages if m.startswith("Variable Reinforcement Entry Table")]
        assert ("+2 Momentum Chit spent" in rolled[-1]) is spend
        assert s.vars["variable_entry_passed"][p] is passes


def test_no_chit_no_question_and_the_roll_as_it_falls(campaign):
    """Without a chit, or playing without the Momentum Chits (an advanced rule,
    12.6), nothing is asked: the roll comes at once, with no DRM."""
    without = fresh_game("monmouth", {"scenario": "campaign", "rules": {"momentum_chits": False}})
    for game, chits in ((campaign, 0), (without, 1)):
        s = at_variable_roll(game, BRITISH, 9, chits)
        assert s.is_chance_node()
        s.apply_action(4)
        assert s.vars["variable_entry_passed"][game.rules.side_index(BRITISH)] is True
        assert "Momentum" not in s.messages[-1]


def test_morgans_roll_takes_no_momentum(campaign):
    """4.14 "Important Exception: Morgan's Detachment is not affected by this rule":
    his roll asks for no chit, and a chit spent on the variable roll adds nothing
    to it (a 0, which brings him on turn 8, would be a 2 with it)."""
    s = at_morgans_roll(
        campaign,
        momentum={BRITISH: 0, AMERICAN: 1},
        momentum_pool=4,
        variable_momentum_spent={BRITISH: False, AMERICAN: True},
    )
    assert s.is_chance_node()
    s.apply_action(0)
    assert s.vars["morgan_arrived_on"] == 8


# ---------------------------------------------------------------- 4.9 ZOC


def test_a_zoc_extends_out_of_but_not_into_a_village():
    """4.9: "In addition to Series Rule 8.1, ZOC extends out of (but not into)
    village hexes" (Monmouth Courthouse: 3418 3419 3518 3519 3520 3619)."""
    package = import_shipped("monmouth")
    game = package.load_game({"scenario": "campaign"})
    in_zoc = package.rules.define__in_enemy_zoc
    american = game.rules.side_index(AMERICAN)
    h = game.hex_by_label
    # (No other unit exerts a ZOC there: the Guards away, none does.)
    s = position(game, {}, {"foot_guards_1": "0101"}, movement(BRITISH))
    assert not any(in_zoc(s, h[x], american) for x in ("3416", "3417", "3418", "3419"))
    # A British unit in clear 3417, next to the village hex 3418.
    s = position(game, {}, {"foot_guards_1": "3417"}, movement(BRITISH))
    assert not in_zoc(s, h["3418"], american)  # not into the village
    assert in_zoc(s, h["3416"], american)  # into clear
    # The same unit in the village 3418: its ZOC extends out into clear 3417 ...
    s = position(game, {}, {"foot_guards_1": "3418"}, movement(BRITISH))
    assert in_zoc(s, h["3417"], american)
    # ... but not into the next village hex, 3419.
    assert not in_zoc(s, h["3419"], american)


# ---------------------------------------------------------------- V play balance


@pytest.mark.parametrize(
    ("rule", "favoured"), [("pro_british", BRITISH), ("pro_american", AMERICAN)]
)
def test_play_balance_decides_the_variable_reinforcements_without_a_roll(rule, favoured):
    """5.1 Pro-British: "The British player automatically receives his turn 9
    reinforcements. The American player does not receive his turn 12
    reinforcements." 5.2 Pro-American the other way round. No die is rolled on
    either side's turn; the favoured side's variable reinforcements may all
    enter (the British ones with no second roll, 4.132), the other side's none."""
    game = fresh_game("monmouth", {"scenario": "campaign", "rules": {rule: True}})
    entering = primitives.get("enter_reinforcements")
    for side, turn in ((BRITISH, 9), (AMERICAN, 12)):
        s = at_variable_roll(game, side, turn, chits=0)
        p = game.rules.side_index(side)
        assert not s.is_chance_node()
        assert not any(m.startswith("Variable Reinforcement Entry Table") for m in s.messages)
        assert s.vars["variable_entry_passed"][p] is (side == favoured)
        variable = {
            u
            for u, (_turn, _hexes, varies) in enumerate(game.entries)
            if varies and game.rules.units[u].side == p
        }
        assert variable
        due = set(entering.due(s, s.stack[-1]))
        assert (variable <= due) if side == favoured else not (variable & due), (rule, side)


@pytest.mark.parametrize(
    ("rule", "turn", "roll", "arrives"),
    [
        (None, 8, 0, True),  # the track's range on turn 8: 0
        ("pro_british", 8, 0, False),  # 5.1: +2 → 2
        (None, 9, 1, False),  # on turn 9: 0 only
        ("pro_american", 9, 1, True),  # 5.2: -1 → 0
    ],
)
def test_play_balance_drms_on_morgans_roll(rule, turn, roll, arrives):
    """5.1: "Apply +2 DRM to all Morgan's Detachment die rolls"; 5.2: "Apply –1 DRM"
    (low rolls bring him, 4.11; the ranges are the track's, provisional)."""
    params = {"scenario": "campaign"} | ({"rules": {rule: True}} if rule else {})
    game = fresh_game("monmouth", params)
    s = at_morgans_roll(game, turn)
    assert s.is_chance_node()
    s.apply_action(roll)
    assert (s.vars["morgan_arrived_on"] == turn) is arrives


# ---------------------------------------------------------------- 6.292, 4.2, 4.4


def test_the_hedgerow_holds_until_attacked():
    game = fresh_game("monmouth", {"scenario": "holding_action"})
    s = game.new_initial_state()
    white, wayne_group = game.unit_by_name["whites_light_horse"], game.unit_by_name["va_converged"]
    assert not restrictions.may_move(s, white) and restrictions.may_move(s, wayne_group)
    s.vars["hedgerow_attacked"] = True
    assert restrictions.may_move(s, white)


def test_heavy_guns_pay_for_every_hex(campaign):
    game = campaign
    s = position(game, {"turn": 8}, {"pattison_artillery": "1512"}, [], terminal=True)
    pattison = game.unit_by_name["pattison_artillery"]
    ridge, flat = game.hex_by_label["1511"], game.hex_by_label["1412"]
    assert not restrictions.may_enter(s, pattison, ridge)  # up the slope: more than its 2 MP
    assert restrictions.may_enter(s, pattison, flat)


def test_molly_pitcher_rallies_her_guns():
    game = fresh_game(
        "monmouth", {"scenario": "washingtons_stand", "rules": {"molly_pitcher": True}}
    )
    s = position(
        game,
        {"turn": 9, "phasing": AMERICAN},
        {"proctor_artillery": "1610"},
        [
            {"procedure": "game", "step": "winner"},
            {
                "procedure": "rally_phase",
                "step": "withdrawal_markers",
                "bindings": {"side": AMERICAN},
            },
        ],
        terminal=True,
    )
    proctor = game.unit_by_name["proctor_artillery"]
    disrupted, parade = "disrupted", "parade_order"  # the series' `order` values
    order = list(s.vars["order"])
    order[proctor] = disrupted
    s.vars["order"] = tuple(order)
    s.terminal = False
    interpreter.advance(s)
    assert not s.is_chance_node()
    s.apply_action(game.actions.option(YES))  # place Molly Pitcher: no die roll follows
    assert s.vars["molly"][proctor] is True and s.vars["molly_placed"] is True
    assert s.vars["order"][proctor] == parade


def test_the_holding_action_opens_with_british_close_combat_only():
    """6.291, 6.25: the Noon turn is the British Close Combat phase; then the Americans."""
    game = fresh_game("monmouth", {"scenario": "holding_action"})
    s = game.new_initial_state()
    british = game.side_by_name[BRITISH]
    while s.vars["turn"] == 7:
        assert s.vars["phasing"] == british
        assert {f.proc for f in s.stack} & {
            "movement_phase",
            "rally_phase",
            "rifle_fire_phase",
        } == set()
        s.apply_action(chance.sample(s, 1) if s.is_chance_node() else s.legal_actions()[0])
    phases = [m for m in s.messages if m.startswith("—")]
    assert phases[0] == "— Turn 7, British Army: Close Combat Phase —"
    assert phases[1] == "— Turn 8, Continental Army: Movement Phase —"


@pytest.mark.parametrize(
    ("scenario", "first", "last"),
    [("lees_advance", 4, 7), ("holding_action", 7, 10), ("washingtons_stand", 8, 13)],
)
def test_a_scenario_is_played_over_its_game_turns(scenario, first, last):
    """6.11: "Game Turns 4 through 7"; 6.21: "Game Turns 7 through 10"; 6.31: "Game
    Turns 8 through 13" — "unless either side achieves automatic victory". A
    position at the end of the last turn's last phase ends the game; the turn
    before, play goes on into the next game turn."""
    game = fresh_game("monmouth", {"scenario": scenario})
    assert game.first_turn == first and game.last_turn == last
    assert game.new_initial_state().vars["turn"] == first
    for turn, over in ((last - 1, False), (last, True)):
        s = position(
            game,
            {"turn": turn},
            {"washington": "2115"},  # (on the map: his capture would end the game, 6.28)
            [{"procedure": "game", "step": "turns"}],
        )
        for _ in range(5000):  # (a game turn of first choices and seeded dice)
            if s.is_terminal() or s.vars["turn"] != turn:
                break
            s.apply_action(chance.sample(s, 1) if s.is_chance_node() else s.legal_actions()[0])
        assert s.is_terminal() is over, (scenario, turn)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scenario", "seed"),
    [("lees_advance", 0), ("holding_action", 1), ("washingtons_stand", 0), ("campaign", 0)],
)
def test_random_games_play_to_the_end(scenario, seed):
    """A smoke test: random legal play (eager to fight) ends with a result."""
    game = fresh_game("monmouth", {"scenario": scenario})
    s = play_out(game.new_initial_state(), seed)
    assert s.is_terminal() and s.move_number <= game.max_game_length()
    assert s.vars["turn"] == game.last_turn + 1 or s.winner >= 0
