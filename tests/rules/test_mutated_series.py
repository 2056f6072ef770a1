"""A mutated copy of the series rules, and the engine obeys every change.

The series' rule files are copied and seven of their rules changed — the
stacking limit 4 instead of six SPs (7.1), morale checks passing on 6
instead of 5 (13.5), a `D` retreating two hexes instead of three (13.1), a
six-sided die 1–6 instead of the ten-sided 0–9 (2.3), no one-hex minimum
(9.1), strategic movement at three times the allowance instead of twice
(9.52), the lowest-ranking leader in command instead of the highest (14.1).
The litmus battle (tests/data/litmus, which takes the series' die) is played
on the copy and on the shipped series from the same position: each change
shows in play, so none of these rules is held in Python.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compiler.backends.engine_codegen import generate
from compiler.build import load_generated
from compiler.check import compile_ruleset
from engine.save import from_json
from engine.state import State
from tests.conftest import RULESETS

DATA = Path(__file__).parent.parent / "data"

# (file, text in the shipped series, its mutation): each text occurs once.
MUTATIONS = [
    (
        "stacking.mst",
        "sum(units where counts_for_stacking(it) and not artillery, strength) <= 6",
        "sum(units where counts_for_stacking(it) and not artillery, strength) <= 4",
    ),
    ("morale.mst", "step result: set passed = total >= 5", "step result: set passed = total >= 6"),
    ("results.mst", "call retreat_unit(unit, 3)", "call retreat_unit(unit, 2)"),
    ("ruleset.mst", "die 0..9 ", "die 1..6 "),
    (
        "movement.mst",
        'define one_hex_minimum(u: unit) "May always move one hex" § series 9.1 = yes',
        'define one_hex_minimum(u: unit) "May always move one hex" § series 9.1 = no',
    ),
    (
        "movement.mst",
        '"Strategic movement: times the allowance" § series 9.52 = 2',
        '"Strategic movement: times the allowance" § series 9.52 = 3',
    ),
    (
        "leaders.mst",
        "lowest(commanders(u) where rank == max(commanders(u), rank), seniority)",
        "lowest(commanders(u) where rank == min(commanders(u), rank), seniority)",
    ),
]

AWAY = {
    "nj_1": "0209",
    "nj_2": "0210",
    "scott_rifles": "0309",
    "us_guns": "0310",
    "lee": "0209",
    "slow_foot": "0409",
    "guards": "2408",
    "grenadiers": "2409",
    "dragoons": "2410",
    "gb_guns": "2308",
    "rear_guard_foot": "2309",
    "clinton": "2408",
}


def build(folder: Path):
    rules, _ = compile_ruleset(folder / "mutated" / "battle.mst")
    return load_generated(generate(rules), rules.name)


@pytest.fixture(scope="module")
def games(packages) -> dict:
    return {kind: package.load_game() for kind, package in packages.items()}


@pytest.fixture(scope="module")
def packages(tmp_path_factory) -> dict:
    """The litmus battle's engine on the shipped series and on the mutated copy."""
    out = {}
    for kind in ("shipped", "mutated"):
        root = tmp_path_factory.mktemp(kind)
        shutil.copytree(RULESETS / "series", root / "series")
        shutil.copytree(DATA / "litmus", root / "litmus")
        shutil.copytree(DATA / "mutated", root / "mutated")
        if kind == "mutated":
            for name, old, new in MUTATIONS:
                path = root / "series" / name
                text = path.read_text(encoding="utf-8")
                assert text.count(old) == 1, f"{name}: the series no longer says {old!r}"
                path.write_text(text.replace(old, new), encoding="utf-8")
        out[kind] = build(root)
    return out


def position(game, units: dict, stack: list, phasing: str = "american", **variables) -> State:
    return from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": "litmus",
            "vars": {"turn": 3, "phasing": phasing, **variables},
            "units": {name: {"hex": h} for name, h in {**AWAY, **units}.items()},
            "stack": [{"procedure": "game", "step": "winner"}, *stack],
        },
    )


def movement(game, units: dict) -> State:
    phase = {"procedure": "movement_phase", "step": "move", "bindings": {"side": "american"}}
    return position(game, units, [phase])


def may_step(game, s: State, unit: str, to: str) -> bool:
    u = game.unit_by_name[unit]
    d = game.rules.board.neighbors[s.unit_hex[u]].index(game.hex_by_label[to])
    return game.actions.step(u, d) in s.legal_actions()


def per_unit(game, value, **overrides) -> dict:
    return {name: overrides.get(name, value) for name in game.unit_by_name}


@pytest.mark.parametrize(("kind", "fits"), [("shipped", True), ("mutated", False)])
def test_the_stacking_limit(games, kind, fits):
    """§ series 7.1, 7.2: four SPs joining two make six: within the series' limit,
    over the mutated four."""
    game = games[kind]
    s = movement(game, {"nj_1": "0204", "scott_rifles": "0205"})
    assert may_step(game, s, "nj_1", "0205") is fits


@pytest.mark.parametrize(("kind", "passes"), [("shipped", True), ("mutated", False)])
def test_the_morale_check_threshold(games, kind, passes):
    """§ series 13.5, 15.1: a disrupted unit of morale 0 rolls a 5 to rally: 5 passes
    in the series, the mutated check needs 6."""
    game = games[kind]
    s = position(
        game,
        {"us_guns": "0504"},
        [{"procedure": "rally_phase", "step": "rally", "bindings": {"side": "american"}}],
        order=per_unit(game, "parade_order", us_guns="disrupted"),
    )
    while not s.is_chance_node():
        s.apply_action(s.legal_actions()[-1])
    s.apply_action(5)
    assert (s.vars["order"][game.unit_by_name["us_guns"]] == "parade_order") is passes


@pytest.mark.parametrize(("kind", "faces"), [("shipped", range(10)), ("mutated", range(1, 7))])
def test_the_die(games, kind, faces):
    """§ series 2.3: every roll is of the series' die: 0–9, or the mutated 1–6."""
    game = games[kind]
    s = position(
        game,
        {"us_guns": "0504"},
        [{"procedure": "rally_phase", "step": "rally", "bindings": {"side": "american"}}],
        order=per_unit(game, "parade_order", us_guns="disrupted"),
    )
    while not s.is_chance_node():
        s.apply_action(s.legal_actions()[-1])
    outcomes = s.chance_outcomes()
    assert [o for o, _p in outcomes] == list(faces)
    assert all(p == pytest.approx(1 / len(faces)) for _o, p in outcomes)


@pytest.mark.parametrize(("kind", "hexes"), [("shipped", 3), ("mutated", 2)])
def test_a_disruption_retreats_the_series_distance(games, kind, hexes):
    """§ series 13.1, 13.24: a "D" retreats the unit three hexes by the shortest
    distance (the mutated series: two). Rifle fire scores a D on the Grenadiers
    (4 SPs: within the mutated stacking limit too, so they may retreat at all)."""
    game = games[kind]
    units = {"grenadiers": "1104", "scott_rifles": "1004"}
    phase = {"procedure": "rifle_fire_phase", "step": "phasing_fire"}
    s = position(game, units, [{**phase, "bindings": {"side": "american"}}])
    while not s.is_chance_node():
        by_text = {s.action_to_string(a): a for a in s.legal_actions()}
        fire = next(
            (a for t, a in by_text.items() if t.startswith("Fire ") and t.endswith("? yes")), None
        )
        s.apply_action(fire if fire is not None else s.legal_actions()[-1])
    s.apply_action(s.chance_outcomes()[-1][0])  # the highest face hits
    s.apply_action(2)  # a 2 on the Rifle Fire Damage Table: D
    while not s.is_terminal():
        s.apply_action(s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[0])
    cube = game.rules.board.cube
    grenadiers = game.unit_by_name["grenadiers"]
    a, b = cube[game.hex_by_label["1104"]], cube[s.unit_hex[grenadiers]]
    assert max(abs(x - y) for x, y in zip(a, b, strict=True)) == hexes
    assert s.vars["order"][grenadiers] == "disrupted"


@pytest.mark.parametrize(("kind", "enters"), [("shipped", True), ("mutated", False)])
def test_the_one_hex_minimum(games, kind, enters):
    """§ series 9.1: "A unit may always move one hex": Slow Foot (2 MP) may enter the
    forest (3 MP) in the series, not in the mutated copy."""
    game = games[kind]
    s = movement(game, {"slow_foot": "0703"})
    assert may_step(game, s, "slow_foot", "0603") is enters


@pytest.mark.parametrize(("kind", "hexes"), [("shipped", 8), ("mutated", 12)])
def test_strategic_movement_reaches_the_series_multiple(games, kind, hexes):
    """§ series 9.52: "up to twice its printed movement allowance" along the road:
    a 4 MP unit goes 8 road hexes (the mutated series: three times, 12)."""
    game = games[kind]
    s = movement(game, {"nj_1": "0205"})
    u = game.unit_by_name["nj_1"]
    s.apply_action(game.actions.unit(u))  # choose the unit: it moves strategically
    moved = 0
    while True:
        column = int(game.rules.board.labels[s.unit_hex[u]][:2])
        ahead = f"{column + 1:02d}05"
        if not may_step(game, s, "nj_1", ahead):
            break
        d = game.rules.board.neighbors[s.unit_hex[u]].index(game.hex_by_label[ahead])
        s.apply_action(game.actions.step(u, d))
        moved += 1
    assert moved == hexes


@pytest.mark.parametrize(("kind", "commander"), [("shipped", "washington"), ("mutated", "lee")])
def test_the_leader_in_command(packages, games, kind, commander):
    """§ series 14.1: "only the highest ranking leader" commands the units in his
    hex: Washington (three stars) over Lee (two) with the 1st N.J.; the mutated
    series puts the lowest ranking in command."""
    game = games[kind]
    s = position(game, {"nj_1": "0504", "lee": "0504", "washington": "0504"}, [])
    chosen = packages[kind].rules.define__leader_of(s, game.unit_by_name["nj_1"])
    assert chosen == game.unit_by_name[commander]
