"""Series rules played on hand-made positions, each asserting what its section says.

`docs/fidelity.md` holds a row per numbered section; a row's basis is *test*
when a test shows the rule playing as written. These are such tests for the
series sections the other files leave unplayed: each puts units of the
litmus battle (`tests/data/litmus/base.mst`, a small battle on the series
rules) where the rule decides what happens, plays the engine, and checks the
outcome the quoted sentence gives. Units a position does not name are not on
the map. Where a rule needs more rifle or artillery units than the litmus
battle has (two on one side, rifles on both), the position is on Monmouth's
open ground instead, the series rules unchanged there.
"""

from __future__ import annotations

import pytest

from engine.game import Game
from engine.los import distance
from engine.save import from_json, to_json
from engine.state import ON_MAP, STATUS_NAMES, State
from engine.tables import modifiers_of

AMERICAN, BRITISH = "american", "british"


def position(game: Game, units: dict, stack: list, phasing: str = AMERICAN, **variables) -> State:
    """The litmus battle on turn 3 with these units (a hex, or a unit's fields) and
    this stack of procedures under the game's own frame; `combats` and other
    top-level fields of a save go in `extra`."""
    extra = variables.pop("extra", {})
    return from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": game.rules.name,
            "vars": {"turn": 3, "phasing": phasing, **variables},
            "units": {n: {"hex": h} if isinstance(h, str) else h for n, h in units.items()},
            "stack": [{"procedure": "game", "step": "winner"}, *stack],
            **extra,
        },
    )


def orders(game: Game, **changed: str) -> dict[str, str]:
    """Every unit in Parade Order but those named (disrupted, shattered)."""
    return {u.name: changed.get(u.name, "parade_order") for u in game.rules.units}


def movement(game: Game, units: dict, side: str = AMERICAN, **variables) -> State:
    """The side's movement phase at its move step: units may be moved."""
    phase = {"procedure": "movement_phase", "step": "move", "bindings": {"side": side}}
    return position(game, units, [phase], phasing=side, **variables)


def rifle_fire(side: str = AMERICAN) -> dict:
    """The side's rifle fire phase at its phasing fire step (a fresh frame each time)."""
    return {"procedure": "rifle_fire_phase", "step": "phasing_fire", "bindings": {"side": side}}


def step_action(game: Game, s: State, unit: str, to: str) -> int:
    """The action that steps `unit` into the neighbouring hex `to`."""
    u = game.unit_by_name[unit]
    d = game.rules.board.neighbors[s.unit_hex[u]].index(game.hex_by_label[to])
    return game.actions.step(u, d)


def may_step(game: Game, s: State, unit: str, to: str) -> bool:
    return step_action(game, s, unit, to) in s.legal_actions()


def move(game: Game, s: State, unit: str, to: str) -> dict:
    """Step `unit` into `to`; the move's frame after it (MPs spent, stopped)."""
    s.apply_action(step_action(game, s, unit, to))
    return s.stack[-1].b


def hex_of(game: Game, s: State, unit: str) -> str:
    return game.rules.board.labels[s.unit_hex[game.unit_by_name[unit]]]


def on_map(game: Game, s: State, unit: str) -> bool:
    return s.unit_status[game.unit_by_name[unit]] == ON_MAP


def status(game: Game, s: State, unit: str) -> str:
    """Where the unit is: "map", "captured", "eliminated", ..."""
    return STATUS_NAMES[s.unit_status[game.unit_by_name[unit]]]


def options(s: State) -> list[str]:
    return [s.action_to_string(a) for a in s.legal_actions()]


def answer(s: State, text: str) -> None:
    """Take the legal action that reads `text`."""
    by_text = {s.action_to_string(a): a for a in s.legal_actions()}
    assert text in by_text, f"{text!r} is not among {sorted(by_text)}"
    s.apply_action(by_text[text])


def retreating(game: Game, units: dict, unit: str, phasing: str, hexes: int, **variables) -> State:
    """`unit` about to retreat `hexes` hexes (the series' retreat, 13.2)."""
    frame = {
        "procedure": "retreat_unit",
        "step": "start",
        "bindings": {"unit": unit, "hexes": hexes},
    }
    return position(game, units, [frame], phasing=phasing, **variables)


def finish(s: State, prefer: str = "") -> None:
    """Play on to the game's end (a position's stack ends the game when it runs
    out): the choice reading `prefer` where it is offered, else the first, and
    the first face of every die."""
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(s.chance_outcomes()[0][0])
            continue
        by_text = {s.action_to_string(a): a for a in s.legal_actions()}
        s.apply_action(by_text.get(prefer, s.legal_actions()[0]))


# ---------------------------------------------------------------- 7 Stacking


def test_six_sps_and_one_artillery_unit_stack_and_leaders_do_not_count(litmus):
    """§ series 7.1: "Each hex may contain up to six friendly SPs of infantry,
    light infantry, militia or mounted cavalry, and one friendly artillery unit
    (regardless of its SPs). Leaders and markers do not count for stacking
    purposes." The 1st N.J. (4 SPs) may join Scott's Rifles (2), not the 2nd
    N.J. (4); the guns (2 SPs) and Lee may join a hex holding six SPs."""
    game = litmus
    s = movement(game, {"nj_1": "0304", "scott_rifles": "0305", "nj_2": "0204"})
    assert may_step(game, s, "nj_1", "0305")  # 4 + 2 = 6
    assert not may_step(game, s, "nj_1", "0204")  # 4 + 4 = 8
    full = {"nj_1": "0305", "scott_rifles": "0305", "us_guns": "0304", "lee": "0306"}
    s = movement(game, full)
    assert may_step(game, s, "us_guns", "0305")  # artillery: one unit, whatever its SPs
    assert may_step(game, s, "lee", "0305")  # a leader does not count


def test_no_unit_moves_or_retreats_through_a_hex_over_the_limit(litmus):
    """§ series 7.2: "Stacking limits apply at all times, including during
    movement and retreat — a unit may never move or retreat through a hex in
    excess of stacking limits." The Grenadiers (4 SPs) may not step into the
    hex where the Guards (5) stand, not even on their way through it;
    retreating, with that hex their only way out, they are captured (13.23)."""
    game = litmus
    s = movement(game, {"grenadiers": "1405", "guards": "1505"}, side=BRITISH)
    assert not may_step(game, s, "grenadiers", "1505")
    # The Grenadiers in 1405 must retreat one hex. Every hex next to them but
    # 1505 is in the ZOC of the 1st and 2nd N.J. (13.22) or holds them.
    units = {"grenadiers": "1405", "guards": "1505", "nj_1": "1304", "nj_2": "1406"}
    s = retreating(game, units, "grenadiers", BRITISH, hexes=1)
    finish(s)
    assert status(game, s, "grenadiers") == "captured"
    s = retreating(game, {**units, "guards": "2408"}, "grenadiers", BRITISH, hexes=1)
    finish(s)
    assert hex_of(game, s, "grenadiers") == "1505"  # the control: room there, it retreats


# ---------------------------------------------------------------- 8 ZOCs


def test_a_disrupted_or_shattered_unit_has_no_zoc(litmus):
    """§ series 8.1: "All Parade Order combat units exert a ZOC into all six
    adjacent hexes. A unit loses its ZOC while it is disrupted or shattered."
    The 1st N.J. steps next to the Guards: in Parade Order they stop it (8.31);
    disrupted or shattered they do not. "Note that ZOCs do extend across Ford and
    non-Ford Creek hexsides": the Guards across the creek (1106, 1104 across
    the ford) stop it too."""
    game = litmus
    units = {"nj_1": "0804", "guards": "1004"}
    for order, stops in (("parade_order", True), ("disrupted", False), ("shattered", False)):
        s = movement(game, units, order=orders(game, guards=order))
        assert move(game, s, "nj_1", "0904")["stop"] is stops, order
    for start, to, across in (("0906", "1006", "1106"), ("0904", "1004", "1104")):
        s = movement(game, {"nj_1": start, "guards": across})
        assert move(game, s, "nj_1", to)["stop"], across


def test_entering_an_enemy_zoc_ends_the_move_and_a_rifle_zoc_costs_one_more(litmus):
    """§ series 8.31: "A unit that enters a hex in an enemy ZOC must stop and end
    all movement for the turn. In addition, it costs +1 MP to enter or exit an
    enemy rifle unit's ZOC." The Guards (4 MP) step into clear hexes (1 MP)."""
    game = litmus
    # Into the ZOC of the 1st N.J. (no rifle unit): 1 MP, and the move ends.
    s = movement(game, {"guards": "1305", "nj_1": "1105"}, side=BRITISH)
    frame = move(game, s, "guards", "1205")
    assert (frame["spent"], frame["stop"]) == (1, True)
    assert options(s) == ["pass"]  # nothing more for the Guards
    # Into the ZOC of Scott's Rifles: 2 MP.
    s = movement(game, {"guards": "1305", "scott_rifles": "1105"}, side=BRITISH)
    frame = move(game, s, "guards", "1205")
    assert (frame["spent"], frame["stop"]) == (2, True)
    # Out of it: 2 MP too.
    s = movement(game, {"guards": "1205", "scott_rifles": "1105"}, side=BRITISH)
    frame = move(game, s, "guards", "1305")
    assert (frame["spent"], frame["stop"]) == (2, False)


def test_a_unit_starting_in_a_zoc_may_step_into_another_but_stops_there(litmus):
    """§ series 8.32: "A unit which begins movement in an enemy ZOC may move
    directly into another enemy ZOC but must stop in that hex. If the first hex
    entered does not contain an enemy ZOC, the unit may continue moving until it
    again enters an enemy ZOC." The Guards begin in 1205, next to the 1st N.J. in
    1105."""
    game = litmus
    units = {"guards": "1205", "nj_1": "1105"}
    s = movement(game, units, side=BRITISH)
    assert move(game, s, "guards", "1204")["stop"]  # 1204 is next to 1105 too
    assert options(s) == ["pass"]
    s = movement(game, units, side=BRITISH)
    assert not move(game, s, "guards", "1305")["stop"]  # out of every ZOC: on it goes
    assert may_step(game, s, "guards", "1405")
    # Back into the ZOC: it stops again.
    assert move(game, s, "guards", "1205")["stop"]


# ---------------------------------------------------------------- 9 Movement


def test_a_road_hexside_costs_one_mp_whatever_else_is_there(litmus):
    """§ series 9.51: "If a unit moves from one hex to another through a hexside
    crossed by a road, track or path, it spends 1 MP. It ignores the cost of the
    other terrain in the hex and of any other hexside terrain." The creek runs
    between columns 10 and 11; the road crosses it from 1005 to 1105."""
    game = litmus
    s = movement(game, {"nj_1": "1006"})
    assert move(game, s, "nj_1", "1106")["spent"] == 2  # clear 1, creek +1
    s = movement(game, {"nj_1": "1005"})
    assert move(game, s, "nj_1", "1105")["spent"] == 1  # the road: 1 MP


def test_reinforcements_enter_at_the_start_of_the_phase_and_move_their_whole_allowance(litmus):
    """§ series 9.61: "At the beginning of their side's Movement Phase on the game
    turn of arrival, reinforcements are placed in hexes marked with the letter
    that appears after the turn of entry on their counter ... Reinforcements may
    always be voluntarily delayed until a later game turn". § series 9.62:
    "Placement on the board does not cost any movement points. The unit can
    expend its entire movement allowance and use Strategic Movement during the
    game turn of entry." Washington (6 MP) enters on turn 6 at A-1 (0105), on
    the road: strategically, twice his allowance, twelve road hexes."""
    game = litmus
    start = [{"procedure": "movement_phase", "step": "pin_cases", "bindings": {"side": AMERICAN}}]
    s = position(game, {"guards": "2408"}, start, turn=6)
    assert options(s) == ["pass", "0105"]
    answer(s, "pass")  # delayed
    assert status(game, s, "washington") == "not_entered"
    s = position(game, {"guards": "2408"}, start, turn=6)
    answer(s, "0105")
    assert hex_of(game, s, "washington") == "0105"
    answer(s, "move Washington by strategic movement")
    moved = 0
    while may_step(game, s, "washington", f"{moved + 2:02d}05"):
        move(game, s, "washington", f"{moved + 2:02d}05")
        moved += 1
    assert moved == 12


# ---------------------------------------------------------------- 10, 11 Fire


def test_rifle_fire_is_voluntary_at_an_adjacent_combat_unit_once_per_phase(litmus):
    """§ series 10.1: "Rifle Fire is voluntary. No unit is ever required to fire.
    No unit may fire more than once per phase." § series 10.2: "If a unit
    chooses to fire, it must select an adjacent target combat unit." Scott's
    Rifles in 0505 have the Guards (with Clinton) and the Grenadiers next to
    them, the Dragoons two hexes off."""
    game = litmus
    units = {
        "scott_rifles": "0505",
        "guards": "0604",
        "clinton": "0604",
        "grenadiers": "0605",
        "dragoons": "0705",
    }
    phase = rifle_fire()
    s = position(game, units, [phase])
    assert options(s) == ["pass", "Guards", "Grenadiers"]  # no leader, nothing two hexes off
    answer(s, "Guards")
    assert "Fire Scott's Rifles at Guards? no" in options(s)  # voluntary
    answer(s, "Fire Scott's Rifles at Guards? yes")
    s.apply_action(0)  # a miss
    # Scott's Rifles have fired: the Grenadiers are never offered; the phase ends.
    assert s.is_terminal()
    assert not any("Grenadiers" in m for m in s.messages)


def test_disrupted_rifles_may_not_fire(litmus):
    """§ series 13.3: disrupted units "May not attack; artillery and rifle units
    may not fire"; § series 13.4: shattered units the same. Scott's Rifles next
    to the Guards, disrupted or shattered: no target is offered."""
    game = litmus
    units = {"scott_rifles": "0505", "guards": "0604"}
    phase = rifle_fire()
    for order in ("disrupted", "shattered"):
        s = position(game, units, [phase], order=orders(game, scott_rifles=order))
        assert s.is_terminal() and not any("Rifle Fire" in m for m in s.messages), order
    s = position(game, units, [phase])  # the control, in Parade Order
    assert options(s) == ["pass", "Guards"]


def test_the_first_fire_bonus_is_lost_by_firing_or_by_close_combat(litmus):
    """§ series 10.5: "All firing units lose their first-fire bonus for future
    fire combats even if no hit is attained. A rifle unit also loses its First
    Fire capability if it participates in Close Combat in any Game Turn prior to
    attempting Rifle Fire." Scott's Rifles fire at the Guards and miss; fire
    again next turn: no bonus. Or they are first attacked by the Guards: the
    combat, once begun, takes the bonus away."""
    game = litmus
    units = {"scott_rifles": "0505", "guards": "0604"}
    phase = rifle_fire()

    def fire(s: State) -> str:
        answer(s, "Guards")
        answer(s, "Fire Scott's Rifles at Guards? yes")
        s.apply_action(0)
        return next(m for m in s.messages if m.startswith("Rifle Fire: American rolled"))

    s = position(game, units, [phase])
    assert fire(s) == "Rifle Fire: American rolled 0, +1 First Fire Bonus = 1."
    # Next turn (what has fired carried over): no bonus.
    s = position(game, units, [phase], turn=4, has_fired=to_json(s)["vars"]["has_fired"])
    assert fire(s) == "Rifle Fire: American rolled 0."
    # A close combat (the Guards attack the rifles, no effect), then rifle fire.
    combats = [fight(["guards"], ["scott_rifles"], "0604", "0505", BRITISH)]
    begin = {"procedure": "close_combat", "step": "begin", "bindings": {"combat": 0}}
    s = position(game, units, [begin], phasing=BRITISH, extra={"combats": combats})
    assert s.vars["has_fired"][game.unit_by_name["scott_rifles"]]
    s = position(game, units, [phase], turn=4, has_fired=to_json(s)["vars"]["has_fired"])
    assert fire(s) == "Rifle Fire: American rolled 0."


def test_defensive_artillery_fires_up_to_three_hexes(litmus):
    """§ series 11.1: "During the Defensive Artillery Fire phase, the non-phasing
    player may fire any of his artillery." § series 11.2: "All artillery units
    have a maximum range of three hexes ... The range is the number of hexes from
    the firing unit to the target, counting the target's hex but not the firing
    unit's hex." In the British player turn the American guns in 0505 may fire
    at the Dragoons next to them and the Guards three hexes off (0805), not at
    the Grenadiers four off (0905), over open ground. § series 11.1: "Defensive
    Artillery Fire is voluntary ... No unit may fire more than once per
    phase." """
    game = litmus
    units = {"us_guns": "0505", "guards": "0805", "grenadiers": "0905", "dragoons": "0604"}
    board = game.rules.board
    ranges = {
        n: distance(board, game.hex_by_label["0505"], game.hex_by_label[h])
        for n, h in units.items()
    }
    assert ranges == {"us_guns": 0, "guards": 3, "grenadiers": 4, "dragoons": 1}
    phase = {
        "procedure": "defensive_artillery_fire_phase",
        "step": "fire",
        "bindings": {"side": BRITISH},
    }
    s = position(game, units, [phase], phasing=BRITISH)
    assert s.current_player() == game.side_by_name[AMERICAN]  # the non-phasing player
    assert options(s) == ["pass", "Guards", "Dragoons"]
    answer(s, "pass")  # voluntary
    assert s.is_terminal() and not any("Artillery Fire" in m for m in s.messages)
    # "No unit may fire more than once per phase": after one fire, a miss, the
    # guns are not offered the Dragoons; the phase ends.
    s = position(game, units, [phase], phasing=BRITISH)
    answer(s, "Guards")
    answer(s, "Fire American Artillery at Guards? yes")
    s.apply_action(0)
    assert s.is_terminal()
    assert sum("Artillery Fire at" in m for m in s.messages) == 1


# ---------------------------------------------------------------- 12 Close Combat


def combat(units: dict, attackers: list[str], defenders: list[str], side: str) -> dict:
    """A designated close combat as a save holds it, its hexes those of its units."""
    hexes = {n: h if isinstance(h, str) else h["hex"] for n, h in units.items()}
    return {
        "side": side,
        "attackers": attackers,
        "defenders": defenders,
        "attack_hexes": sorted({hexes[n] for n in attackers}),
        "defense_hexes": sorted({hexes[n] for n in defenders}),
    }


def drms(
    game: Game, units: dict, attackers: list[str], defenders: list[str], side: str, **variables
) -> dict[str, int]:
    """The Close Combat DRMs of one designated combat, the first unit of each
    side its lead unit (no tactics chit); a modifier of 0 is not listed."""
    fight = combat(units, attackers, defenders, side)
    s = position(
        game, units, [], phasing=side, extra={"combats": [fight], "terminal": True}, **variables
    )
    u = game.unit_by_name
    bindings = {
        "combat": 0,
        "attacker_lead": u[attackers[0]],
        "defender_lead": u[defenders[0]],
        "tactics": 0,
    }
    return dict(modifiers_of(s, "close_combat_drm", bindings))


# The Guards in 0505 with the 1st N.J. (0404), the 2nd N.J. (0604) and Scott's
# Rifles (0506) next to them: their ZOCs fill the other three hexes (0504,
# 0605, 0405).
RING = {"guards": "0505", "nj_1": "0404", "nj_2": "0604", "scott_rifles": "0506"}


def test_a_unit_ringed_by_enemy_units_and_zocs_is_surrounded(litmus):
    """§ series 12.7: "When all six hexes adjacent to a defending unit are
    occupied by enemy units, enemy ZOCs or prohibited terrain, the attacker
    modifies his Close Combat die roll by +1. The converse also applies — if the
    attacker is surrounded, the Close Combat die roll is modified by -1. For
    this rule only, friendly units negate enemy ZOCs in their hex." § series
    8.2: "A combat unit negates an enemy ZOC in its hex for the purpose of the
    surrounded Close Combat modifier (12.7)." """
    game = litmus
    american = drms(game, RING, ["nj_1"], ["guards"], AMERICAN)
    assert american["Defender surrounded"] == 1
    assert "Attacker surrounded" not in american
    british = drms(game, RING, ["guards"], ["nj_1"], BRITISH)
    assert british["Attacker surrounded"] == -1
    assert "Defender surrounded" not in british
    # The Dragoons in 0605 negate the American ZOC there: no longer surrounded.
    american = drms(game, {**RING, "dragoons": "0605"}, ["nj_1"], ["guards"], AMERICAN)
    assert "Defender surrounded" not in american


def test_a_friendly_unit_does_not_open_an_enemy_zoc_hex_to_a_retreat(litmus):
    """§ series 8.2: "It does not negate an enemy ZOC in its hex for retreat
    purposes (13.22)." § series 13.22: "Units may not retreat ... Into an enemy
    ZOC, even if friendly units already occupy the hex". The reduced Guards
    (3 SPs) in the ring must retreat one hex; the Dragoons (2 SPs) in 0605 leave
    room there, but the hex is in the ZOC of the 2nd N.J. and Scott's Rifles."""
    game = litmus
    units = {**RING, "guards": {"hex": "0505", "steps_lost": 1}, "dragoons": "0605"}
    s = retreating(game, units, "guards", AMERICAN, hexes=1)
    finish(s)
    assert status(game, s, "guards") == "captured"
    # The control: those two disrupted (no ZOC, 8.1), the Guards join the Dragoons.
    disrupted = orders(game, nj_2="disrupted", scott_rifles="disrupted")
    s = retreating(game, units, "guards", AMERICAN, hexes=1, order=disrupted)
    finish(s)
    assert hex_of(game, s, "guards") == "0605"


def test_a_leader_in_command_adds_his_drm_attacking_and_subtracts_it_defending(litmus):
    """§ series 14.21: "During Close Combat, a Leader in command modifies the die
    roll with his Close Combat DRM. When attacking, the rating is added to the
    die roll; when defending, it is subtracted." Lee (+1) with the 1st N.J.;
    Clinton (+1) with the Guards."""
    game = litmus
    units = {"nj_1": "0404", "guards": "0505"}
    plain = drms(game, units, ["nj_1"], ["guards"], AMERICAN)
    assert "Attacking leader" not in plain and "Defending leader" not in plain
    led = drms(game, {**units, "lee": "0404", "clinton": "0505"}, ["nj_1"], ["guards"], AMERICAN)
    assert led["Attacking leader"] == 1
    assert led["Defending leader"] == -1
    # A leader in the next hex, not in command of the units that fight: nothing.
    away = drms(game, {**units, "lee": "0304"}, ["nj_1"], ["guards"], AMERICAN)
    assert "Attacking leader" not in away


def test_the_lead_units_modified_morale_counts_its_armys_level(litmus):
    """§ series 15.32: "A unit's modified morale is the unit's base morale plus
    the unit's army morale modifier (see 16.2). A lead unit's modified morale is
    used as a DRM for Close Combat (see 12.2)." § series 16.21: "All units in a
    High Morale army use their printed unit morale ratings"; 16.22: "All units
    in a Fatigued army have their unit morale ratings reduced by 1"; 16.23:
    "reduced by 2" when Wavering. The 1st N.J. (morale 1) attacks the Guards
    (morale 2); the litmus track puts High at 15 and more, Fatigued at 10–14,
    Wavering at 1–9 (provisional)."""
    game = litmus
    units = {"nj_1": "0404", "guards": "0505"}
    for army_morale, modifier in ((15, 0), (12, -1), (5, -2)):
        levels = {AMERICAN: army_morale, BRITISH: 20}
        got = drms(game, units, ["nj_1"], ["guards"], AMERICAN, army_morale=levels)
        assert got.get("Attacker's lead unit morale", 0) == 1 + modifier, army_morale
        assert got["Defender's lead unit morale"] == -2  # the British stay High


# ---------------------------------------------------------------- 13.3, 13.4


def order_of(game: Game, s: State, unit: str) -> str:
    return s.vars["order"][game.unit_by_name[unit]]


def odds(game: Game, units: dict, attackers: list[str], defenders: list[str], **variables) -> tuple:
    """The odds column of an American close combat (12.23 step 1), as the
    Close Combat Table names it."""
    fight = combat(units, attackers, defenders, AMERICAN)
    frame = {
        "procedure": "close_combat",
        "step": "odds",
        "bindings": {"combat": 0, "attacker": AMERICAN, "defender": BRITISH, "attacker_lead": None},
    }
    s = position(game, units, [frame], extra={"combats": [fight]}, **variables)
    table = game.tables[game.rules.table_index("close_combat_table")]
    return table.columns[s.stack[-1].b["odds"]]


def test_disrupted_units_defend_with_half_and_shattered_with_one_sp(litmus):
    """§ series 13.3: disrupted units "Defend with only half of their SPs
    (fractions rounded up)"; § series 13.4: shattered units "Defend with 1 SP
    (regardless of their actual SP ratings)". The 1st N.J. (4 SPs) attacks the
    Guards (5): 4 to 5 is 1:2; 4 to 3 (5 halved, rounded up) is 1:1; 4 to 1 is
    4:1."""
    game = litmus
    units = {"nj_1": "0404", "guards": "0505"}
    expected = {"parade_order": (1, 2), "disrupted": (1, 1), "shattered": (4, 1)}
    for order, column in expected.items():
        got = odds(game, units, ["nj_1"], ["guards"], order=orders(game, guards=order))
        assert got == column, order


def test_a_disrupted_unit_moves_one_hex_never_next_to_the_enemy(litmus):
    """§ series 13.3: disrupted units "May only move one hex per turn, and may not
    move adjacent to an enemy unit." The disrupted 1st N.J. in 0304, two hexes
    from the Guards (0505): 0404 is next to them, 0204 is not."""
    game = litmus
    units = {"nj_1": "0304", "guards": "0505"}
    s = movement(game, units, order=orders(game, nj_1="disrupted"))
    assert not may_step(game, s, "nj_1", "0404")
    assert may_step(game, s, "nj_1", "0305")
    move(game, s, "nj_1", "0305")
    assert not any(may_step(game, s, "nj_1", h) for h in ("0306", "0205", "0405"))
    # In Parade Order it may go next to them.
    s = movement(game, units)
    assert may_step(game, s, "nj_1", "0404")


def test_a_disrupted_unit_next_to_the_enemy_moves_away_from_as_many_as_it_can(litmus):
    """§ series 13.3: "If a disrupted unit begins a movement phase adjacent to an
    enemy unit, it must use its one hex move to move away from (i.e. no longer
    adjacent to) as many enemy units as possible". The disrupted 1st N.J. in
    0404 has the Guards (0505) and the Grenadiers (0504) next to it; of its
    neighbours, 0304 and 0305 are next to neither."""
    game = litmus
    units = {"nj_1": "0404", "guards": "0505", "grenadiers": "0504"}
    start = [{"procedure": "movement_phase", "step": "pin_cases", "bindings": {"side": AMERICAN}}]
    s = position(game, units, start, order=orders(game, nj_1="disrupted"))
    offered = options(s)
    assert sorted(offered) == ["0304", "0305"], offered
    answer(s, "0305")
    assert hex_of(game, s, "nj_1") == "0305"
    assert s.stack[-1].proc == "move_units"
    assert not any(may_step(game, s, "nj_1", h) for h in ("0204", "0306", "0405"))  # done


def test_shattered_units_may_not_move(litmus):
    """§ series 13.4: shattered units "May not move"."""
    game = litmus
    s = movement(game, {"nj_1": "0304", "guards": "2408"}, order=orders(game, nj_1="shattered"))
    assert options(s) == ["pass"]


def test_disrupted_and_shattered_units_may_not_attack(litmus):
    """§ series 13.3 and 13.4: disrupted and shattered units "May not attack".
    The 1st N.J. next to the Guards: in Parade Order it must attack (12.12);
    disrupted or shattered, no combat is designated."""
    game = litmus
    units = {"nj_1": "0404", "nj_2": "0304", "guards": "0505"}
    phase = {"procedure": "close_combat_phase", "step": "designate", "bindings": {"side": AMERICAN}}
    s = position(game, units, [phase])
    assert "pass" not in options(s)  # 12.12: it must attack
    for order in ("disrupted", "shattered"):
        s = position(game, units, [phase], order=orders(game, nj_1=order))
        # The designation is over with no combat (the phase has moved on to
        # the disrupted and shattered units left next to the enemy).
        assert not any(f.proc == "designate_combats" for f in s.stack), order
        assert not s.combats and not any(o.startswith("attack") for o in options(s)), order


def test_ending_the_close_combat_phase_next_to_the_enemy_alone(litmus):
    """§ series 13.3: disrupted units "Suffer an additional "D" result, if they
    end their own Close Combat phase adjacent to enemy units, and are not stacked
    with friendly Parade Order units. This results in the unit becoming
    shattered (i.e. they must retreat 3 hexes or be captured)." § series 13.4:
    shattered units "Are captured, if they end ANY Close Combat phase adjacent
    to enemy units, and are not stacked with friendly Parade Order units". At
    the end of the American Close Combat Phase: the disrupted 1st N.J. next to
    the Guards, the shattered Grenadiers next to the 2nd N.J."""
    game = litmus
    units = {"nj_1": "0404", "guards": "0505", "nj_2": "0204", "grenadiers": "0304"}
    phase = {"procedure": "close_combat_phase", "step": "exposed", "bindings": {"side": AMERICAN}}
    changed = orders(game, nj_1="disrupted", grenadiers="shattered")
    s = position(game, units, [phase], order=changed)
    finish(s)
    assert order_of(game, s, "nj_1") == "shattered"
    assert (
        distance(game.rules.board, s.unit_hex[game.unit_by_name["nj_1"]], game.hex_by_label["0404"])
        == 3
    )
    assert status(game, s, "grenadiers") == "captured"
    # Stacked with Parade Order units, neither suffers anything.
    company = {**units, "scott_rifles": "0404", "rear_guard_foot": "0304"}
    s = position(game, company, [phase], order=changed)
    finish(s)
    assert order_of(game, s, "nj_1") == "disrupted" and hex_of(game, s, "nj_1") == "0404"
    assert hex_of(game, s, "grenadiers") == "0304"


# ---------------------------------------------------------------- 15 Rally


def rally(game: Game, units: dict, face: int, **changed: str) -> State:
    """The American Rally Phase with these units disrupted or shattered, every
    morale check rolled `face`."""
    phase = {"procedure": "rally_phase", "step": "rally", "bindings": {"side": AMERICAN}}
    s = position(
        game, units, [phase], order=orders(game, **changed), army_morale={AMERICAN: 15, BRITISH: 15}
    )
    while not s.is_terminal():
        s.apply_action(face if s.is_chance_node() else s.legal_actions()[0])
    return s


def test_a_unit_rallies_on_a_morale_check_with_its_leaders_drm(litmus):
    """§ series 15.1: "During the Rally Phase, the phasing player's disrupted or
    shattered units that are not adjacent to enemy combat units may attempt to
    Rally. A unit attempts to Rally by making a Morale Check (13.5). A Leader in
    command may modify the Rally attempt of any units in the same hex by adding
    his Leadership DRM (14.23)." § series 14.23: "During all morale checks and
    rally attempts, the Leader in command may add his Leadership DRM to all
    combat units in his hex." The disrupted 2nd N.J. (morale 1) rolls a 3: 4
    fails, 5 with Lee (+1) passes; the disrupted 1st N.J., next to the Guards,
    may not try. § series 16.1: Army Morale is adjusted when "A unit rallies
    (+1)"."""
    game = litmus
    units = {"nj_2": "0304", "nj_1": "0404", "guards": "0505"}
    s = rally(game, units, 3, nj_1="disrupted", nj_2="disrupted")
    assert order_of(game, s, "nj_2") == "disrupted"
    assert s.vars["army_morale"][game.side_by_name[AMERICAN]] == 15
    s = rally(game, {**units, "lee": "0304"}, 3, nj_1="disrupted", nj_2="disrupted")
    assert order_of(game, s, "nj_2") == "parade_order"
    assert s.vars["army_morale"][game.side_by_name[AMERICAN]] == 16
    assert "Morale Check: rolled 3, +1 Modified morale, +1 Leadership DRM = 5." in s.messages
    assert order_of(game, s, "nj_1") == "disrupted"
    assert sum("Morale Check: rolled" in m for m in s.messages) == 1  # the 1st N.J. never tried
    # Lee next to the 2nd N.J., not in its hex: no DRM.
    s = rally(game, {**units, "lee": "0204"}, 3, nj_1="disrupted", nj_2="disrupted")
    assert order_of(game, s, "nj_2") == "disrupted"


def test_a_rally_raises_shattered_to_disrupted_and_disrupted_to_parade_order(litmus):
    """§ series 15.2: "A disrupted unit that passes its Morale Check is restored to
    Parade Order. If it fails its morale check, it remains disrupted. A
    shattered unit that passes its Morale Check becomes disrupted. If it fails
    its Morale Check, it remains shattered." """
    game = litmus
    units = {"nj_1": "0304", "nj_2": "0204"}
    s = rally(game, units, 9, nj_1="disrupted", nj_2="shattered")
    assert (order_of(game, s, "nj_1"), order_of(game, s, "nj_2")) == ("parade_order", "disrupted")
    s = rally(game, units, 0, nj_1="disrupted", nj_2="shattered")
    assert (order_of(game, s, "nj_1"), order_of(game, s, "nj_2")) == ("disrupted", "shattered")


# ---------------------------------------------------------------- 13.2 Retreat


def test_a_two_step_unit_blocked_by_stacking_may_lose_a_step_and_retreat(litmus):
    """§ series 13.23: "If a two-step unit would be captured for failure to
    retreat due to stacking limit violations, the owning player may choose to
    take a step loss and retreat, provided that the reduced-strength unit would
    not violate stacking limits in the hex into which it retreats. The Army
    Morale adjustments of suffering a '1' result are applied if the unit is
    reduced in this manner. (The player may still choose to have the unit
    captured instead of taking a step loss.)" The 1st N.J. (4 SPs, 2 reduced) in
    0505 must retreat one hex: the Guards (0504) and the Grenadiers (0405) hold
    or reach every hex but 0605, where the 2nd N.J. (4) leaves room for 2 SPs."""
    game = litmus
    units = {"nj_1": "0505", "nj_2": "0605", "guards": "0504", "grenadiers": "0405"}
    morale = {AMERICAN: 15, BRITISH: 15}
    chart = game.tables[game.rules.table_index("army_morale_chart")]
    one = next(cells[0][0] for _lo, _hi, key, cells in chart.rows if key == "one_step_loss")
    question = "lose a step to make room and retreat (else be captured)?"
    s = retreating(game, units, "nj_1", AMERICAN, hexes=1, army_morale=morale)
    answer(s, f"{question} yes")
    finish(s)
    assert hex_of(game, s, "nj_1") == "0605"
    assert s.unit_loss[game.unit_by_name["nj_1"]] == 1
    assert s.vars["army_morale"][game.side_by_name[AMERICAN]] == 15 + one
    s = retreating(game, units, "nj_1", AMERICAN, hexes=1, army_morale=morale)
    answer(s, f"{question} no")
    finish(s)
    assert status(game, s, "nj_1") == "captured"
    # A one-step unit has no such choice: Scott's Rifles (2 SPs) where the
    # reduced 1st N.J. and the 2nd N.J. already make six.
    full = {**units, "scott_rifles": "0505", "nj_1": {"hex": "0605", "steps_lost": 1}}
    s = retreating(game, full, "scott_rifles", AMERICAN, hexes=1)
    assert not any(question in o for o in options(s))
    finish(s)
    assert status(game, s, "scott_rifles") == "captured"


def test_a_leader_may_retreat_with_the_unit_or_stay(litmus):
    """§ series 13.26: "Any Leader may freely retreat along with any friendly
    retreating units with which it is stacked. Leaders are never required to
    retreat." Lee is stacked with the 1st N.J., which must retreat one hex."""
    game = litmus
    units = {"nj_1": "0404", "lee": "0404", "guards": "0505"}
    for goes in (True, False):
        s = retreating(game, units, "nj_1", AMERICAN, hexes=1)
        answer(s, "0304")
        answer(s, f"Retreat the leader with the unit? {'yes' if goes else 'no'}")
        finish(s)
        assert hex_of(game, s, "nj_1") == "0304"
        assert hex_of(game, s, "lee") == ("0304" if goes else "0404")


def test_a_leader_is_never_disrupted_and_may_stay_when_his_units_are(litmus):
    """§ series 14.31: "Leaders are never disrupted. If stacked with units which
    retreat or suffer disruption, the leader may either retreat with them or
    remain in place." The 1st N.J., with Lee, suffers a "D": disrupted, it
    retreats three hexes; Lee stays, in Parade Order, or goes with it."""
    game = litmus
    units = {"nj_1": "0404", "lee": "0404", "guards": "0505"}
    disruption = [{"procedure": "disrupt", "step": "worsen", "bindings": {"unit": "nj_1"}}]
    for goes in (True, False):
        s = position(game, units, disruption)
        finish(s, prefer=f"Retreat the leader with the unit? {'yes' if goes else 'no'}")
        assert order_of(game, s, "nj_1") == "disrupted"
        assert order_of(game, s, "lee") == "parade_order"
        assert (hex_of(game, s, "lee") == hex_of(game, s, "nj_1")) is goes
        if not goes:
            assert hex_of(game, s, "lee") == "0404"


def applying(
    result: tuple[str, str], attacker_lead: str, defender_lead: str, side: str, roll: int = 5
) -> list:
    """A close combat of `side` about to apply its result (attacker's, defender's)
    after a final roll of `roll` (12.23 step 7)."""
    return [
        {
            "procedure": "close_combat",
            "step": "previously_retreated",
            "bindings": {
                "combat": 0,
                "attacker": side,
                "defender": BRITISH if side == AMERICAN else AMERICAN,
                "attacker_lead": attacker_lead,
                "defender_lead": defender_lead,
                "result": list(result),
                "modified_roll": roll,
            },
        }
    ]


def fight(
    attackers: list[str], defenders: list[str], attack_hex: str, defense_hex: str, side: str
) -> dict:
    return {
        "side": side,
        "attackers": attackers,
        "defenders": defenders,
        "attack_hexes": [attack_hex],
        "defense_hexes": [defense_hex],
    }


def test_defending_artillery_that_holds_its_ground_is_not_captured(litmus):
    """§ series 13.27: "Artillery units retreat like other units. Artillery units
    are NOT captured automatically if they end the Apply Close Combat Results
    Step adjacent to enemy combat units." § series 13.1 "R": "the Defender's
    artillery ... must make a morale check; if they fail, they must retreat one
    hex also." The Guards attack the 1st N.J. and the American guns in 0404; the
    1st N.J. retreats (R); the guns pass their check (a 9) and stay next to the
    Guards, or fail it (a 0) and retreat one hex."""
    game = litmus
    units = {"guards": "0505", "nj_1": "0404", "us_guns": "0404"}
    combats = [fight(["guards"], ["nj_1", "us_guns"], "0505", "0404", BRITISH)]
    for face, stays in ((9, True), (0, False)):
        stack = applying(("no_effect", "retreat"), "guards", "nj_1", BRITISH)
        s = position(game, units, stack, phasing=BRITISH, extra={"combats": combats})
        while not s.is_terminal():
            s.apply_action(face if s.is_chance_node() else s.legal_actions()[0])
        assert hex_of(game, s, "nj_1") != "0404"
        assert on_map(game, s, "us_guns")
        guns = s.unit_hex[game.unit_by_name["us_guns"]]
        assert (game.rules.board.labels[guns] == "0404") is stays
        if not stays:
            assert distance(game.rules.board, guns, game.hex_by_label["0404"]) == 1


# ---------------------------------------------------------------- 12.65, 16.3


def test_a_chit_due_from_an_empty_pool_is_returned_by_the_opponent(litmus):
    """§ series 12.65: "If a player is entitled to receive a Momentum Chit but
    there are none available in the pool, the opposing player must return one
    Momentum Chit to the pool instead. If the opposing player does not have a
    Momentum Chit, there is no further effect." The Americans' final roll of 10
    entitles them to a chit (12.63); the pool is empty."""
    game = litmus
    units = {"nj_1": "0404", "guards": "0505"}
    combats = [fight(["nj_1"], ["guards"], "0404", "0505", AMERICAN)]
    a, b = game.side_by_name[AMERICAN], game.side_by_name[BRITISH]
    for held, after in (((2, 3), (2, 2, 1)), ((5, 0), (5, 0, 0))):
        s = position(
            game,
            units,
            applying(("no_effect", "no_effect"), "nj_1", "guards", AMERICAN, roll=10),
            momentum={AMERICAN: held[0], BRITISH: held[1]},
            momentum_pool=0,
            extra={"combats": combats},
        )
        finish(s)
        assert (s.vars["momentum"][a], s.vars["momentum"][b], s.vars["momentum_pool"]) == after


def test_an_army_whose_morale_falls_to_zero_loses_the_game_at_once(litmus):
    """§ series 16.3: "If an Army's Morale falls to 0, it is considered
    Demoralized. The game ends immediately, and the opposing player wins a
    Substantial Victory." On turn 3 of 14, an AM result strikes the British at
    Army Morale 1 (and, the control, at 2)."""
    game = litmus
    units = {"nj_1": "0404", "guards": "0505"}
    combats = [fight(["nj_1"], ["guards"], "0404", "0505", AMERICAN)]
    for before, ends in ((1, True), (2, False)):
        s = position(
            game,
            units,
            applying(("no_effect", "army_morale_loss"), "nj_1", "guards", AMERICAN),
            army_morale={AMERICAN: 15, BRITISH: before},
            extra={"combats": combats},
        )
        finish(s)
        assert s.vars["army_morale"][game.side_by_name[BRITISH]] == before - 1
        won = s.winner == game.side_by_name[AMERICAN] and s.level == "substantial"
        assert won is ends, s.messages[-3:]


def test_shattered_units_get_no_terrain_drm_and_a_second_d_eliminates_them(litmus):
    """§ series 13.4: shattered units "Defend with 1 SP (regardless of their
    actual SP ratings), and may NOT receive any terrain DRMs" and "Are
    eliminated, if they receive an additional "D" result (place such units in
    the eliminated box)". The Guards defend the orchard of 1003 against the 1st
    N.J. in 0903."""
    game = litmus
    units = {"nj_1": "0903", "guards": "1003"}
    parade = drms(game, units, ["nj_1"], ["guards"], AMERICAN)
    assert parade["Defender's terrain"] < 0
    shattered = orders(game, guards="shattered")
    drm = drms(game, units, ["nj_1"], ["guards"], AMERICAN, order=shattered)
    assert "Defender's terrain" not in drm
    disruption = [{"procedure": "disrupt", "step": "worsen", "bindings": {"unit": "guards"}}]
    s = position(game, units, disruption, order=shattered)
    finish(s)
    assert status(game, s, "guards") == "eliminated"


def test_a_pin_captures_disrupted_and_shattered_units(litmus):
    """§ series 13.3: disrupted units "Are captured if they receive a 'PIN'
    result"; § series 13.4: shattered units "Are captured, if they receive a
    'PIN' result". The 1st N.J. attacks the Guards and the Grenadiers in 0505;
    both sides are pinned."""
    game = litmus
    units = {"nj_1": "0404", "guards": "0505", "grenadiers": "0505"}
    combats = [fight(["nj_1"], ["guards", "grenadiers"], "0404", "0505", AMERICAN)]
    changed = orders(game, guards="disrupted", grenadiers="shattered")
    stack = applying(("no_effect", "pin"), "nj_1", "guards", AMERICAN)
    s = position(game, units, stack, order=changed, extra={"combats": combats})
    finish(s)
    assert status(game, s, "guards") == "captured"
    assert status(game, s, "grenadiers") == "captured"
    assert hex_of(game, s, "nj_1") in ("0404", "0505")


# ---------------------------------------------------------------- 12.5 Tactics Chits


def tactics_in_each_combat(
    game: Game, units: dict, combats: list[dict], chits: tuple, side: str = AMERICAN
) -> list[str]:
    """The `side`'s Close Combat Phase's designated combats resolved in order,
    the Attacker and the Defender playing `chits` in each, every die a 5: each
    combat's Close Combat Table line."""
    phase = {"procedure": "close_combat_phase", "step": "resolve", "bindings": {"side": side}}
    s = position(
        game,
        units,
        [phase],
        phasing=side,
        momentum={AMERICAN: 0, BRITISH: 0},
        extra={"combats": combats},
    )
    attacker = game.side_by_name[side]
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(5)
            continue
        texts = options(s)
        chit = f"choose {chits[0] if s.current_player() == attacker else chits[1]}"
        s.apply_action(s.legal_actions()[texts.index(chit) if chit in texts else 0])
    return [m for m in s.messages if m.startswith("Close Combat Table:")]


def test_a_leader_stacked_or_adjacent_makes_frontal_assault_eligible(litmus):
    """§ series 12.52: "Frontal Assault, Commit Reserve: A Leader must be stacked
    with or adjacent to at least one unit involved in this Close Combat".
    § series 12.53: "One Leader can meet the eligibility requirements for
    Tactics Chit use for all units with which it is stacked or to which it is
    adjacent." § series 14.22: "If a combat unit is stacked with or adjacent to
    a Leader during Close Combat, the player is eligible to play additional
    Tactics Chits (12.5)." The 1st N.J. (1004) attacks the Grenadiers, the 2nd
    N.J. (1006) the Guards, each with Frontal Assault against Skirmish (the
    matrix's +1; an ineligible chit gives the Defender one, 12.54)."""
    game = litmus
    units = {"nj_1": "1004", "grenadiers": "1104", "nj_2": "1006", "guards": "1106"}
    combats = [
        fight(["nj_1"], ["grenadiers"], "1004", "1104", AMERICAN),
        fight(["nj_2"], ["guards"], "1006", "1106", AMERICAN),
    ]
    chits = ("Frontal Assault", "Skirmish")

    def eligible(lines: list[str]) -> list[bool]:
        return ["+1 Tactics" in line for line in lines]

    assert eligible(tactics_in_each_combat(game, units, combats, chits)) == [False, False]
    # Lee in 1005, next to both attacking hexes: both may assault.
    lines = tactics_in_each_combat(game, {**units, "lee": "1005"}, combats, chits)
    assert eligible(lines) == [True, True]
    # Lee with the 1st N.J., two hexes from the 2nd: the first only.
    lines = tactics_in_each_combat(game, {**units, "lee": "1004"}, combats, chits)
    assert eligible(lines) == [True, False]


# ---------------------------------------------------------------- 13 Combat Results


def damage_face(game: Game, table: str, result: str) -> int:
    """A face of a damage table's (unmodified) roll that gives `result`."""
    code = [r.name for r in game.rules.results].index(result)
    rows = game.tables[game.rules.table_index(table)].rows
    return next(row.low for row in rows if row.cells[0][0] == code)


def test_fire_affects_only_its_target_and_the_leaders_in_its_hex(litmus):
    """§ series 13: "In Fire Combat, other friendly combat units in the hex are
    never affected, but leaders may be." § series 10.3 step 3: "Only the target
    combat unit will be affected by the result. Ignore any reference to other
    units in the hex (Exception: 13.1 Leader Casualty)." Scott's Rifles hit the
    Guards, stacked with the reduced Grenadiers and Clinton in 0604: an R moves
    the Guards alone; a "*" takes Clinton."""
    game = litmus
    units = {
        "scott_rifles": "0505",
        "guards": "0604",
        "grenadiers": {"hex": "0604", "steps_lost": 1},
        "clinton": "0604",
    }
    phase = rifle_fire()
    for result in ("retreat", "leader_casualty"):
        s = position(game, units, [phase])
        answer(s, "Guards")
        answer(s, "Fire Scott's Rifles at Guards? yes")
        s.apply_action(9)  # a hit
        s.apply_action(damage_face(game, "rifle_fire_damage", result))
        finish(s)
        assert hex_of(game, s, "grenadiers") == "0604"
        if result == "retreat":
            assert hex_of(game, s, "guards") != "0604"
            assert hex_of(game, s, "clinton") in ("0604", hex_of(game, s, "guards"))
        else:
            assert hex_of(game, s, "guards") == "0604"
            assert status(game, s, "clinton") == "eliminated"


def test_every_combat_is_announced_before_any_is_resolved_by_the_phasing_attacker(litmus):
    """§ series 12.11: "The phasing player is considered the Attacker, while the
    non-phasing player is the Defender." § series 12.21: "The phasing player
    must announce all Close Combats before resolving any of them. The phasing
    player designates which friendly units are attacking and which enemy units
    are being attacked." § series 12.23: "Each Close Combat is resolved
    separately in any order that the Attacker chooses." In the British Close
    Combat Phase the Guards (1104) must attack the 1st N.J. (1004) and the
    Grenadiers (1107) the 2nd N.J. (1006)."""
    game = litmus
    british = game.side_by_name[BRITISH]
    units = {"guards": "1104", "nj_1": "1004", "grenadiers": "1107", "nj_2": "1006"}
    phase = {"procedure": "close_combat_phase", "step": "designate", "bindings": {"side": BRITISH}}
    s = position(game, units, [phase], phasing=BRITISH)
    assert s.current_player() == british
    assert options(s) == ["attack 1004 from 1104", "attack 1006 from 1107"]
    answer(s, "attack 1006 from 1107")
    # The first combat waits: the second is announced first.
    assert s.current_player() == british and options(s) == ["attack 1004 from 1104"]
    answer(s, "attack 1004 from 1104")
    # Now the Attacker chooses which to resolve first.
    assert s.current_player() == british
    assert options(s) == [
        "choose combat 1 (Grenadiers against 2nd N.J.)",
        "choose combat 2 (Guards against 1st N.J.)",
    ]
    answer(s, "choose combat 2 (Guards against 1st N.J.)")
    while not s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    s.apply_action(5)
    roll = next(m for m in s.messages if m.startswith("Close Combat Table:"))
    # The Guards (morale 2) are the Attacker's lead unit, the 1st N.J. (1) the Defender's.
    assert "+2 Attacker's lead unit morale, -1 Defender's lead unit morale" in roll


# ---------------------------------------------------------------- 16.24


def test_morale_checks_in_a_combat_use_the_level_it_began_with(litmus):
    """§ series 16.24: "If the Army's Morale changes between High, Fatigued or
    Wavering during the resolution of a Fire Combat or Close Combat, resolve any
    resulting morale checks using the Army Morale level that was in effect at
    the beginning of that Combat. The new Army Morale level is used for any
    Combats which are still to be resolved in that Combat Phase." The 1st N.J.
    attacks the (reduced) Guards in 0505, where the Dragoons (morale 1) have
    retreated from an earlier combat (13.25); the British are at 15, High
    Morale (the litmus track: Fatigued from 14). The combat begins; its result
    is AM for the British (15 → 14, Fatigued); then the Dragoons check morale
    (13.25) at High: +1, not +0. The next combat begins at Fatigued."""
    game = litmus
    units = {
        "nj_1": "0404",
        "guards": {"hex": "0505", "steps_lost": 1},
        "dragoons": "0505",
    }
    combats = [fight(["nj_1"], ["guards", "dragoons"], "0404", "0505", AMERICAN)]
    retreated = {u.name: u.name == "dragoons" for u in game.rules.units}
    begin = {"procedure": "close_combat", "step": "begin", "bindings": {"combat": 0}}
    s = position(
        game,
        units,
        [begin],
        army_morale={AMERICAN: 15, BRITISH: 15},
        retreated=retreated,
        extra={"combats": combats},
    )
    assert not s.is_terminal() and s.stack[-1].proc == "close_combat"  # the chits
    # The rest of the combat as if the die had given AM to the British.
    data = to_json(s)
    data["stack"] = [
        data["stack"][0],
        *applying(("no_effect", "army_morale_loss"), "nj_1", "guards", AMERICAN),
    ]
    s = from_json(game, data)
    while not s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    assert s.vars["army_morale"][game.side_by_name[BRITISH]] == 14
    s.apply_action(4)
    assert "Morale Check: rolled 4, +1 Modified morale = 5." in s.messages
    finish(s)
    # The next combat begins at Fatigued: the Guards' morale of 1 (reduced) is 0.
    units = {"nj_1": "0404", "guards": {"hex": "0505", "steps_lost": 1}}
    s = position(
        game,
        units,
        [begin],
        army_morale=to_json(s)["vars"]["army_morale"],
        extra={"combats": [fight(["nj_1"], ["guards"], "0404", "0505", AMERICAN)]},
    )
    while not s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    s.apply_action(5)
    roll = next(m for m in s.messages if m.startswith("Close Combat Table:"))
    assert "Defender's lead unit morale" not in roll  # 1 − 1 = 0


def test_withdraw_and_the_flank_chits_have_their_conditions(litmus):
    """§ series 12.52: "Skirmish, Attack en Echelon, Stand Fast, Withdraw: No
    restriction. Exception: An all-infantry force may not choose the 'Withdraw'
    tactic in clear, field, or crops terrain if the attacking force contains
    any mounted units." "Turn Flank, Refuse Flank: There must be one empty hex
    adjacent to both players' units (one hex with defending units in it, and
    one hex with attacking units in it), AND a friendly Leader must be stacked
    with or adjacent to at least one unit involved in the Close Combat". An
    ineligible chit gives the opponent one in his favour (12.54)."""
    game = litmus
    # The Dragoons (mounted) attack the 1st N.J. in clear 1004: Attack en
    # Echelon against Withdraw is +1; the infantry's Withdraw is ineligible, +1
    # more. Scott's Rifles (light infantry) may withdraw.
    chits = ("Attack en Echelon", "Withdraw")
    for defender, tactics in (("nj_1", "+2 Tactics"), ("scott_rifles", "+1 Tactics")):
        units = {"dragoons": "1104", defender: "1004"}
        combats = [fight(["dragoons"], [defender], "1104", "1004", BRITISH)]
        [line] = tactics_in_each_combat(game, units, combats, chits, side=BRITISH)
        assert tactics in line, defender
    # The 1st N.J. (0404) attacks the Guards (0505): Turn Flank against
    # Skirmish is +1, with Lee there and the flank hexes 0504 and 0405.
    chits = ("Turn Flank", "Skirmish")
    combats = [fight(["nj_1"], ["guards"], "0404", "0505", AMERICAN)]
    units = {"nj_1": "0404", "lee": "0404", "guards": "0505"}
    [line] = tactics_in_each_combat(game, units, combats, chits)
    assert "+1 Tactics" in line
    # No leader: ineligible (+1 − 1).
    no_leader = {"nj_1": "0404", "guards": "0505"}
    [line] = tactics_in_each_combat(game, no_leader, combats, chits)
    assert "Tactics" not in line
    # Both flank hexes filled (the 2nd N.J. and the Grenadiers): ineligible.
    filled = {**units, "nj_2": "0405", "grenadiers": "0504"}
    [line] = tactics_in_each_combat(game, filled, combats, chits)
    assert "Tactics" not in line


# ---------------------------------------------------------------- Monmouth: more rifles, guns


@pytest.fixture(scope="module")
def monmouth(monmouth_package) -> Game:
    """Monmouth's campaign (its rifles and guns on both sides), from the
    session's one compilation of its rules."""
    return monmouth_package.load_game({"scenario": "campaign"})


def monmouth_position(game: Game, units: dict, stack: list, phasing: str) -> State:
    """A Monmouth position on turn 10 (units not named are not on the map)."""
    return from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": "monmouth",
            "vars": {"turn": 10, "phasing": phasing},
            "units": {n: {"hex": h} for n, h in units.items()},
            "stack": [{"procedure": "game", "step": "winner"}, *stack],
        },
    )


def test_rifle_fire_the_phasing_side_first_each_target_once_results_together(monmouth):
    """§ series 10.2: "The phasing player must select his target unit(s) before
    the non-phasing player selects his. If a unit chooses to fire, it must
    select an adjacent target combat unit. No unit may be the target of more
    than one Rifle Fire per phase." § series 10.4: "Rifle Fire is considered
    simultaneous. Results, including Army Morale adjustments, are applied at the
    same time after both sides have fired. The non-phasing player must execute
    any retreats before the phasing player." In the British Rifle Fire Phase,
    on open ground: the Jaeger Korps (0416) and v. Wurmb (0315) are next to
    Morgan's Riflemen (0316); the 1st New Jersey (0215) is next to v. Wurmb only."""
    game = monmouth
    british, american = game.side_by_name[BRITISH], game.side_by_name[AMERICAN]
    units = {
        "morgans_riflemen": "0316",
        "jaeger_korps": "0416",
        "wurmb_jaegers": "0315",
        "nj_1": "0215",
    }
    phase = rifle_fire(BRITISH)
    s = monmouth_position(game, units, [phase], BRITISH)
    assert s.current_player() == british  # the phasing player first
    assert options(s) == ["pass", "1st New Jersey", "Morgan's Riflemen"]
    answer(s, "Morgan's Riflemen")
    answer(s, "Jaeger Korps")
    answer(s, "Fire Jaeger Korps at Morgan's Riflemen? yes")
    answer(s, "Fire v. Wurmb at Morgan's Riflemen? no")
    s.apply_action(9)  # a hit
    s.apply_action(damage_face(game, "rifle_fire_damage", "retreat"))
    # v. Wurmb has not fired, and Morgan's Riflemen are next to it: fired on
    # once, they are not offered again.
    assert s.current_player() == british
    assert options(s) == ["pass", "1st New Jersey"]
    answer(s, "pass")
    # Morgan's Riflemen, their R not yet applied, fire back.
    assert s.current_player() == american
    assert hex_of(game, s, "morgans_riflemen") == "0316"
    answer(s, "Jaeger Korps")
    answer(s, "Fire Morgan's Riflemen at Jaeger Korps? yes")
    s.apply_action(9)
    s.apply_action(damage_face(game, "rifle_fire_damage", "retreat"))
    finish(s)
    retreats = [m for m in s.messages if " retreats " in m]
    assert [m.split(" retreats ")[0] for m in retreats] == ["Morgan's Riflemen", "Jaeger Korps"]


def test_guns_firing_together_total_their_sps_at_the_farthest_range(monmouth):
    """§ series 11.2: "No unit may be the target of more than one Defensive
    Artillery Fire per phase. If more than one artillery unit wants to fire at a
    unit, the number of SPs firing is totaled and the range of the farthest
    unit is used to determine the "To Hit" number." In the British player turn
    Randall's guns (1 SP, 0217) next to the 1st Grenadiers (0316) and Wells's (1
    SP, 0319) three hexes off, over open ground, fire at them."""
    game = monmouth
    units = {
        "grenadiers_1": "0316",
        "randall_artillery": "0217",
        "wells_artillery": "0319",
    }
    table = game.tables[game.rules.table_index("fire_table")]

    def to_hit(sps: int, hexes: int) -> int:
        row = next(r for r in table.rows if r.low <= sps <= (r.high or sps))
        return row.cells[table.columns.index(hexes)][0]

    phase = {
        "procedure": "defensive_artillery_fire_phase",
        "step": "fire",
        "bindings": {"side": BRITISH},
    }
    for wells, needed in (("yes", to_hit(2, 3)), ("no", to_hit(1, 1))):
        s = monmouth_position(game, units, [phase], BRITISH)
        answer(s, "1st Grenadiers")
        while not s.is_chance_node():
            texts = options(s)
            if "Fire Wells Artillery at 1st Grenadiers? yes" in texts:
                answer(s, f"Fire Wells Artillery at 1st Grenadiers? {wells}")
            elif "Fire Randall Artillery at 1st Grenadiers? yes" in texts:
                answer(s, "Fire Randall Artillery at 1st Grenadiers? yes")
            else:
                s.apply_action(s.legal_actions()[0])
        s.apply_action(0)  # a miss
        assert (
            f"Artillery Fire at 1st Grenadiers: 0 misses ({needed} or more needed)." in s.messages
        )
        # Wells's guns, ready or not, are never offered the same target again.
        assert s.is_terminal() or "1st Grenadiers" not in options(s)
    assert to_hit(2, 3) != to_hit(1, 1)


# ---------------------------------------------------------------- 12.14


def test_a_diversion_spares_one_stack_and_shifts_the_odds_of_its_neighbours(litmus):
    """§ series 12.14: "During each Close Combat phase, the phasing player may
    designate one stack of defending units as receiving a Diversion. The
    Attacker does not attack these defending units, but the adjacent Attacker's
    units that created the Diversion must attack some other enemy units. All
    attacking units which are adjacent to the defending units receiving the
    Diversion are penalized by having the odds in the Close Combat(s) in which
    they are involved shifted one column to the left". § series 13.1: "Pinned
    defending units may not receive a diversion." The 1st and 2nd N.J. (8 SPs,
    1004) are next to the Guards (1003) and the Grenadiers (4 SPs, 1104)."""
    game = litmus
    units = {"nj_1": "1004", "nj_2": "1004", "guards": "1003", "grenadiers": "1104"}
    phase = {"procedure": "close_combat_phase", "step": "designate", "bindings": {"side": AMERICAN}}
    s = position(game, units, [phase])
    assert {"place the Diversion on 1003", "place the Diversion on 1104"} <= set(options(s))
    answer(s, "place the Diversion on 1003")
    # The Guards are not attacked; the New Jersey regiments must attack the
    # Grenadiers (no pass, no second Diversion).
    assert options(s) == ["attack 1104 from 1004"]
    answer(s, "attack 1104 from 1004")
    table = game.tables[game.rules.table_index("close_combat_table")]
    while "odds" not in s.stack[-1].b:
        s.apply_action(s.legal_actions()[0])
    assert table.columns[s.stack[-1].b["odds"]] == (3, 2)  # 8 to 4 is 2:1, shifted left
    # Pinned, the Guards may not receive it.
    pinned = {u.name: u.name == "guards" for u in game.rules.units}
    s = position(game, units, [phase], pinned=pinned)
    assert "place the Diversion on 1003" not in options(s)
    assert "place the Diversion on 1104" in options(s)


# ---------------------------------------------------------------- 16.2


def test_the_army_morale_level_gives_the_initiative_drm(litmus):
    """§ series 16.21: "If an army is considered at High Morale the Initiative
    DRM for that army is +1"; 16.22: "If an army is Fatigued, the Initiative DRM
    for that army is 0"; 16.23: "If an army is Wavering, the Initiative DRM for
    that army is –1." (The litmus track: High from 15, Fatigued 10–14, Wavering
    1–9, provisional.) Both players roll a 5 for the initiative (6.1)."""
    game = litmus
    roll = [{"procedure": "initiative", "step": "roll"}]
    for american, british, winner in ((15, 12, AMERICAN), (12, 5, AMERICAN), (5, 12, BRITISH)):
        s = position(game, {}, roll, army_morale={AMERICAN: american, BRITISH: british})
        s.apply_action(5)
        s.apply_action(5)
        assert s.vars["initiative_side"] == game.side_by_name[winner], (american, british)
    drm = {
        level: dict(
            modifiers_of(
                position(
                    game,
                    {},
                    [],
                    army_morale={AMERICAN: level, BRITISH: 15},
                    extra={"terminal": True},
                ),
                "initiative_drm",
                {"side": game.side_by_name[AMERICAN]},
            )
        ).get("Army Morale", 0)
        for level in (15, 12, 5)
    }
    assert drm == {15: 1, 12: 0, 5: -1}


# ---------------------------------------------------------------- 10.3, 11.3


def fire_table_number(game: Game, sps: int, hexes: int) -> int:
    """The Fire Table's "To Hit" number for these SPs at this range."""
    table = game.tables[game.rules.table_index("fire_table")]
    row = next(r for r in table.rows if r.low <= sps <= (r.high or sps))
    return row.cells[table.columns.index(hexes)][0]


def test_the_fire_procedure_hits_on_the_to_hit_number_and_rolls_damage_unmodified(litmus):
    """§ series 10.3: "STEP 1: The firing player cross references his firing SPs
    on the "adjacent" column of the Fire Table to determine the "To Hit" number.
    STEP 2: ... The result is modified by all applicable DRMs given in the Fire
    Combat DRM Table. ... If it is equal to or greater than the "To Hit" number,
    a hit is scored. STEP 3: If a hit is scored, a second (unmodified) die roll
    is made on the Rifle Fire Damage Table ... After applying the results, make
    any Army Morale adjustments that are required." § series 11.3: "STEP 1: The
    firing player cross references his SPs with the range to the target on the
    Fire Table", steps 2 and 3 the same on the Artillery Fire Damage Table.
    The Guards stand in the orchard of 1003 (its DRM −1); Scott's Rifles (2
    SPs, first fire +1) fire from 0903, the American guns (2 SPs) from 0803,
    two hexes off."""
    game = litmus
    morale = {AMERICAN: 15, BRITISH: 15}
    rifles = rifle_fire()
    guns = {
        "procedure": "defensive_artillery_fire_phase",
        "step": "fire",
        "bindings": {"side": BRITISH},
    }
    cases = [
        # (units, phase, phasing, firer, table, "To Hit", the DRMs' total)
        (
            {"scott_rifles": "0903"},
            rifles,
            AMERICAN,
            "Scott's Rifles",
            "rifle_fire_damage",
            fire_table_number(game, 2, 1),
            0,
        ),
        (
            {"us_guns": "0803"},
            guns,
            BRITISH,
            "American Artillery",
            "artillery_fire_damage",
            fire_table_number(game, 2, 2),
            -1,
        ),
    ]
    for units, phase, phasing, firer, damage, needed, drm in cases:
        for face, hits in ((needed - drm, True), (needed - drm - 1, False)):
            s = position(
                game, {**units, "guards": "1003"}, [phase], phasing=phasing, army_morale=morale
            )
            answer(s, "Guards")
            answer(s, f"Fire {firer} at Guards? yes")
            s.apply_action(face)
            verdict = "hits" if hits else "misses"
            told = f"Fire at Guards: {face + drm} {verdict} ({needed} or more needed)."
            assert any(m.endswith(told) for m in s.messages), face
            if not hits:
                assert s.is_terminal()  # no damage roll
                continue
            am = damage_face(game, damage, "army_morale_loss")
            s.apply_action(am)
            named = game.rules.tables[game.rules.table_index(damage)].title
            assert any(m.startswith(f"{named}: rolled {am} = {am} →") for m in s.messages)
            finish(s)
            assert s.vars["army_morale"][game.side_by_name[BRITISH]] == 14


def test_terrain_costs_add_up_but_a_slope_creek_is_a_type_of_its_own(monmouth):
    """§ series 9.4: "All terrain effects of hexes and hexsides on movement are
    cumulative. Exceptions: Up Slope/Creek and Down Slope/Creek hexsides are
    each treated as a distinct combined terrain type as indicated on the
    Terrain Effect Chart (i.e. when reading Up Slope/Creek, ignore the Up Slope
    and Creek effects)." On Monmouth's map: the light forest of 0914 entered
    from 1014 and, across a creek, from 0913; the creek alone (0617 → 0618),
    a slope alone (1412 → 1511, up) and the slope/creek 1717 → 1718 (up), all
    between clear hexes. The costs are the TEC's (provisional)."""
    game = monmouth
    board = game.rules.board

    def spent(unit: str, start: str, to: str) -> int:
        phase = {"procedure": "movement_phase", "step": "move", "bindings": {"side": AMERICAN}}
        s = monmouth_position(game, {unit: start}, [phase], AMERICAN)
        return move(game, s, unit, to)["spent"]

    terrain = [t.name for t in game.rules.terrain]
    assert [terrain[board.terrain[game.hex_by_label[h]]] for h in ("0914", "1717", "1718")] == [
        "light_forest",
        "clear",
        "clear",
    ]
    # Infantry: the forest and the creek add up.
    creek = spent("nj_1", "0617", "0618") - spent("nj_1", "1716", "1717")
    assert creek > 0
    assert spent("nj_1", "0913", "0914") == spent("nj_1", "1014", "0914") + creek
    # Artillery (for which the combined type differs from the sum): up the
    # slope/creek it pays neither the slope's nor the creek's cost.
    clear = spent("randall_artillery", "1716", "1717")
    creek = spent("randall_artillery", "0617", "0618") - clear
    slope = spent("randall_artillery", "1412", "1511") - clear
    combined = spent("randall_artillery", "1717", "1718") - clear
    assert combined < slope + creek
    assert combined == 3  # the TEC's Up Slope/Creek for artillery
