"""Monmouth's facts, transcribed from the rulebook, found cited and not provisional in the IR.

`tests/data/monmouth/facts.json` holds values the rulebook's text gives — each
scenario's length, Army Morale, Momentum, first-turn order, rules not used and
special rules; the clock times and Heat Game Turns of the track; the victory
conditions with their hexes and numbers; Lee's hex row and penalties; the
entries the text gives; seniority; ranges; the expiries of restrictions —
each with the section that gives it. Every one is looked up in `muster dump`
of the battle and must be there, cited to that section, and not provisional.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from muster.dump import dump
from tests.conftest import ROOT, compiled, rulebook

RULEBOOK = rulebook("monmouth.txt")
FACTS = json.loads((ROOT / "tests" / "data" / "monmouth" / "facts.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def ir() -> dict:
    return json.loads(dump(compiled("monmouth")[0]))


def named(items: list[dict], name: str) -> dict:
    found = [x for x in items if x.get("name") == name]
    assert len(found) == 1, f"{name}: {len(found)} found"
    return found[0]


def assert_cited(prov: dict, section: str | None, what: str) -> None:
    """Cited to `§ monmouth SECTION` (or at least cited) and not provisional."""
    cites = {(c["document"], c["section"]) for c in prov["cites"]}
    assert prov["provisional"] is None, f"{what} is provisional: {prov['provisional']}"
    if section is not None:
        assert ("monmouth", section) in cites, (
            f"{what} is not cited to § monmouth {section}: {cites}"
        )
    else:
        assert cites, f"{what} is not cited"


def constants(node: Any) -> list[tuple[str, Any]]:
    """Every constant in a dumped expression or statement tree: (type, value); a
    negated number counts as the negative number."""
    out: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        if node.get("node") == "Unary" and node.get("op") == "-":
            inner = node["operand"]
            if inner.get("node") == "Const" and inner["type"] in ("int", "number"):
                return [
                    (
                        inner["type"],
                        -inner["value"] if inner["type"] == "int" else f"-{inner['value']}",
                    )
                ]
        if node.get("node") == "Const":
            out.append((node["type"], node["value"]))
        for key, value in node.items():
            if key not in ("span", "prov"):
                out.extend(constants(value))
    elif isinstance(node, list):
        for item in node:
            out.extend(constants(item))
    return out


def numbers(node: Any) -> set:
    return {v for t, v in constants(node) if t in ("int", "number")}


def hexes(node: Any) -> set:
    return {v for t, v in constants(node) if t == "hex"}


def side_value(values: list[dict], variable: str) -> tuple[dict, dict]:
    out, provs = {}, {}
    for v in values:
        if v["variable"] == variable:
            side = v["index"]["value"]
            out[side] = v["value"]["value"]
            provs[side] = v["prov"]
    return out, provs


# ---------------------------------------------------------------- scenarios


@pytest.mark.parametrize("name", sorted(FACTS["scenarios"]))
def test_scenario_facts(ir, name):
    facts = FACTS["scenarios"][name]
    sc = named(ir["scenarios"], name)

    turns, section = facts["turns"]
    assert sc["turns"] == turns
    assert_cited(sc["provs"]["turns"], section, f"{name} turns")

    for variable in ("army_morale", "momentum"):
        expected, section = facts[variable]
        values, provs = side_value(sc["values"], variable)
        assert values == expected, f"{name} {variable}"
        for side, prov in provs.items():
            assert_cited(prov, section, f"{name} {variable} {side}")

    for turn, (sides, section) in facts["orders"].items():
        assert sc["orders"][turn] == sides, f"{name} order of turn {turn}"
        assert_cited(sc["provs"][f"order {turn}"], section, f"{name} order of turn {turn}")

    for key, field in (("rules_not_used", "rules_off"), ("special_rules", "rules_on")):
        rules, section = facts[key]
        assert sorted(sc[field]) == sorted(rules), f"{name} {key}"
        if rules:
            assert_cited(sc["provs"][key], section, f"{name} {key}")


def test_the_first_scenario_is_the_campaign(ir):
    assert ir["scenarios"][0]["name"] == "campaign"
    assert ir["turns"] == [1, 14]


# ---------------------------------------------------------------- the game-turn track


def test_clock_times_and_heat_turns(ir):
    turns = {t["number"]: t for t in ir["turn_track"]["turns"]}
    assert sorted(turns) == list(range(1, 15))
    for number, (label, section) in FACTS["clock"].items():
        turn = turns[int(number)]
        assert turn["label"] == label
        assert_cited(turn["prov"], section, f"turn {number}'s time")
    heat, section = FACTS["heat_turns"]
    assert sorted(n for n, t in turns.items() if t["data"].get("heat")) == heat
    for n in heat:
        assert_cited(turns[n]["prov"], section, f"heat on turn {n}")


# ---------------------------------------------------------------- victory


@pytest.mark.parametrize("name", sorted(FACTS["victories"]))
def test_victory_conditions(ir, name):
    facts = FACTS["victories"][name]
    v = named(ir["victories"], name)
    assert (v["level"], v["winner"], v["check"]) == (
        facts["level"],
        facts["winner"],
        facts["check"],
    )
    assert hexes(v["condition"]) == set(facts["hexes"])
    expected = {Fraction(n) if isinstance(n, str) else n for n in facts["numbers"]}
    found = {Fraction(n) if isinstance(n, str) else n for n in numbers(v["condition"])}
    assert expected <= found, f"{name}: {expected} not in {found}"
    assert_cited(v["prov"], facts["section"], name)
    assert v["scenarios"], f"{name} applies to no scenario in particular"


def test_terrain_objectives(ir):
    objectives, section = FACTS["terrain_objectives"]["hexes"]
    control = named(ir["triggers"], "objective_control")
    assert hexes(control["body"]) == set(objectives)
    assert_cited(control["prov"], section, "control of the objectives")
    game = named(ir["procedures"], "game")
    step = named(game["steps"], "overlook_hill")
    assert "2716" in hexes(step["body"]) and {1, 2} <= numbers(step["body"])
    assert_cited(step["prov"], section, "Overlook Hill's 1/2 VP")
    turn = named(named(ir["procedures"], "game_turn")["steps"], "terrain_victory_points")
    assert hexes(turn["body"]) == {"3519", "1815"}
    assert_cited(turn["prov"], section, "the objectives' VP per turn")


def test_the_rulebooks_xx_vp_stay_visible_as_provisional(ir):
    for name, printed in FACTS["provisional_on_purpose"].items():
        d = named(ir["defines"], name)
        assert d["prov"]["provisional"] and printed in d["prov"]["provisional"], name


# ---------------------------------------------------------------- Lee, and the leaders


def test_lees_hex_row_and_penalties(ir):
    lee = FACTS["lee"]
    row, section = lee["hex_row"]
    east = named(ir["defines"], "east_of_21xx")
    assert row in numbers(east["body"])
    assert_cited(east["prov"], section, "hex row 21xx")
    late = named(ir["triggers"], "lee_fails_to_advance")
    assert late["event"] == "end" and lee["player_turn"][0] in numbers(late["condition"])
    assert_cited(late["prov"], lee["player_turn"][1], "the 3rd American player-turn")
    penalty = named(ir["procedures"], "lee_penalty")
    assert {lee["army_morale_penalty"][0], lee["vp_penalty"][0]} <= numbers(penalty["steps"])
    assert_cited(penalty["prov"], lee["army_morale_penalty"][1], "Lee's penalty")
    relieved = named(ir["triggers"], "lee_relieved_of_command")
    assert relieved["once"] and relieved["event"] == "entered"
    assert lee["relieved_army_morale"][0] in numbers(relieved["body"])
    assert_cited(relieved["prov"], lee["relieved_army_morale"][1], "Lee relieved")
    dies = named(ir["triggers"], "lee_dies")
    assert lee["cc_lifted_if_he_dies"][0] in numbers(dies["body"])
    assert_cited(dies["prov"], lee["cc_lifted_if_he_dies"][1], "C&C lifted if Lee dies")


def test_seniority(ir):
    units = {u["name"]: u for u in ir["units"]}
    for key in ("seniority", "british_seniority"):
        values, section = FACTS[key]
        for name, seniority in values.items():
            assert units[name]["props"]["seniority"] == seniority, name
            assert_cited(units[name]["provs"]["seniority"], section, f"{name}'s seniority")


def test_oswald_moves_at_four(ir):
    oswald = named(ir["units"], "oswald_artillery")
    movement, section = FACTS["oswald_movement"]
    assert oswald["movement"] == movement and oswald["props"]["demi_leader"]
    assert_cited(oswald["provs"]["movement"], section, "Oswald's rate")


# ---------------------------------------------------------------- entries and counters


def test_entries_the_text_gives(ir):
    entries = {z["title"]: set(z["hexes"]) for z in ir["map"]["zones"] if z["kind"] == "entry"}
    assert {"A-1", "A-2", "A-3", "A-4", "B"} <= set(entries)
    for name, (turn, label, variable, section) in FACTS["entries"].items():
        unit = named(ir["units"], name)
        assert unit["entry"]["turn"] == turn, name
        assert set(unit["entry"]["at"]) == entries[label], name
        assert unit["entry"]["variable"] is variable, name
        assert_cited(unit["provs"]["enters"], section, f"{name}'s entry")
    ends, section = FACTS["red_arrows"]
    assert set(ends) <= entries["Red arrows"]
    for name, entry in FACTS["invented_units"].items():
        if name.startswith("_"):
            continue
        turn, label, variable = entry
        unit = named(ir["units"], name)
        found = (unit["entry"]["turn"], set(unit["entry"]["at"]), unit["entry"]["variable"])
        assert found == (turn, entries[label], variable), name
        assert unit["prov"]["provisional"], f"{name} is not marked as the battle's own invention"


def test_unit_types_letters_and_restrictions(ir):
    for name, (props, section) in FACTS["unit_types"].items():
        t = named(ir["unit_types"], name)
        assert {k: t["props"][k] for k in props} == props
        assert_cited(t["prov"], section, name)
    for name, (letter, section) in FACTS["letters"].items():
        b = named(ir["brigades"], name)
        assert b["letter"] == letter
        assert_cited(b["prov"], section, name)
    for name, (until, section) in FACTS["restrictions"].items():
        r = named(ir["restrictions"], name)
        assert r["until_turn"] == until
        assert_cited(r["prov"], section, name)


def test_numbers_in_definitions_and_steps(ir):
    for name, (values, section) in FACTS["defines"].items():
        d = named(ir["defines"], name)
        assert set(values) <= numbers(d["body"]), name
        assert_cited(d["prov"], section, name)
    phase = named(ir["procedures"], "movement_phase")
    step = named(phase["steps"], "variable_reinforcements")
    values, section = FACTS["second_roll"]
    assert set(values) <= numbers(step["body"])
    assert_cited(step["prov"], section, "the second die roll")
    drm, section = FACTS["variable_momentum_drm"]
    [line] = named(ir["modifiers"], "variable_entry_drm")["modifiers"]
    assert numbers(line["amount"]) == {drm}
    assert_cited(line["prov"], section, "momentum on the variable roll")
    morgan = named(ir["modifiers"], "morgan_entry_drm")["modifiers"]
    for rule, (amount, section) in FACTS["play_balance_morgan_drm"].items():
        [line] = [m for m in morgan if rule in str(m["condition"])]
        assert numbers(line["amount"]) == {amount}
        assert_cited(line["prov"], section, f"{rule} on Morgan's rolls")
