"""Who must attack, who may stay out, and what a PIN obliges the next phasing
player to do (series 12.12, 12.13, 12.15, 13.1 PIN cases A and B, 9.2), each
on a position written by hand on the litmus battle, quoting the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import load_game
from engine import explain
from engine.restrictions import may_enter, may_move
from engine.save import SaveError, from_json

LITMUS = Path(__file__).parent.parent / "data" / "litmus" / "base.mst"

# Every unit placed, the ones a test does not name far from the action.
AWAY = {
    "nj_1": "0209",
    "nj_2": "0210",
    "scott_rifles": "0309",
    "us_guns": "0310",
    "lee": "0209",
    "guards": "2408",
    "grenadiers": "2409",
    "dragoons": "2410",
    "gb_guns": "2308",
    "rear_guard_foot": "2309",
    "clinton": "2408",
}


@pytest.fixture(scope="module")
def game(litmus):
    return litmus


def position(
    game, units: dict, stack: list, pinned: dict[str, int] | None = None, case_b: tuple = ()
):
    """The units placed, `pinned` with their PIN result's number, `case_b` the units
    already moving away from theirs (13.1 case B chosen)."""
    pinned = pinned or {}
    placed = {**AWAY, **units}
    return from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": game.rules.name,
            "vars": {
                "turn": 4,
                "phasing": "american",
                "army_morale": {"american": 15, "british": 15},
                "pinned": {u.name: u.name in pinned for u in game.rules.units},
                "pin_group": {u.name: pinned.get(u.name, 0) for u in game.rules.units},
                "pin_results": max(pinned.values(), default=0),
                "pin_case_b": {u.name: u.name in case_b for u in game.rules.units},
                "pin_case_chosen": {u.name: u.name in case_b for u in game.rules.units},
            },
            "units": {n: {"hex": h} for n, h in placed.items()},
            "stack": [{"procedure": "game", "step": "winner"}, *stack],
        },
    )


DESIGNATE = [
    {"procedure": "close_combat_phase", "step": "designate", "bindings": {"side": "american"}}
]
PIN_CASES = [{"procedure": "movement_phase", "step": "pin_cases", "bindings": {"side": "american"}}]


def offered(s) -> set[str]:
    return {s.action_to_string(a) for a in s.legal_actions()}


def answer(s, text: str) -> None:
    by_text = {s.action_to_string(a): a for a in s.legal_actions()}
    assert text in by_text, f"{text!r} is not among {sorted(by_text)}"
    s.apply_action(by_text[text])


def designating(s) -> bool:
    return any(f.proc == "designate_combats" for f in s.stack)


# ---------------------------------------------------------------- 12.12, 12.13


def test_a_rifle_unit_alone_next_to_the_enemy_need_not_attack(game):
    """§ series 12.12: "Close Combat is mandatory for all friendly combat units
    (except artillery units) which are adjacent to enemy units ... Exception:
    Rifle units are never required to attack." Scott's Rifles in 1003 next to the
    Guards in 1103 may pass — or attack, if the player wishes."""
    s = position(game, {"scott_rifles": "1003", "guards": "1103"}, DESIGNATE)
    assert "pass" in offered(s)
    assert "attack 1103 from 1003" in offered(s)


def test_a_rifle_unit_stacked_with_attackers_may_stay_out_of_their_combat(game):
    """§ series 12.12 (rifles "are never required to attack") with 12.15
    ("Attacking units stacked in a single hex may combine in a single attack or
    attack different units"): the 2nd N.J. and Scott's Rifles stacked in 1003
    next to the Guards; the N.J. must attack, the rifles may be left out."""
    s = position(game, {"nj_2": "1003", "scott_rifles": "1003", "guards": "1103"}, DESIGNATE)
    assert "pass" not in offered(s)  # the N.J. must attack
    answer(s, "attack 1103 from 1003")
    answer(s, "hold back Scott's Rifles from attack 1")
    (combat,) = s.combats
    assert combat.attackers == (game.unit_by_name["nj_2"],)
    assert not designating(s)


def test_a_stack_attacking_one_neighbour_must_hold_a_unit_back_for_the_other(game):
    """§ series 12.13 ("All enemy units which are adjacent to friendly units must
    be attacked") with 12.15: the two N.J. regiments stacked in 1003 between the
    Guards in 1103 and the Grenadiers in 1002, both committed against the Guards:
    the pass is refused until one of them is held back and attacks the
    Grenadiers (issue 27, item 3: the pass was offered and 1002 went unattacked)."""
    s = position(
        game, {"nj_1": "1003", "nj_2": "1003", "guards": "1103", "grenadiers": "1002"}, DESIGNATE
    )
    answer(s, "attack 1103 from 1003")
    assert "pass" not in offered(s)
    answer(s, "hold back 2nd N.J. from attack 1")
    assert "pass" not in offered(s)
    answer(s, "attack 1002 from 1003")
    assert not designating(s)
    attacked = {u for c in s.combats for u in c.defenders}
    assert attacked == {game.unit_by_name["guards"], game.unit_by_name["grenadiers"]}


# ---------------------------------------------------------------- 13.1 PIN case A


def test_pinned_rifles_must_attack_and_the_pinned_enemy_must_be_attacked(game):
    """§ series 13.1 PIN: "The next phasing player must either: A. Attack with all
    units marked as pinned, and attack all defending units marked as pinned during
    this player turn". Scott's Rifles, pinned in 1003 with the Guards in 1103,
    did not move away (case B): rifles or not (12.12), they attack the Guards."""
    s = position(
        game,
        {"scott_rifles": "1003", "guards": "1103"},
        DESIGNATE,
        pinned={"scott_rifles": 1, "guards": 2},
    )
    assert "pass" not in offered(s)
    answer(s, "attack 1103 from 1003")
    assert not designating(s)


def test_a_pinned_defender_next_only_to_rifles_must_be_attacked(game):
    """§ series 13.1 PIN case A, 12.13: "attack all defending units marked as pinned" —
    the Guards in 1103 are pinned; the only American unit next to them, Scott's
    Rifles in 1003, came up since (13.1: "additional units may stack and/or
    attack with the pinned units") and is not pinned: still the Guards must be
    attacked, so the rifles attack."""
    s = position(game, {"scott_rifles": "1003", "guards": "1103"}, DESIGNATE, pinned={"guards": 2})
    assert "pass" not in offered(s)


# ---------------------------------------------------------------- 13.1 PIN case B, 9.2

# nj_1 in 1003 and the Guards in 1103 share a PIN result; the 2nd N.J. in
# 0903 is free, two hexes from the Guards; 1002 is next to the Guards (and to
# nj_1's hex), 0902 is not next to any British unit.
PINNED = {"nj_1": "1003", "guards": "1103", "nj_2": "0903"}


def test_case_b_keeps_other_units_away_from_the_enemy_pinned_units(game):
    """§ series 13.1 PIN, 9.2: "B. Move all friendly pinned units so that they are not
    adjacent to any enemy units; and do not move any other friendly units
    adjacent to the enemy pinned units" (9.2: "Pinned units may move only if they
    do not end the movement phase adjacent to any enemy units and the phasing
    player reduces his Army Morale"). The American player takes case B: the
    1st N.J. may move, the 2nd N.J. may not enter 1002, next to the pinned
    Guards, though it may go where no pinned enemy is near."""
    board = game.rules.board
    h = game.hex_by_label
    assert h["1103"] in board.neighbors[h["1002"]]
    assert h["1103"] not in board.neighbors[h["0902"]]
    s = position(game, PINNED, PIN_CASES, pinned={"nj_1": 1, "guards": 2})
    answer(s, next(t for t in offered(s) if t.endswith("yes")))  # case B
    nj_1, nj_2 = game.unit_by_name["nj_1"], game.unit_by_name["nj_2"]
    assert may_move(s, nj_1)
    assert not may_enter(s, nj_2, h["1002"])
    assert may_enter(s, nj_2, h["0902"])


def test_case_a_holds_the_pinned_units_and_lets_others_join_them(game):
    """§ series 13.1 PIN case A: "Attack with all units marked as pinned ...
    (additional units may stack and/or attack with the pinned units)"; 9.2: a
    pinned unit moves only to end away from the enemy, which is case B. The
    American player keeps the PIN (case A): the 1st N.J. stays; the 2nd N.J. may
    come up next to the Guards."""
    h = game.hex_by_label
    s = position(game, PINNED, PIN_CASES, pinned={"nj_1": 1, "guards": 2})
    answer(s, next(t for t in offered(s) if t.endswith("no")))  # case A
    nj_1, nj_2 = game.unit_by_name["nj_1"], game.unit_by_name["nj_2"]
    assert not may_move(s, nj_1)
    assert may_enter(s, nj_2, h["1002"])


def test_a_pin_result_no_longer_next_to_the_enemy_is_not_asked_about(game):
    """§ series 13.1 PIN: case A ("attack with all units marked as pinned") needs
    an enemy to attack; the Guards have gone, so the 1st N.J.'s PIN result can
    only be case B: no question, and the unit may move."""
    s = position(game, {"nj_1": "1003"}, PIN_CASES, pinned={"nj_1": 1})
    assert not any(t.endswith("yes") for t in offered(s))
    assert may_move(s, game.unit_by_name["nj_1"])


def moves(s, printed: str) -> set[str]:
    """The hexes the unit of this printed name may step into now, by label."""
    return {t.rsplit(" ", 1)[1] for t in offered(s) if t.startswith(f"move {printed} ")}


def test_case_b_moves_every_pinned_unit_away_before_the_phase_ends(game):
    """§ series 13.1 PIN: "B. Move all friendly pinned units so that they are not
    adjacent to any enemy units ... and reduce his or her Army Morale by one
    (9.3)"; § series 9.2: "Pinned units may move only if they do not end the movement
    phase adjacent to any enemy units". The American player takes case B for the
    1st N.J. (1003, pinned with the Guards in 1103): he may not end his movement
    while it is still next to the Guards; it may not step into 1002, next to the
    Guards, where entering their ZOC would stop it (8.3); once it is in 1004 he
    may pass, and the pin's removal costs him one Army Morale point."""
    h = game.hex_by_label
    assert h["1103"] in game.rules.board.neighbors[h["1002"]]
    s = position(game, PINNED, PIN_CASES, pinned={"nj_1": 1, "guards": 2})
    answer(s, next(t for t in offered(s) if t.endswith("yes")))  # case B
    assert "pass" not in offered(s)
    assert moves(s, "1st N.J.") == {"1004", "0904"}  # 1002 stops it next to the Guards
    answer(s, "move 1st N.J. 1003 → 1004")
    assert "pass" in offered(s)
    answer(s, "pass")
    assert s.vars["army_morale"][game.side_by_name["american"]] == 14
    assert not s.vars["pinned"][game.unit_by_name["nj_1"]]


def test_case_b_lets_the_other_units_move_first(game):
    """§ series 13.1 PIN case B: the pinned units must all move away, but 9.1 lets the
    player move his units in any order: the 2nd N.J. moves first, and passing
    is refused only until the 1st N.J. has gone."""
    s = position(game, PINNED, PIN_CASES, pinned={"nj_1": 1, "guards": 2})
    answer(s, next(t for t in offered(s) if t.endswith("yes")))  # case B
    answer(s, "move 2nd N.J. 0903 → 0802")
    assert "pass" not in offered(s)
    answer(s, "move 1st N.J. 1003 → 0904")
    assert "pass" in offered(s)


# The 1st N.J. in 1003, pinned with the Guards in 1103: the Grenadiers in 1005
# and the Dragoons in 0803 are next to every hex it could step into (1002,
# 1104, 1004, 0904, 0903), so it cannot get away.
CORNERED = {"nj_1": "1003", "guards": "1103", "grenadiers": "1005", "dragoons": "0803"}


def test_case_b_is_not_offered_when_a_pinned_unit_cannot_get_away(game):
    """§ series 13.1 PIN: "The next phasing player must either: A. Attack with all
    units marked as pinned ... OR: B. Move all friendly pinned units so that they
    are not adjacent to any enemy units". The 1st N.J. has no hex to go to that
    is not next to a British unit: case B cannot be done, so it is not offered,
    and the unit stays and attacks (case A)."""
    board, h = game.rules.board, game.hex_by_label
    british = [h[CORNERED[n]] for n in ("guards", "grenadiers", "dragoons")]
    for n in board.neighbors[h["1003"]]:
        assert n < 0 or any(b == n or b in board.neighbors[n] for b in british)
    s = position(game, CORNERED, PIN_CASES, pinned={"nj_1": 1, "guards": 2})
    assert not any(t.endswith("yes") for t in offered(s))
    assert not may_move(s, game.unit_by_name["nj_1"])


def test_case_b_is_offered_when_the_pinned_unit_has_a_way_out(game):
    """The control of the test above (§ series 13.1 PIN case B): without the
    Dragoons, 0903 and 0904 are free of British units around them, and the
    player may choose case B."""
    cornered = {**CORNERED, "dragoons": AWAY["dragoons"]}
    s = position(game, cornered, PIN_CASES, pinned={"nj_1": 1, "guards": 2})
    assert any(t.endswith("yes") for t in offered(s))


def test_a_restriction_asking_the_restrictions_is_a_rules_error(tmp_path):
    """`may_move` and `may_enter` ask the declared restrictions; a restriction whose
        own condition asks them would ask itself for ever: it stops with a RulesError
        naming the query, not a RecursionError (here as the position, asked whether
    case B may be chosen, is loaded)."""
    extra = tmp_path / "loop.mst"
    extra.write_text(
        f'import "{LITMUS}"\n\n'
        'restriction asks_itself "Moves only if it may move" § series 9.2 {\n'
        "    no_move\n"
        "    when not may_move(unit)\n"
        "}\n",
        encoding="utf-8",
    )
    looped = load_game(extra)
    with pytest.raises(SaveError, match="RulesError: may_move: a movement restriction's condi"):
        position(looped, PINNED, PIN_CASES, pinned={"nj_1": 1, "guards": 2})


def test_the_refused_pass_and_the_refused_step_are_explained(game):
    """§ series 13.1, 9.2: under case B the table says why the player may not pass
    yet (the move step's `must_move`, cited) and why the 1st N.J. may not step
    into 1002 (it would stop next to the Guards, `pinned_units`)."""
    s = position(game, PINNED, PIN_CASES, pinned={"nj_1": 1, "guards": 2})
    answer(s, next(t for t in offered(s) if t.endswith("yes")))  # case B
    refused = explain.why_not(s, game.actions.PASS)
    assert refused is not None and "must move" in refused.text and "13.1" in refused.cite
    nj_1, h = game.unit_by_name["nj_1"], game.hex_by_label
    step = explain.why_not_move(s, nj_1, h["1002"])
    assert step is not None and "may not end its move in 1002" in step.text
    assert "9.2" in step.cite


def test_a_pinned_unit_may_pass_next_to_the_enemy_on_its_way_out(game):
    """§ series 9.2: "Pinned units may move only if they do not end the movement
    phase adjacent to any enemy units"; § series 8.1: a ZOC does not extend into an
    orchard. The 1st N.J. in 1004, pinned with the Dragoons in 1105 and moving
    away (case B): every hex next to it is in a British ZOC or full (the 2nd N.J.
    and Scott's Rifles in 0904) but the orchard of 1003, next to the Guards in
    1103 and outside their ZOC. It may not end its move there, but may go on to
    0903, clear of the enemy: 1003 is offered, and once in it the unit must
    move on, to 0903 only (1002 is in the Guards' ZOC)."""
    units = {
        "nj_1": "1004",
        "dragoons": "1105",
        "guards": "1103",
        "grenadiers": "0906",
        "nj_2": "0904",
        "scott_rifles": "0904",
    }
    move = [{"procedure": "movement_phase", "step": "move", "bindings": {"side": "american"}}]
    pinned = {"nj_1": 1, "dragoons": 2}
    s = position(game, units, move, pinned=pinned, case_b=("nj_1",))
    assert moves(s, "1st N.J.") == {"1003"}
    answer(s, "move 1st N.J. 1004 → 1003")
    assert offered(s) == {"move 1st N.J. 1003 → 0903"}
