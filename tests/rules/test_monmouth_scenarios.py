"""Monmouth's scenarios against the rulebook's own text.

The set-up tables of VI (the `| Hex | Units |` tables of 6.12, 6.22 and 6.32)
and the reinforcement lists (6.13, 6.22, 6.33) are read straight from
`../shared/rulebooks/monmouth.txt` and compared, hex by hex and unit by unit,
with `muster dump` of the battle: each counter in the right scenario, on the
right side, in the right hex, with the state the table gives it (a reduced
side, a reverse name, Molly Pitcher), the constrained choices ("any hex marked
with an asterisk", "anywhere on Perrine Ridge") as choices among those hexes.
The printed names are mapped to the battle's units by
`tests/data/monmouth/names.json`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import pytest

from muster.dump import dump
from tests.conftest import ROOT, compiled
from tests.rules.test_monmouth_facts import RULEBOOK

NAMES = {
    printed: unit
    for printed, unit in json.loads(
        (ROOT / "tests" / "data" / "monmouth" / "names.json").read_text("utf-8")
    ).items()
    if not printed.startswith("_")
}
SCENARIOS = {"6.1": "lees_advance", "6.2": "holding_action", "6.3": "washingtons_stand"}

pytestmark = pytest.mark.skipif(RULEBOOK is None, reason="needs ../shared/rulebooks")


@dataclass
class Placement:
    """One row of a set-up table: where (a hex, or a choice among hexes) and who."""

    hexes: frozenset[str]
    chosen: bool
    units: dict[str, dict[str, bool]] = field(default_factory=dict)  # unit -> its state


@pytest.fixture(scope="module")
def dumped() -> dict:
    return json.loads(dump(compiled("monmouth")[0]))


@pytest.fixture(scope="module")
def text() -> str:
    return RULEBOOK.read_text(encoding="utf-8")


# ---------------------------------------------------------------- reading the rulebook


def split_names(cell: str) -> list[str]:
    """`A, B, & C` → [A, B, C]; `1st & 2nd Black Watch` → [1st Black Watch, 2nd Black Watch]."""
    out = []
    for part in re.split(r",\s*(?:&\s*)?", cell.strip()):
        part = part.strip()
        m = re.match(r"^(\d+\w\w) & (\d+\w\w) (.+)$", part)
        out.extend([f"{m.group(1)} {m.group(3)}", f"{m.group(2)} {m.group(3)}"] if m else [part])
    return [p for p in out if p]


def unit_and_state(printed: str) -> tuple[str, dict[str, bool]]:
    """`Olney (as Durkee reduced)`, `Stewart's Picked Men (reduced)`, a plain name."""
    m = re.match(r"^(.+) \(as (.+) reduced\)$", printed)
    if m:
        assert NAMES[m.group(1)] == NAMES[m.group(2)], printed  # the reverse of that counter
        return NAMES[m.group(2)], {"reduced": True}
    if printed.endswith(" (reduced)"):
        return NAMES[printed.removesuffix(" (reduced)")], {"reduced": True}
    return NAMES[printed], {}


def setup_tables(text: str) -> dict[str, dict[str, list[Placement]]]:
    """scenario (6.1, 6.2, 6.3) -> side -> the rows of its set-up table."""
    tables: dict[str, dict[str, list[Placement]]] = {}
    scenario = side = None
    rows: list[tuple[str, str]] = []

    def close() -> None:
        if scenario and side and rows:
            tables.setdefault(scenario, {})[side] = placements(rows)
        rows.clear()

    for line in text.splitlines():
        m = re.match(r"^6\.([123]) Scenario", line)
        if m:
            close()
            scenario, side = f"6.{m.group(1)}", None
            continue
        if scenario and line.strip() in ("British", "American"):
            close()
            side = line.strip().lower()
            continue
        m = re.match(r"^\| (\S+) \| (.*) \|$", line)
        if m and m.group(1) not in ("Hex", "---"):
            rows.append((m.group(1), m.group(2)))
        elif rows and not line.startswith("|"):
            close()
    close()
    return tables


def placements(rows: list[tuple[str, str]]) -> list[Placement]:
    starred = frozenset(h.rstrip("*") for h, _ in rows if h.endswith("*"))
    out = []
    for hex_cell, cell in rows:
        if hex_cell == "####":  # "Cornwallis: In any hex marked with an asterisk above"
            who, where = cell.split(":", 1)
            listed = re.findall(r"\b\d{4}\b", where)
            hexes = frozenset(listed) if listed else starred
            assert "asterisk" in where or listed, cell
            place = Placement(hexes, True)
            for name in who.split(" and "):
                place.units[NAMES[name.strip()]] = {}
            out.append(place)
            continue
        place = Placement(frozenset([hex_cell.rstrip("*")]), False)
        names = split_names(cell)
        for printed in names:
            if printed == "Molly Pitcher":
                continue
            unit, state = unit_and_state(printed)
            place.units[unit] = state
        if "Molly Pitcher" in names:  # 4.4: the marker goes on the hex's artillery
            guns = [u for u in place.units if u.endswith("_artillery")]
            assert len(guns) == 1, cell
            place.units[guns[0]] = {**place.units[guns[0]], "molly": True}
        out.append(place)
    return out


def reinforcement_lists(text: str) -> dict[str, list[tuple[str, str, list[str]]]]:
    """scenario -> [(clock time, entry label, printed names)] from 6.13, 6.22 and 6.33."""
    out: dict[str, list[tuple[str, str, list[str]]]] = {}
    scenario = None
    for line in text.splitlines():
        m = re.match(r"^6\.([123])\d (British|American) Reinforcements", line)
        if m:
            scenario = f"6.{m.group(1)}"
            default = "B" if m.group(2) == "British" else None  # 4.1: British arrive at B
            continue
        if re.match(r"^6\.\d", line):
            scenario = None
        m = re.match(r"^(\d+:\d\d [AP]M|Noon): (.*)$", line)
        if scenario and m:
            body = m.group(2)
            at = re.search(r"\(Hex ([^)]*)\)\.?$", body)
            label = at.group(1) if at else default
            body = body[: at.start()] if at else body.rstrip(".")
            out.setdefault(scenario, []).append((m.group(1), label, split_names(body)))
    return out


# ---------------------------------------------------------------- the IR, as dumped


def scenario_of(dumped: dict, name: str) -> dict:
    return next(sc for sc in dumped["scenarios"] if sc["name"] == name)


def state_of(placed: dict) -> dict[str, bool]:
    state = {"reduced": True} if placed["reduced"] else {}
    for var, value in placed["assigns"]:
        state[var] = value["value"]
    return state


def dumped_placements(scenario: dict, side_of: dict[str, str], side: str) -> list[Placement]:
    out = []
    for entry in scenario["setup"]:
        place = Placement(frozenset(entry["hexes"]), entry["chosen"])
        for placed in entry["units"]:
            if side_of[placed["name"]] == side:
                place.units[placed["name"]] = state_of(placed)
        if place.units:
            out.append(place)
    return out


def by_hex(places: list[Placement]) -> dict[tuple[frozenset[str], bool], dict]:
    out: dict[tuple[frozenset[str], bool], dict] = {}
    for p in places:
        out.setdefault((p.hexes, p.chosen), {}).update(p.units)
    return out


# ---------------------------------------------------------------- the tests


def test_the_rulebook_has_six_set_up_tables(text):
    tables = setup_tables(text)
    assert sorted(tables) == ["6.1", "6.2", "6.3"]
    for sides in tables.values():
        assert sorted(sides) == ["american", "british"]
    assert len(tables["6.3"]["british"]) == 21  # 20 hexes and Cornwallis's choice


@pytest.mark.parametrize(
    ("section", "side"), [(s, x) for s in SCENARIOS for x in ("british", "american")]
)
def test_each_set_up_table_hex_by_hex(text, dumped, section, side):
    side_of = {u["name"]: u["side"] for u in dumped["units"]}
    expected = by_hex(setup_tables(text)[section][side])
    scenario = scenario_of(dumped, SCENARIOS[section])
    actual = by_hex(dumped_placements(scenario, side_of, side))
    assert actual == expected
    for (hexes, _chosen), units in expected.items():
        for unit in units:
            assert side_of[unit] == side, f"{unit} in {sorted(hexes)} is not {side}"


def test_set_ups_are_cited_to_their_tables(dumped):
    for section, name in SCENARIOS.items():
        scenario = scenario_of(dumped, name)
        cited = {(c["document"], c["section"]) for c in scenario["provs"]["setup"]["cites"]}
        assert ("monmouth", f"{section}2") in cited
        assert scenario["provs"]["setup"]["provisional"] is None
        assert all(e["prov"]["provisional"] is None for e in scenario["setup"])


def test_constrained_choices(dumped):
    stand = scenario_of(dumped, "washingtons_stand")
    chosen = {
        tuple(p["name"] for p in e["units"]): sorted(e["hexes"])
        for e in stand["setup"]
        if e["chosen"]
    }
    assert chosen == {
        ("cornwallis",): ["1716", "1816", "1915", "2015", "2314", "2414"],
        ("washington", "stirling"): ["1511", "1610", "1611", "1709"],
    }


def test_reinforcements_turn_and_hex(text, dumped):
    labels = {t["label"]: t["number"] for t in dumped["turn_track"]["turns"]}
    entries = {
        z["title"]: sorted(z["hexes"]) for z in dumped["map"]["zones"] if z["kind"] == "entry"
    }
    lists = reinforcement_lists(text)
    assert sorted(lists) == ["6.1", "6.2", "6.3"]
    for section, name in SCENARIOS.items():
        scenario = scenario_of(dumped, name)
        actual = {
            (r["turn"], tuple(sorted(r["hexes"])), p["name"])
            for r in scenario["reinforcements"]
            for p in r["units"]
        }
        expected = {
            (labels[clock], tuple(entries[label]), NAMES[printed])
            for clock, label, names in lists[section]
            for printed in names
        }
        assert actual == expected, section
        for r in scenario["reinforcements"]:
            assert r["prov"]["provisional"] is None and r["prov"]["cites"]


def test_every_counter_the_tables_and_lists_name_is_a_unit_or_leader(text, dumped):
    declared = {u["name"]: u for u in dumped["units"]}
    named = set(NAMES.values())
    assert named <= set(declared)
    leaders = {
        "clinton",
        "cornwallis",
        "no_flint_grey",
        "erskine",
        "monckton",
        "webster",
        "washington",
        "lee",
        "greene",
        "stirling",
        "lafayette",
        "von_steuben",
        "wayne",
    }
    assert {u for u in named if declared[u]["kind"] == "leader"} == leaders


def test_units_that_change_name_on_their_reverse(dumped):
    declared = {u["name"]: u for u in dumped["units"]}
    assert declared["wesson"]["reduced_title"] == "Ramsay"
    assert declared["durkee"]["reduced_title"] == "Olney"
    for name in ("wesson", "durkee", "stewart", "parker"):
        assert len(declared[name]["strengths"]) == 2, name


def test_the_campaign_uses_the_printed_set_up(dumped):
    campaign = dumped["scenarios"][0]
    assert campaign["name"] == "campaign" and campaign["printed_setup"]
    for u in dumped["units"]:
        assert u["setup"] is not None or u["entry"] is not None, u["name"]
