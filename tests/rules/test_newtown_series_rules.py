"""Newtown's exclusive rules where they meet the series rules, each on a
position written by hand on the Newtown battle, quoting both texts."""

from __future__ import annotations

import pytest

from compiler.build import import_shipped
from engine.queries import board_distance
from engine.save import from_json
from engine.state import ON_MAP
from tests.conftest import fresh_game


@pytest.fixture(scope="module")
def newtown():
    return fresh_game("newtown")


def position(game, units: dict, stack: list, **extra):
    rules = game.rules
    variables = extra.pop("vars", {})
    return from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": rules.name,
            "vars": {
                "turn": 3,
                "army_morale": {"american": 15, "indian": 15},
                **variables,
            },
            "units": {n: {"hex": h} for n, h in units.items()},
            "stack": [{"procedure": "game", "step": "winner"}, *stack],
            **extra,
        },
    )


def answer(s, text: str) -> None:
    by_text = {s.action_to_string(a): a for a in s.legal_actions()}
    assert text in by_text, f"{text!r} is not among {sorted(by_text)}"
    s.apply_action(by_text[text])


# ---------------------------------------------------------------- 4.2.4 with series 13.25

CARD = "Play Fathers, Sons and Brothers to ignore your result?"


def retreat_result_with_a_previously_retreated_unit(game):
    """Little Billy (0610) has attacked the 1st N.J. in 0710, where the 2nd N.H.
    retreated from an earlier combat (13.25); the result: the defender retreats
    (R); the American player holds Fathers, Sons and Brothers."""
    rules = game.rules
    assert game.hex_by_label["0710"] in rules.board.neighbors[game.hex_by_label["0610"]]
    return position(
        game,
        {"little_billy": "0610", "first_nj": "0710", "second_nh": "0710"},
        [
            {
                "procedure": "close_combat",
                "step": "previously_retreated",
                "bindings": {
                    "combat": 0,
                    "attacker": "indian",
                    "defender": "american",
                    "attacker_lead": "little_billy",
                    "defender_lead": "first_nj",
                    "result": ["no_effect", "retreat"],
                    "modified_roll": 5,
                },
            }
        ],
        vars={
            "phasing": "indian",
            "retreated": {u.name: u.name == "second_nh" for u in rules.units},
        },
        bags={"american_hand": ["fathers_sons_and_brothers"]},
        combats=[
            {
                "side": "indian",
                "attackers": ["little_billy"],
                "defenders": ["first_nj", "second_nh"],
                "attack_hexes": ["0610"],
                "defense_hexes": ["0710"],
            }
        ],
    )


def test_an_ignored_result_spares_the_previously_retreated_unit_its_check(newtown):
    """Newtown 4.2.4: "Fathers, Sons and Brothers: Note that an ignored result also
    prevents units stacked with the identified unit to be impacted as well ...
    since the step loss never occurred." § series 13.25: "If its side suffers any
    result in the Close Combat, the previously-retreated unit must make a morale
    check." The card ignores the R: the Americans suffer no result, so the
    2nd N.H. (retreated into 0710 earlier) makes no check and stays."""
    game = newtown
    s = retreat_result_with_a_previously_retreated_unit(game)
    answer(s, f"{CARD} yes")
    while not s.is_terminal():
        assert not s.is_chance_node(), "no morale check may be rolled"
        s.apply_action(s.legal_actions()[0])
    for name in ("first_nj", "second_nh"):
        assert s.unit_hex[game.unit_by_name[name]] == game.hex_by_label["0710"], name
    assert s.vars["army_morale"][game.side_by_name["american"]] == 15


def test_without_the_card_the_previously_retreated_unit_checks_morale(newtown):
    """Series 13.25, the same combat with the card kept: the 1st N.J. retreats
    (R), and the 2nd N.H., its side having suffered a result, makes its morale
    check (a die is rolled while it still stands in 0710)."""
    game = newtown
    s = retreat_result_with_a_previously_retreated_unit(game)
    answer(s, f"{CARD} no")
    while not s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    assert s.unit_hex[game.unit_by_name["first_nj"]] != game.hex_by_label["0710"]
    assert s.unit_hex[game.unit_by_name["second_nh"]] == game.hex_by_label["0710"]


# ---------------------------------------------------------------- 3.4


def test_no_examination_is_offered_with_no_indian_stack_to_examine(newtown):
    """Newtown 3.4: the American player "may not examine Indian player stacks;
    each time he does, –1 Army Morale" — with no Indian player unit on the map
    there is no stack to examine, so he is not asked (the question used to be
    put, and answering yes stopped the game with a rules error)."""
    game = newtown
    s = position(
        game,
        {"provisional_ny": "0310"},
        [{"procedure": "examine_indian_stacks", "step": "examine"}],
        vars={"phasing": "american"},
    )
    indian = game.side_by_name["indian"]
    rules = game.rules
    assert not any(
        rules.units[u].side == indian and s.unit_status[u] == ON_MAP
        for u in range(len(rules.units))
    )
    assert not any("Examine" in s.action_to_string(a) for a in s.legal_actions())


def test_an_examination_is_offered_while_an_indian_stack_is_unexamined(newtown):
    """Newtown 3.4: with one Indian player stack on the map the American player
    may examine it (–1 Army Morale), once; then nothing is left to examine."""
    game = newtown
    s = position(
        game,
        {"provisional_ny": "0310", "little_billy": "0610"},
        [{"procedure": "examine_indian_stacks", "step": "examine"}],
        vars={"phasing": "american"},
    )
    answer(s, "Examine an Indian stack (–1 Army Morale)? yes")
    assert s.vars["examined"][game.hex_by_label["0610"]] is True
    assert s.vars["army_morale"][game.side_by_name["american"]] == 14
    assert not any("Examine" in s.action_to_string(a) for a in s.legal_actions())


def _concealed(game, s) -> set[str]:
    """The units the American player may not see now (3.4: Indian stacks unexamined)."""
    return {game.rules.units[u].name for u in s.concealed_from(game.side_by_name["american"])}


@pytest.mark.parametrize(
    ("firer", "procedure", "phasing"),
    [
        ("parr", "rifle_fire_by", "american"),
        ("stephens_artillery", "defensive_artillery_fire_phase", "indian"),
    ],
)
def test_a_fire_target_hex_is_examined_free_and_fired_upon_at_once(
    newtown, firer, procedure, phasing
):
    """Series 7.4 with Newtown 3.4: "Once a target hex is identified for Artillery
    or Rifle fire, the American player is free to examine all units in that
    specific hex in order to pick the specific target. One unit in a reviewed
    hex must be fired upon in that very same Fire Phase before any other targets
    are identified." Parr's Riflemen (rifle fire) or Stephens' guns (defensive
    artillery fire in the Indian player turn) name 0611 among two Indian stacks:
    its units show (no Army Morale lost), the other stack stays hidden, and the
    choice is then one of 0611's units, with no passing."""
    game = newtown
    s = position(
        game,
        {firer: "0610", "little_billy": "0611", "jack_berry": "0611", "red_jacket": "0710"},
        [{"procedure": procedure, "step": "fire", "bindings": {"side": phasing}}],
        vars={"phasing": phasing},
    )
    assert _concealed(game, s) == {"little_billy", "jack_berry", "red_jacket"}
    assert sorted(s.action_to_string(a) for a in s.legal_actions()) == ["0611", "0710", "pass"]
    answer(s, "0611")
    assert s.vars["examined"][game.hex_by_label["0611"]] is True
    assert s.vars["army_morale"][game.side_by_name["american"]] == 15
    assert _concealed(game, s) == {"red_jacket"}
    assert sorted(s.action_to_string(a) for a in s.legal_actions()) == [
        "Jack Berry",
        "Little Billy",
    ]


def test_the_attacked_stacks_are_examined_free_once_attacks_are_designated(newtown):
    """Series 7.4 with Newtown 3.4: "It is also permitted to examine an enemy stack
    for purposes of calculating odds in Close Combat but only after friendly units
    have been moved adjacent and the Close Combat phase is in effect": the stack
    the Americans attack shows once the designation is done, free; the stack next
    to them they do not attack stays hidden."""
    game = newtown
    s = position(
        game,
        {
            "parr": "0610",
            "selin": "0610",
            "little_billy": "0611",
            "jack_berry": "0611",
            "red_jacket": "0710",
        },
        [
            {
                "procedure": "close_combat_phase",
                "step": "designate",
                "bindings": {"side": "american"},
            }
        ],
        vars={"phasing": "american"},
    )
    answer(s, "attack 0611 from 0610")
    assert _concealed(game, s) == {"little_billy", "jack_berry", "red_jacket"}  # (designating)
    answer(s, "pass")
    assert _concealed(game, s) == {"red_jacket"}
    assert s.vars["army_morale"][game.side_by_name["american"]] == 15


# ---------------------------------------------------------------- 6.1.2, 3.3


def test_the_platoon_never_counts_against_stacking(newtown):
    """6.1.2: "The 8th Foot (Platoon) never counts against stacking." Six strength
    points of Indians fill a hex (series 7.1); the platoon (1 SP) stacks with them
    and the hex is not overstacked (7.3), where with Jack Berry (1 SP too) it is."""
    game = newtown
    rules = import_shipped("newtown").rules
    full = ("little_billy", "red_jacket", "half_moon")  # 2 + 2 + 2
    indian = game.side_by_name["indian"]
    hexes = game.hex_by_label
    for extra, overstacked in (("eighth_foot", False), ("jack_berry", True)):
        s = position(
            game,
            {**dict.fromkeys(full, "0611"), extra: "0611"},
            [{"procedure": "movement_phase", "step": "move", "bindings": {"side": "indian"}}],
            vars={"phasing": "indian"},
        )
        units = tuple(game.unit_by_name[n] for n in (*full, extra))
        assert rules.define__stack_ok(s, units) is not overstacked, extra
        assert (hexes["0611"] in rules.define__overstacked_hexes(s, indian)) is overstacked


def test_only_mclanes_horse_ends_its_move_with_the_cattle_herd(newtown):
    """3.3, 6.5.1: the herd "may freely pass through friendly units ... but
    McLane's Delaware Horse is the only American combat unit that can end the
    movement phase stacked with the cattle herd." The 1st N.J. may pass through the
    herd's hex but not stop there: once in, it must move on (no other unit moves,
    no passing); McLane's horse may stop with the herd."""
    game = newtown
    s = position(
        game,
        {"cattle_herd": "0611", "first_nj": "0610", "mclane": "0612"},
        [{"procedure": "movement_phase", "step": "move", "bindings": {"side": "american"}}],
        vars={"phasing": "american"},
    )
    through = s.clone()
    answer(through, "move 1st N.J. 0610 → 0611")
    offered = [through.action_to_string(a) for a in through.legal_actions()]
    assert offered and all(a.startswith("move 1st N.J. 0611 → ") for a in offered)
    assert through.current_node().prompt == "the unit must move on"
    stays = s.clone()
    answer(stays, "move McLane's DE Horse 0612 → 0611")
    assert "pass" in [stays.action_to_string(a) for a in stays.legal_actions()]


# ---------------------------------------------------------------- 3.5


@pytest.mark.parametrize(
    ("unit", "turn_1", "turn_2"),
    [
        ("cattle_herd", False, False),  # 3.5.1: never
        ("parr", False, True),  # 3.5.2: on the map at the start
        ("seven_nations_warriors", False, True),  # 3.5.3
        ("mohawk_valley_militia", True, True),  # (an Indian player unit: no exception)
    ],
)
def test_who_may_use_strategic_movement_on_turn_1(newtown, unit, turn_1, turn_2):
    """3.5.1: "The Cattle Herd cannot use Strategic Movement." 3.5.2: "American
    units deployed on the map at the beginning of the game cannot use Strategic
    Movement on Game Turn 1." 3.5.3: nor the optional Seven Nations unit. Each
    stands alone, far from the enemy (series 9.52 asks that too)."""
    game = newtown
    may = import_shipped("newtown").rules.define__may_move_strategically
    for turn, expected in ((1, turn_1), (2, turn_2)):
        s = position(
            game,
            {unit: "0610"},
            [{"procedure": "game_turn", "step": "initiative"}],
            vars={"turn": turn},
        )
        assert may(s, game.unit_by_name[unit]) is expected, turn


# ---------------------------------------------------------------- 3.2


@pytest.mark.parametrize(
    ("unit", "goal"),
    [
        ("parr", ("6020",)),  # 3.2.2: the American player toward 6020
        ("walter_butler", ("1720", "1721", "1820", "1821", "1408")),  # 3.2.1: Newtown, 1408
        ("little_billy", ("1720", "1721", "1820", "1821", "1408")),  # (a warrior evades, 5.9)
    ],
)
def test_a_retreat_heads_for_its_sides_goal(newtown, unit, goal):
    """3.2.1: "The Indian player retreats toward Newtown or hex 1408 if possible."
    3.2.2: "The American player retreats toward hex 6020 if possible." Retreating
    one hex from 4008 with no enemy about, the hexes offered are exactly the
    neighbours nearer the goal — not those nearer the side's map edge, which
    differ there."""
    game = newtown
    s = position(
        game,
        {unit: "4008"},
        [{"procedure": "retreat_unit", "step": "start", "bindings": {"unit": unit, "hexes": 1}}],
    )
    hexes, labels = game.hex_by_label, game.rules.board.labels

    def to_goal(h: int) -> int:
        return min(board_distance(s, h, hexes[g]) for g in goal)

    start = hexes["4008"]
    board = game.rules.board
    edge = board.edge_distance[
        game.rules.sides[game.rules.units[game.unit_by_name[unit]].side].friendly_edge
    ]
    by_edge = {labels[n] for n in board.neighbors[start] if n >= 0 and edge[n] < edge[start]}
    nearer = {
        labels[n]
        for n in game.rules.board.neighbors[start]
        if n >= 0 and to_goal(n) < to_goal(start)
    }
    offered = {s.action_to_string(a) for a in s.legal_actions()}
    assert offered == nearer and offered and nearer != by_edge
