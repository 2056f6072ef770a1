"""The Monmouth battle as a ruleset: it checks and builds, vouches for every number,
cites every numbered section of its exclusive rules, lists what it invented, and
its scenarios set up in the engine as the rulebook says."""

from __future__ import annotations

import pytest

from compiler.backends.engine_codegen import generate
from compiler.load import load, resolve_ruleset
from compiler.provenance import citations, provisional_values, unvouched_literals
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles
from engine.save import to_json
from muster.coverage import coverage
from tests.conftest import ROOT, RULESETS, compiled, fresh_game
from tests.rules.test_monmouth_facts import RULEBOOK

MONMOUTH = RULESETS / "monmouth"


@pytest.fixture(scope="module")
def rules():
    return compiled("monmouth")[0]


@pytest.fixture(scope="module")
def files():
    return load(resolve_ruleset(MONMOUTH), Reporter(SourceFiles())).files


def own(files):
    return [f for f in files if "rulesets/monmouth/" in f.path]


def test_the_battle_builds_on_the_series(rules, files):
    assert rules.name == "monmouth" and not rules.library
    assert any("rulesets/series/" in f.path for f in files)
    assert {s.name for s in rules.sides} == {"british", "american"}
    assert [sc.name for sc in rules.scenarios] == [
        "campaign",
        "lees_advance",
        "holding_action",
        "washingtons_stand",
    ]


def test_no_number_is_neither_cited_nor_provisional(files):
    assert own(files)
    assert unvouched_literals(tuple(own(files))) == []


def test_every_invented_value_says_why(rules):
    found = [p for p in provisional_values(rules) if p.where.startswith("rulesets/monmouth/")]
    assert found and all(p.reason.strip() for p in found)
    reasons = " ".join(p.reason for p in found)
    # The map, the counters, the printed tables and the "xx VP" of II are all listed.
    for expected in ("map sheets", "printed on the counter", "C&C Table", "xx VP", "Leader Loss"):
        assert expected in reasons, expected
    the_map = [p for p in found if p.where.startswith("rulesets/monmouth/map.mst")]
    assert the_map and "reconstructed" in the_map[0].reason


@pytest.mark.skipif(RULEBOOK is None, reason="needs ../shared/rulebooks")
def test_every_numbered_section_of_the_exclusive_rules_is_cited(files):
    text = RULEBOOK.read_text(encoding="utf-8")
    series, battle = coverage(text, ["series", "monmouth"], citations(files))
    numbers = [s.number for s, _via, _n in battle.rows]
    assert {"I", "II", "III", "IV", "V", "VI", "4.1", "4.64", "4.9", "5.2", "6.392"} <= set(numbers)
    assert [s.number for s in battle.uncited] == []
    assert [s.number for s in series.uncited] == []


def test_the_committed_engine_is_current(rules):
    for name, text in generate(rules).items():
        path = ROOT / "generated" / "monmouth" / name
        assert path.exists(), f"{path} is missing: run `muster build monmouth`"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run `muster build monmouth`"
        )


def test_every_hex_the_rulebook_names_is_on_the_map(rules):
    named = {
        "1511", "1611", "1610", "1709", "1715", "1815", "1914", "1211", "4114", "3519",
        "2716", "2512", "2017", "2115", "3028", "4308", "3527", "4127",
    }  # fmt: skip
    model_hexes = {
        f"{c:02d}{r:02d}"
        for c in range(rules.map.columns[0], rules.map.columns[1] + 1)
        for r in range(rules.map.rows[0], rules.map.rows[1] + 1)
    }
    assert named <= model_hexes
    places = {p.name: p.hex for p in rules.map.places}
    assert places["englishtown_road_junction"] == "1211"
    assert places["dutch_lane_junction"] == "4114"
    assert places["monmouth_courthouse"] == "3519"
    assert places["parsonage_farm"] == "1815"
    assert places["overlook_hill"] == "2716"
    assert places["craig_farm"] == "2512" and places["wikoff_farm"] == "2017"
    assert places["lee_relieved_here"] == "2115"
    zones = {z.name: z for z in rules.map.zones}
    assert set(zones["perrine_ridge"].hexes) == {"1511", "1611", "1610", "1709"}
    assert set(zones["hedgerow_line"].hexes) == {"1715", "1815", "1914"}
    line = zones["maneuver_zone_limit"].hexes
    assert line[0] == "3028" and line[-1] == "4308"
    assert {"A-1", "A-2", "A-3", "A-4", "B", "Red arrows"} <= {
        z.title for z in rules.map.zones if z.kind == "entry"
    }
    assert rules.map.terrain["3519"] == "village"
    assert rules.map.terrain["1815"] == "farm"
    assert {"bridge"} <= set(rules.map.hexsides[("1712", "1713")])
    assert {"hedgerow"} <= set(rules.map.hexsides[("1815", "1915")])


def test_set_ups_are_legal_terrain(rules):
    """No scenario sets a unit up where the map prohibits it."""
    closed = {
        t.name
        for t in rules.terrain
        if t.move.default is None or None in dict(t.move.classes).values()
    }
    assert {"beyond_map_edge", "marsh", "forest"} <= closed  # closed to some units at least
    for sc in rules.scenarios:
        for entry in sc.setup:
            for h in entry.hexes:
                assert rules.map.terrain.get(h, rules.map.default) not in closed, (sc.name, h)


# ---------------------------------------------------------------- the engine sets the scenarios up


@pytest.mark.parametrize("scenario", ["lees_advance", "holding_action", "washingtons_stand"])
def test_scenarios_set_up_in_the_engine(rules, scenario):
    game = fresh_game("monmouth", {"scenario": scenario})
    s = game.new_initial_state()
    units = to_json(s)["units"]
    [sc] = [x for x in rules.scenarios if x.name == scenario]
    for entry in sc.setup:
        for placed in entry.units:
            if entry.chosen:
                continue
            u = units[placed.name]
            assert u["status"] == "map" and u["hex"] == entry.hexes[0], placed.name
            assert u.get("steps_lost", 0) == (1 if placed.reduced else 0), placed.name
    for entry in sc.reinforcements:
        for placed in entry.units:
            assert units[placed.name]["status"] == "not_entered", placed.name
    on_map = {name for name, u in units.items() if u["status"] == "map"}
    listed = {p.name for e in sc.setup if not e.chosen for p in e.units}
    assert on_map == listed


def test_washingtons_stand_offers_its_choices_and_places_molly(rules):
    game = fresh_game("monmouth", {"scenario": "washingtons_stand"})
    s = game.new_initial_state()
    labels = game.rules.board.labels
    offered = []
    while s.current_player() >= 0 and any(f.proc == "setup" for f in s.stack):
        offered.append(sorted(labels[a - game.actions.hex0] for a in s.legal_actions()))
        s.apply_action(s.legal_actions()[-1])
    assert offered[0] == ["1716", "1816", "1915", "2015", "2314", "2414"]  # Cornwallis
    assert offered[1] == offered[2] == ["1511", "1610", "1611", "1709"]  # Washington, Stirling
    proctor = game.unit_by_name["proctor_artillery"]
    assert s.vars["molly"][proctor] is True and s.vars["molly_placed"] is True
    assert s.vars["momentum"][game.side_by_name["american"]] == 1
    assert s.vars["momentum_pool"] == 4
    assert game.switch_on["molly_pitcher"] and game.switch_on["combs_hill"]
    assert not game.switch_on["command_and_control"] and not game.switch_on["rear_guard_zone"]


def test_the_holding_action_begins_with_lee_relieved(rules):
    game = fresh_game("monmouth", {"scenario": "holding_action"})
    s = game.new_initial_state()
    assert s.vars["lee_relieved"] is True
    assert s.vars["army_morale"] == (20, 18)
    assert game.switch_on["abbreviated_first_turn"] and game.switch_on["hedgerow_holds"]


def test_the_c_and_c_id_table_names_advanced_corps_brigades(rules):
    """4.61: the ID Table's cells are read as brigade names, so each must be one."""
    brigades = {b.name: b for b in rules.brigades}
    [table] = [t for t in rules.tables if t.name == "cc_identification"]
    named = {part for row in table.rows for cell in row.cells for part in cell if part}
    assert named and named <= set(brigades)
    assert all(brigades[n].side == "american" for n in named)
    assert {"maxwell", "scott"} <= named and "morgans_detachment" not in named
