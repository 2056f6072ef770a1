"""Series rules a rulebook review found played wrong, each on a position
written by hand on the litmus battle, each quoting the text it obeys."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import load_game
from engine import explain
from engine.los import distance
from engine.save import from_json, to_json
from engine.state import ON_MAP

LITMUS = Path(__file__).parent.parent / "data" / "litmus" / "base.mst"
AMERICAN, BRITISH = "american", "british"


def position(game, variables: dict, units: dict, stack: list, **extra):
    return from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": game.rules.name,
            "vars": {"army_morale": {AMERICAN: 15, BRITISH: 15}, **variables},
            "units": {n: {"hex": h} if isinstance(h, str) else h for n, h in units.items()},
            "stack": stack,
            **extra,
        },
    )


def combat(attackers, defenders, attack_hexes, defense_hexes, side=AMERICAN) -> dict:
    return {
        "side": side,
        "attackers": attackers,
        "defenders": defenders,
        "attack_hexes": attack_hexes,
        "defense_hexes": defense_hexes,
    }


def applying(result: list[str], attacker_lead: str, defender_lead: str, roll: int = 5) -> list:
    """A close combat of the American player about to apply its result (step 7;
    13.25's previously-retreated units are noted first)."""
    return [
        {"procedure": "game", "step": "winner"},
        {
            "procedure": "close_combat",
            "step": "previously_retreated",
            "bindings": {
                "combat": 0,
                "attacker": AMERICAN,
                "defender": BRITISH,
                "attacker_lead": attacker_lead,
                "defender_lead": defender_lead,
                "result": result,
                "modified_roll": roll,
            },
        },
    ]


def var(game, s, name: str, unit: str):
    return s.vars[name][game.unit_by_name[unit]]


def morale(game, s, side: str) -> int:
    return s.vars["army_morale"][game.side_by_name[side]]


def step(game, s, unit: str, to: str) -> int:
    u = game.unit_by_name[unit]
    d = game.rules.board.neighbors[s.unit_hex[u]].index(game.hex_by_label[to])
    return game.actions.step(u, d)


# nj_1 (0404) and nj_2 with Lee (0405) attack the Guards (0505): two attacking
# hexes, one defending hex, one close combat.
TWO_HEXES = {"nj_1": "0404", "nj_2": "0405", "lee": "0405", "guards": "0505"}
TWO_HEX_COMBAT = combat(["nj_1", "nj_2"], ["guards"], ["0404", "0405"], ["0505"])


def pinned_two_hex_combat(game):
    s = position(
        game,
        {"turn": 3, "phasing": AMERICAN},
        TWO_HEXES,
        applying(["pin", "pin"], "nj_1", "guards"),
        combats=[TWO_HEX_COMBAT],
    )
    return s


def test_a_pin_marks_every_hex_of_the_combat(litmus):
    """13.1 PIN: "A pinned marker is then placed on all hexes involved in this
    close combat." """
    s = pinned_two_hex_combat(litmus)
    for name in ("nj_1", "nj_2", "lee", "guards"):
        assert var(litmus, s, "pinned", name), name
    # One PIN result per side: the Americans' units share theirs (9.3 NOTE).
    groups = {var(litmus, s, "pin_group", n) for n in ("nj_1", "nj_2", "lee")}
    assert len(groups) == 1 and groups != {0}
    assert var(litmus, s, "pin_group", "guards") not in groups | {0}


def test_moving_pinned_units_away_costs_one_army_morale_per_pin_result(litmus):
    """9.3: "The phasing player must reduce his Army Morale by one if any pinned
    markers are removed." 13.1 PIN NOTE: "One Army Morale point is spent for
    EACH individual PIN result that is removed in this way." """
    game = litmus
    data = to_json(pinned_two_hex_combat(game))
    data["stack"] = [
        {"procedure": "game", "step": "winner"},
        {"procedure": "movement_phase", "step": "pin_cases", "bindings": {"side": AMERICAN}},
    ]
    data["vars"]["turn"] = 4
    data.update(terminal=False, winner=None, level=None, combats=[])
    s = from_json(game, data)
    before = morale(game, s, AMERICAN)
    s.apply_action(game.actions.option(1))  # case B for the Americans' PIN result
    # Case B: both pinned units (and Lee) leave the Guards.
    for unit, to in (("nj_1", "0304"), ("nj_2", "0306"), ("lee", "0306")):
        s.apply_action(step(game, s, unit, to))
        while s.stack[-1].proc != "move_units":
            s.apply_action(s.legal_actions()[0])
    s.apply_action(game.actions.PASS)
    assert not any(var(game, s, "pinned", n) for n in ("nj_1", "nj_2", "lee", "guards"))
    assert morale(game, s, AMERICAN) == before - 1
    assert morale(game, s, BRITISH) == 15  # the enemy's pins come off free


def on_map(game, s, name: str) -> bool:
    return s.unit_status[game.unit_by_name[name]] == ON_MAP


def options(s) -> list[str]:
    return [s.action_to_string(a) for a in s.legal_actions()]


def test_a_capture_takes_its_pick_of_every_hex_of_the_combat(litmus):
    """13.1 "DC": "One combat unit of the Defender's choice on the affected side
    is captured ... This unit does not have to be the lead unit ... The other
    friendly units in the close combat ... must make a morale check" — in a
    two-hex defence, both hexes."""
    game = litmus
    s = position(
        game,
        {"turn": 3, "phasing": AMERICAN},
        {"nj_1": "0404", "guards": "0505", "grenadiers": "0504"},
        applying(["no_effect", "captured_defender_choice"], "nj_1", "guards"),
        combats=[combat(["nj_1"], ["guards", "grenadiers"], ["0404"], ["0504", "0505"])],
    )
    assert s.current_player() == game.side_by_name[BRITISH]
    offered = options(s)
    assert any("Grenadiers" in o for o in offered) and any("Guards" in o for o in offered)
    s.apply_action(next(a for a in s.legal_actions() if "Grenadiers" in s.action_to_string(a)))
    assert s.unit_status[game.unit_by_name["grenadiers"]] != ON_MAP
    # The Guards, in the other hex, make their morale check: pass (a 9), retreat.
    while not s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    s.apply_action(9)
    while not s.is_chance_node() and s.stack and s.current_player() >= 0 and not s.is_terminal():
        if s.unit_hex[game.unit_by_name["guards"]] != game.hex_by_label["0505"]:
            break
        s.apply_action(s.legal_actions()[0])
    assert s.unit_hex[game.unit_by_name["guards"]] != game.hex_by_label["0505"]


def finish(s) -> None:
    """Play on, first choices and no chance, to the end of the position's stack."""
    while not s.is_terminal():
        s.apply_action(0 if s.is_chance_node() else s.legal_actions()[0])


@pytest.mark.parametrize("clinton", [None, "0504", "0505"])
def test_a_leader_casualty_with_no_leader_present_is_ignored(litmus, clinton):
    """13.1 "*": "The owning player removes one Leader and places it in the
    eliminated box. The Leader chosen need not be the one in command ... If no
    leader is present, ignore both the result and the Army Morale adjustment
    due to Leader casualty." """
    game = litmus
    units = {"nj_1": "0404", "guards": "0505", "grenadiers": "0504"}
    if clinton:
        units["clinton"] = clinton
    s = position(
        game,
        {"turn": 3, "phasing": AMERICAN},
        units,
        applying(["no_effect", "leader_casualty"], "nj_1", "guards"),
        combats=[combat(["nj_1"], ["guards", "grenadiers"], ["0404"], ["0504", "0505"])],
    )
    finish(s)
    chart = game.rules.tables[game.rules.table_index("army_morale_chart")]
    loss = next(cells[0][0] for _lo, _hi, key, cells in chart.rows if key == "leader_casualty")
    assert loss < 0
    if clinton is None:
        assert morale(game, s, BRITISH) == 15
    else:
        assert s.unit_status[game.unit_by_name["clinton"]] != ON_MAP
        assert morale(game, s, BRITISH) == 15 + loss


# ---------------------------------------------------------------- 12.23 step 3 on Monmouth


@pytest.fixture(scope="module")
def monmouth():
    from compiler.build import import_shipped

    return import_shipped("monmouth").load_game({"scenario": "campaign"})


def close_combat_drms(game, units: dict, attackers, defenders, a_hex, d_hex) -> dict[str, int]:
    from engine.tables import modifiers_of

    s = position(
        game,
        {"turn": 9, "phasing": BRITISH},
        units,
        [{"procedure": "game", "step": "winner"}],
        combats=[combat(attackers, defenders, [a_hex], [d_hex], side=BRITISH)],
        terminal=True,
    )
    u = game.unit_by_name
    bindings = {"combat": 0, "attacker_lead": u[attackers[0]], "defender_lead": u[defenders[0]]}
    return dict(modifiers_of(s, "close_combat_drm", {**bindings, "tactics": 0}))


def test_militia_with_non_militia_artillery_is_no_all_militia_force(monmouth):
    """12.23 step 3 NOTE: "Militia defending with non-militia artillery would not
    be considered an all-militia force even though the artillery does not
    participate in Close Combat nor serve as the lead unit." """
    alone = {"nj_militia_brigade": "1810", "light_infantry_1": "1811"}
    drms = close_combat_drms(
        monmouth, alone, ["light_infantry_1"], ["nj_militia_brigade"], "1811", "1810"
    )
    assert drms["All-militia defending force"] > 0
    with_guns = {**alone, "randall_artillery": "1810"}
    drms = close_combat_drms(
        monmouth,
        with_guns,
        ["light_infantry_1"],
        ["nj_militia_brigade", "randall_artillery"],
        "1811",
        "1810",
    )
    assert "All-militia defending force" not in drms


def test_white_r_rifles_suffer_the_rifle_drm_and_black_r_rifles_are_immune(monmouth):
    """12.23 step 3 NOTE: "Rifle units designated by a white letter "R" in a black
    circle will suffer adverse DRMs in Close Combat while those designated by a
    black letter "R" in a white circle are immune from adverse DRMs in Close
    Combat." """
    game = monmouth
    rifle = game.rules.unit_props["rifle"]
    assert rifle[game.unit_by_name["wurmb_jaegers"]] == "white"
    assert rifle[game.unit_by_name["morgans_riflemen"]] == "black"
    units = {"wurmb_jaegers": "1811", "morgans_riflemen": "1810"}
    drms = close_combat_drms(game, units, ["wurmb_jaegers"], ["morgans_riflemen"], "1811", "1810")
    assert drms["Attacking lead unit has a white R"] < 0  # adverse to the attacker
    assert "Defending lead unit has a white R" not in drms  # a black R is immune


# ---------------------------------------------------------------- 12.6 momentum


def resolving(game, momentum: dict, pool: int):
    """nj_1 attacks the Guards at 1:1, the die about to be rolled (step 5)."""
    return position(
        game,
        {"turn": 3, "phasing": AMERICAN, "momentum": momentum, "momentum_pool": pool},
        {"nj_1": "0404", "guards": "0505"},
        [
            {"procedure": "game", "step": "winner"},
            {
                "procedure": "close_combat",
                "step": "resolve",
                "bindings": {
                    "combat": 0,
                    "attacker": AMERICAN,
                    "defender": BRITISH,
                    "attacker_lead": "nj_1",
                    "defender_lead": "guards",
                    "odds": 2,
                    "tactics": 0,
                },
            },
        ],
        combats=[combat(["nj_1"], ["guards"], ["0404"], ["0505"])],
    )


def answer(s, yes: bool) -> None:
    s.apply_action(
        next(
            a for a in s.legal_actions() if s.action_to_string(a).endswith(" yes" if yes else " no")
        )
    )


def chits(game, s) -> tuple[int, int, int]:
    m = s.vars["momentum"]
    return m[game.side_by_name[AMERICAN]], m[game.side_by_name[BRITISH]], s.vars["momentum_pool"]


def test_the_player_with_fewer_chits_may_re_roll_first_then_the_other(litmus):
    """12.23 step 6: "The player holding the fewest Momentum Chits (the Defender
    in the case of a tie) may choose to spend one to return to the Resolve Close
    Combat step and re-roll the die. If this player declines to use momentum,
    the other player may choose to expend a Momentum Chit ... only one may be
    spent each time this step is reached." """
    game = litmus
    s = resolving(game, {AMERICAN: 1, BRITISH: 2}, 2)
    s.apply_action(5)
    assert s.current_player() == game.side_by_name[AMERICAN]  # fewest: one chit to two
    answer(s, yes=True)
    assert chits(game, s) == (0, 2, 3)  # 12.62: the spent chit returns to the pool
    assert s.is_chance_node()  # back to the Resolve step: the die again
    s.apply_action(6)
    # The American has none now; the British player may spend one.
    assert s.current_player() == game.side_by_name[BRITISH]
    answer(s, yes=False)
    assert chits(game, s) == (0, 2, 3)
    rolls = [m for m in s.messages if m.startswith("Close Combat Table")]
    assert len(rolls) == 2


def test_in_a_tie_the_defender_decides_first(litmus):
    game = litmus
    s = resolving(game, {AMERICAN: 1, BRITISH: 1}, 3)
    s.apply_action(5)
    assert s.current_player() == game.side_by_name[BRITISH]
    answer(s, yes=False)
    assert s.current_player() == game.side_by_name[AMERICAN]


@pytest.mark.parametrize(("roll", "gains"), [(-1, BRITISH), (10, AMERICAN), (4, None)])
def test_a_final_roll_of_minus_one_or_ten_gains_a_momentum_chit(litmus, roll, gains):
    """12.23 step 8 and 12.63: "If the final modified Close Combat die roll is
    less than or equal to -1, the Defender gains one Momentum Chit. If the final
    modified Close Combat die roll is greater than or equal to 10, the Attacker
    gains one Momentum Chit." """
    game = litmus
    s = position(
        game,
        {"turn": 3, "phasing": AMERICAN, "momentum_pool": 5},
        {"nj_1": "0404", "guards": "0505"},
        applying(["no_effect", "no_effect"], "nj_1", "guards", roll=roll),
        combats=[combat(["nj_1"], ["guards"], ["0404"], ["0505"])],
    )
    finish(s)
    american, british, pool = chits(game, s)
    assert (american, british) == {
        BRITISH: (0, 1),
        AMERICAN: (1, 0),
        None: (0, 0),
    }[gains]
    assert pool == 5 - (gains is not None)


def test_a_plus_two_unit_captured_by_a_pin_costs_its_owner_a_chit(litmus):
    """12.64: "If a unit with a printed unit morale of +2 is captured while it is
    at full strength, the owning player must return one Momentum Chit to the
    pool." 13.1 PIN: "All disrupted and shattered units on both sides are
    captured." """
    game = litmus
    guards = game.unit_by_name["guards"]
    assert game.rules.units[guards].morales[0] == 2
    order = {u.name: "parade_order" for u in game.rules.units} | {"guards": "disrupted"}
    s = position(
        game,
        {
            "turn": 3,
            "phasing": AMERICAN,
            "momentum": {AMERICAN: 0, BRITISH: 1},
            "momentum_pool": 4,
            "order": order,
        },
        {"nj_1": "0404", "guards": "0505"},
        applying(["no_effect", "pin"], "nj_1", "guards"),
        combats=[combat(["nj_1"], ["guards"], ["0404"], ["0505"])],
    )
    finish(s)
    assert s.unit_status[guards] != ON_MAP
    assert chits(game, s) == (0, 0, 5)


# ---------------------------------------------------------------- 13.25


def test_a_unit_retreating_into_an_unresolved_combat_joins_it_and_checks_morale(litmus):
    """13.25: "If a unit retreats from a Close Combat into a hex which has not yet
    had its Close Combat resolved, it may not contribute any strength to that
    Close Combat, nor may it be selected as the lead unit. If its side suffers
    any result in the Close Combat, the previously-retreated unit must make a
    morale check. If it passes, it must retreat one hex; if it fails, it
    suffers a "D" result (per 13.1)." """
    game = litmus
    u = game.unit_by_name
    # The (reduced) Guards in 0604 can retreat only into the forest of 0603
    # (a ZOC does not extend into forest, 8.1), where the Rear Guard Foot
    # awaits combat 1; every other hex is occupied or in an American ZOC.
    units = {
        "nj_1": "0504",
        "scott_rifles": "0705",
        "us_guns": "0505",
        "nj_2": "0503",
        "guards": {"hex": "0604", "steps_lost": 1},
        "rear_guard_foot": "0603",
    }
    combats = [
        combat(["nj_1"], ["guards"], ["0504"], ["0604"]),
        combat(["nj_2"], ["rear_guard_foot"], ["0503"], ["0603"]),
    ]
    s = position(
        game,
        {"turn": 3, "phasing": AMERICAN},
        units,
        applying(["no_effect", "retreat"], "nj_1", "guards"),
        combats=combats,
    )
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    assert s.unit_hex[u["guards"]] == game.hex_by_label["0603"]
    assert u["guards"] in s.combats[1].defenders  # it joined combat 1
    data = to_json(s)
    data.update(terminal=False, winner=None, level=None)
    data["stack"] = applying(["no_effect", "retreat"], "nj_2", "rear_guard_foot")
    data["stack"][1]["bindings"]["combat"] = 1
    s = from_json(game, data)
    # The Rear Guard Foot retreats (R); then the Guards check morale.
    while not s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    assert s.unit_hex[u["rear_guard_foot"]] != game.hex_by_label["0603"]
    assert s.unit_hex[u["guards"]] == game.hex_by_label["0603"]
    s.apply_action(0)  # 0 + its morale of 1 fails (13.5): a "D", three hexes and disrupted
    while not s.is_terminal():
        s.apply_action(0 if s.is_chance_node() else s.legal_actions()[0])
    assert to_json(s)["vars"]["order"]["guards"] == "disrupted"
    assert distance(game.rules.board, s.unit_hex[u["guards"]], game.hex_by_label["0603"]) == 3


# ---------------------------------------------------------------- 12.3, 12.4: straight to step 9


def at_odds(game, units: dict, defenders: list[str], d_hex: str):
    """nj_1 in 0404 attacks; the odds are about to be determined (step 1)."""
    return position(
        game,
        {"turn": 3, "phasing": AMERICAN},
        units,
        [
            {"procedure": "game", "step": "winner"},
            {
                "procedure": "close_combat",
                "step": "odds",
                "bindings": {
                    "combat": 0,
                    "attacker": AMERICAN,
                    "defender": BRITISH,
                    "attacker_lead": None,
                },
            },
        ],
        combats=[combat(["nj_1"], defenders, ["0404"], [d_hex])],
    )


def test_artillery_alone_is_captured_and_the_attacker_may_advance(litmus):
    """12.3: "If the only defending units are artillery, they are captured. Place
    all the defending artillery units in the captured box and skip to step 9."
    Step 9: "Other units which participated may advance up to the stacking
    limit." """
    game = litmus
    s = at_odds(game, {"nj_1": "0404", "gb_guns": "0505"}, ["gb_guns"], "0505")
    assert s.unit_status[game.unit_by_name["gb_guns"]] != ON_MAP
    assert s.current_player() == game.side_by_name[AMERICAN]
    offered = options(s)
    assert any("0505" in o for o in offered) and len(offered) == 2  # 0505, or stay
    s.apply_action(next(a for a in s.legal_actions() if "0505" in s.action_to_string(a)))
    assert s.unit_hex[game.unit_by_name["nj_1"]] == game.hex_by_label["0505"]


def test_withdrawn_cavalry_never_ends_next_to_the_enemy_and_the_attacker_may_advance(litmus):
    """12.4: "his mounted cavalry retreats three hexes to a hex not adjacent to an
    enemy unit. Mark the unit(s) with a Cavalry Withdrawal marker and go straight
    to step 9 of the Close Combat procedure." 13.24: "Cavalry Withdrawal (12.4)
    may never end adjacent to an enemy unit." """
    game = litmus
    u = game.unit_by_name
    s = at_odds(game, {"nj_1": "0404", "dragoons": "0505"}, ["dragoons"], "0505")
    answer(s, yes=True)  # the Defender withdraws
    while s.current_player() == game.side_by_name[BRITISH]:
        s.apply_action(s.legal_actions()[0])
    assert s.vars["withdrawn"][u["dragoons"]]
    hexes = distance(game.rules.board, s.unit_hex[u["dragoons"]], game.hex_by_label["0505"])
    assert hexes == 3
    # The Attacker may advance into the vacated hex.
    assert any("0505" in o for o in options(s))


def test_withdrawing_cavalry_with_nowhere_clear_of_the_enemy_is_captured(litmus):
    """13.24: "Cavalry Withdrawal (12.4) may never end adjacent to an enemy
    unit." In the corner at 2410, every hex three hexes away is next to one of
    two disrupted American units (no ZOC, 13.3, so nothing blocks the way)."""
    game = litmus
    u = game.unit_by_name
    order = {x.name: "parade_order" for x in game.rules.units}
    order |= {"nj_1": "disrupted", "nj_2": "disrupted", "scott_rifles": "disrupted"}
    s = position(
        game,
        {"turn": 3, "phasing": AMERICAN, "order": order},
        {"nj_1": "2409", "nj_2": "2209", "scott_rifles": "2307", "dragoons": "2410"},
        [
            {"procedure": "game", "step": "winner"},
            {
                "procedure": "close_combat",
                "step": "odds",
                "bindings": {
                    "combat": 0,
                    "attacker": AMERICAN,
                    "defender": BRITISH,
                    "attacker_lead": None,
                },
            },
        ],
        combats=[combat(["nj_1"], ["dragoons"], ["2409"], ["2410"])],
    )
    answer(s, yes=True)
    while s.current_player() == game.side_by_name[BRITISH]:
        s.apply_action(s.legal_actions()[0])
    assert s.unit_status[u["dragoons"]] != ON_MAP


# ---------------------------------------------------------------- 10.6


def jaegers_firing(game, at: str, target_at: str):
    """The Jaeger Korps fire at 1st N.J. (series 10.3 step 2, the die about to be rolled)."""
    return position(
        game,
        {"turn": 9, "phasing": BRITISH},
        {"jaeger_korps": at, "nj_1": target_at},
        [
            {"procedure": "game", "step": "winner"},
            {
                "procedure": "rifle_fire",
                "step": "to_hit",
                "bindings": {"target": "nj_1", "side": BRITISH, "firers": ["jaeger_korps"]},
            },
        ],
    )


@pytest.mark.parametrize(
    ("at", "target_at", "twice"), [("0608", "0607", True), ("0202", "0201", False)]
)
def test_the_jaegers_roll_twice_out_of_the_clear_with_an_open_flank(monmouth, at, target_at, twice):
    """10.6: "The German Jaegers may make two die rolls against their "To Hit"
    number if: they are not in a clear or crops hex, and there is an open flank
    as defined in the Turn Flank requirements (12.52). Both die rolls must be
    against the same target and only one hit will result in a damage die
    roll." """
    game = monmouth
    s = jaegers_firing(game, at, target_at)
    assert s.is_chance_node()
    s.apply_action(0)  # a miss
    assert s.is_chance_node() is twice
    if twice:
        s.apply_action(9)  # the second roll hits: one damage roll
        assert s.is_chance_node()
        s.apply_action(0)
        assert not s.is_chance_node()


# ---------------------------------------------------------------- 7.3, 9.61


def test_reinforcements_still_overstacked_at_the_end_of_the_player_turn_lose_steps(litmus):
    """9.61: "Reinforcements may be placed in excess of stacking limits, but the
    units must obey normal stacking limits as soon as they leave the entry hex,
    or by the end of the player turn of entry." 7.3: "the owning player must
    eliminate enough steps to meet the stacking limit ... Step losses taken for
    this reason impact Army Morale and Victory Points as if they were lost in
    combat." """
    game = litmus
    u = game.unit_by_name
    s = position(
        game,
        {"turn": 6, "phasing": AMERICAN},
        {"nj_1": "0105", "nj_2": "0105", "guards": "2004"},  # eight SPs at A-1
        [
            {"procedure": "game", "step": "winner"},
            {"procedure": "player_turn", "step": "close_combat", "bindings": {"side": AMERICAN}},
        ],
    )
    vp = s.vars["vp"][game.side_by_name[BRITISH]]
    assert s.current_player() == game.side_by_name[AMERICAN]
    offered = options(s)
    assert any("1st N.J." in o for o in offered) and any("2nd N.J." in o for o in offered)
    s.apply_action(s.legal_actions()[0])
    finish(s)
    assert sorted(s.unit_loss[u[n]] for n in ("nj_1", "nj_2")) == [0, 1]  # 4 + 2 = 6 SPs
    chart = game.rules.tables[game.rules.table_index("army_morale_chart")]
    loss = next(cells[0][0] for _lo, _hi, key, cells in chart.rows if key == "one_step_loss")
    assert morale(game, s, AMERICAN) == 15 + loss
    assert s.vars["vp"][game.side_by_name[BRITISH]] > vp


# ---------------------------------------------------------------- Monmouth 4.7


@pytest.mark.parametrize(
    ("attacker", "advances"), [("light_infantry_1", False), ("grenadiers_1", True)]
)
def test_the_rear_guard_at_the_limit_does_not_advance_and_others_do(monmouth, attacker, advances):
    """Monmouth 4.7: "Rear Guard units that attack while at the Maneuver Zone
    limit cannot advance after combat. This is an exception to Series Rule 12.23
    Step 9." Everything else of step 9 holds: after series 12.3's capture of
    lone artillery the Attacker may advance (3323 is on the limit)."""
    game = monmouth
    s = position(
        game,
        {"turn": 4, "phasing": BRITISH},
        {attacker: "3323", "randall_artillery": "3322"},
        [
            {"procedure": "game", "step": "winner"},
            {
                "procedure": "close_combat",
                "step": "odds",
                "bindings": {
                    "combat": 0,
                    "attacker": BRITISH,
                    "defender": AMERICAN,
                    "attacker_lead": None,
                },
            },
        ],
        combats=[combat([attacker], ["randall_artillery"], ["3323"], ["3322"], side=BRITISH)],
    )
    assert s.unit_status[game.unit_by_name["randall_artillery"]] != ON_MAP
    offered = [] if s.is_terminal() else options(s)
    assert any("3322" in o for o in offered) is advances


def test_the_rear_guard_exception_keeps_the_rest_of_step_9(monmouth):
    """Monmouth 4.7's exception to series 12.23 step 9 changes only who may not
    advance: a battle's `may_advance` (here: never into clear) still holds."""
    game = load_game(
        Path(__file__).parent.parent / "data" / "findings" / "monmouth_no_advance_into_clear.mst"
    )
    s = position(
        game,
        {"turn": 4, "phasing": BRITISH},
        {"grenadiers_1": "3323", "randall_artillery": "3322"},
        [
            {"procedure": "game", "step": "winner"},
            {
                "procedure": "close_combat",
                "step": "odds",
                "bindings": {
                    "combat": 0,
                    "attacker": BRITISH,
                    "defender": AMERICAN,
                    "attacker_lead": None,
                },
            },
        ],
        combats=[combat(["grenadiers_1"], ["randall_artillery"], ["3323"], ["3322"], side=BRITISH)],
    )
    assert s.unit_status[game.unit_by_name["randall_artillery"]] != ON_MAP
    assert s.is_terminal()  # no advance into the clear hex 3322 was offered


# ---------------------------------------------------------------- Monmouth 4.64


@pytest.mark.parametrize(("first", "intact_from"), [(BRITISH, 7), (AMERICAN, 8)])
def test_lee_relieved_in_a_british_player_turn_lifts_c_and_c_at_the_next_american_one(
    monmouth, first, intact_from
):
    """Monmouth 4.64: "Lee is relieved as soon as he and Washington occupy the
    same hex ... C&C restrictions are lifted at the beginning of the next American
    player turn." Relieved in the British player turn of turn 7: if the British
    moved first, the next American player turn is turn 7's own."""
    from engine import effects, interpreter

    game = monmouth
    s = position(
        game,
        {"turn": 7, "phasing": BRITISH, "initiative_side": first},
        {"lee": "2115", "washington": "2015", "grenadiers_1": "3323"},
        [
            {"procedure": "game", "step": "winner"},
            {"procedure": "movement_phase", "step": "move", "bindings": {"side": BRITISH}},
        ],
    )
    effects.advance_to(s, game.unit_by_name["lee"], game.hex_by_label["2015"])  # Lee falls back
    interpreter.advance(s)
    assert s.vars["lee_relieved"] is True
    assert s.vars["cc_intact_from"] == intact_from


# ---------------------------------------------------------------- Newtown 5.9


@pytest.fixture(scope="module")
def newtown():
    from compiler.build import import_shipped

    return import_shipped("newtown").load_game()


def test_an_indian_evades_through_a_zoc_only_when_blocked(newtown):
    """Newtown 5.9: "If retreating Indian units are blocked by enemy ZOC, the
    Indian unit enters the ZOC hex and performs a morale check". Little Billy in
    0110 retreats one hex: 0210 (toward Newtown, 3.2.1) lies in the ZOC of the
    N.Y. battalion in 0310; 0109 and 0111 are open — so he is not blocked, and
    takes one of them."""
    game = newtown
    s = position(
        game,
        {"turn": 3, "phasing": "american", "army_morale": {"american": 15, "indian": 15}},
        {"little_billy": "0110", "provisional_ny": "0310"},
        [
            {"procedure": "game", "step": "winner"},
            {
                "procedure": "retreat_unit",
                "step": "start",
                "bindings": {"unit": "little_billy", "hexes": 1},
            },
        ],
    )
    offered = options(s)
    assert "0111" in offered and "0210" not in offered
    while not s.is_terminal() and not s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    assert not s.is_chance_node()  # no evasion morale check
    billy = s.unit_hex[game.unit_by_name["little_billy"]]
    assert game.rules.board.labels[billy] in offered


def test_the_fieldworks_morale_modifier_is_named_in_the_account(newtown):
    """Series 13.5: "+1 Defending units attacked solely across unbreached fieldwork
    hexsides". The +1 travels from the close combat through the result and the
    morale checks of the other defenders (`morale_drm`, `drm`) into the morale
    check's own catch-all entry; the account names it by the define the close
    combat passed, not as "Other modifiers of this check". Walter Butler and Red
    Jacket in 3416 are attacked across the breastwork (fieldworks, Newtown 2.5.3)
    from 3516 and retreat: Red Jacket checks morale."""
    game = newtown
    stack = applying(["no_effect", "retreat"], "first_nj", "walter_butler")
    stack[1]["bindings"]["defender"] = "indian"
    s = position(
        game,
        {"turn": 3, "phasing": "american", "army_morale": {"american": 15, "indian": 15}},
        {"walter_butler": "3416", "red_jacket": "3416", "first_nj": "3516"},
        stack,
        combats=[combat(["first_nj"], ["walter_butler", "red_jacket"], ["3516"], ["3416"])],
    )
    while not s.is_chance_node():
        s.apply_action(s.legal_actions()[0])
    preview = explain.roll_preview(s)
    assert preview is not None
    assert [(m.label, m.amount, m.cite) for m in preview.modifiers] == [
        ("Attacked solely across fieldworks", 1, "§ series 13.5")
    ]
    s.messages.clear()
    s.apply_action(6)
    checks = [m for m in s.messages if m.startswith("Morale Check")]
    named = "Morale Check: rolled 6, +1 Attacked solely across fieldworks = 7."
    assert checks == [named], s.messages
