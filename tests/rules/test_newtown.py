"""The battle of Newtown, checked against its rulebook.

The deployment lists of the historical scenario are parsed straight from the
rulebook's text and compared with the compiled IR hex by hex; the other facts
of the text (army morale, momentum, length and first-turn order of each
scenario, victory conditions, …) are transcribed in `data/newtown/facts.json`
and must be in the IR, cited and not provisional. Every number of the battle
is cited or provisional, every numbered section of its exclusive rules is
cited, every hex the rulebook names is on the map, and the generic code names
nothing of the battle. Tests that read the rulebook skip when it is absent.
"""

from __future__ import annotations

import dataclasses
import io
import json
import random
import re
from contextlib import redirect_stdout
from typing import Any

import pytest

from compiler import ir
from compiler.backends.engine_codegen import generate
from compiler.check.maps import grid_of
from compiler.load import load, resolve_ruleset
from compiler.map.hexmap import Grid
from compiler.provenance import citations, provisional_values, unvouched_literals
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles
from engine import chance
from muster.cli import main
from muster.coverage import coverage
from tests.conftest import ROOT, RULESETS, compiled, fresh_game, rulebook
from tests.test_layering import named_in_generic_code

BATTLE = RULESETS / "newtown"
FACTS = json.loads((ROOT / "tests" / "data" / "newtown" / "facts.json").read_text("utf-8"))


RULEBOOK = rulebook("newtown.txt")
needs_rulebook = pytest.mark.skipif(RULEBOOK is None, reason="the Newtown rulebook is not here")


@pytest.fixture(scope="module")
def rules() -> ir.Ruleset:
    return compiled("newtown")[0]


@pytest.fixture(scope="module")
def text() -> str:
    assert RULEBOOK is not None
    return RULEBOOK.read_text(encoding="utf-8")


def battle_files() -> tuple:
    """The syntax trees of the battle's own files (not the series')."""
    loaded = load(resolve_ruleset(BATTLE), Reporter(SourceFiles()))
    return tuple(f for f in loaded.files if "/newtown/" in f.path.replace("\\", "/"))


def scenario(rules: ir.Ruleset, name: str) -> ir.Scenario:
    return next(sc for sc in rules.scenarios if sc.name == name)


def unit(rules: ir.Ruleset, name: str) -> ir.Unit:
    return next(u for u in rules.units if u.name == name)


def cites(prov: ir.Prov) -> set[str]:
    return {c.section for c in prov.cites if c.document == "newtown"}


def nodes(value: Any) -> list[Any]:
    """Every IR node inside a value (expressions, statements, …)."""
    out = [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            out += nodes(getattr(value, f.name))
    elif isinstance(value, tuple | list):
        for item in value:
            out += nodes(item)
    return out


# ---------------------------------------------------------------- the battle checks


def test_the_battle_checks_and_imports_the_series(rules):
    assert rules.name == "newtown" and not rules.library
    assert [s.name for s in rules.sides] == ["indian", "american"]
    assert {sc.name for sc in rules.scenarios} == {"campaign", "historical"}
    # The series is in: its procedures, patched by the battle.
    procs = {p.name: p for p in rules.procedures}
    assert "close_combat" in procs and "indian_movement_phases" in procs
    steps = [s.name for s in procs["close_combat_phase"].steps]
    assert steps.index("designate") < steps.index("retreat_before_combat") < steps.index("pins")


# ---------------------------------------------------------------- deployment, from the text


ABBREVIATIONS = {"col": "colonel", "capt": "captain", "lt": "lieutenant"}


def normal(name: str) -> str:
    """A name as compared: lower case, letters, digits, single spaces, no abbreviations."""
    words = re.sub(r"[^a-z0-9 ]", " ", name.lower()).split()
    return " ".join(ABBREVIATIONS.get(w, w) for w in words)


def unit_by_text_name(rules: ir.Ruleset, name: str) -> str:
    """The one unit or leader whose title or counter name is this name of the text."""
    found = {u.name for u in rules.units if normal(name) in (normal(u.title), normal(u.short))}
    assert len(found) == 1, f"{name!r} names {sorted(found) or 'no unit'}"
    return found.pop()


def deployment(text: str) -> list[str]:
    """The bullet lines of the historical scenario's deployment."""
    start = text.index("Newtown Historical Scenario\n\nGame Length")
    section = text[start : text.index("\nOpportunity Cards", start)]
    section = section[section.index("\nDeployment") :]
    bullets = (line.strip() for line in section.splitlines())
    return [line[1:].strip() for line in bullets if line.startswith("•")]


STATE = re.compile(r"^(?P<name>.+?) \(with (?P<what>[^)]+)\)$")


def hex_lines(text: str) -> dict[str, list[tuple[str, tuple[str, str] | None]]]:
    """`Hex NNNN: A, B (with Honor) & C` → hex: [(name, state)] as the text says."""
    out: dict[str, list[tuple[str, tuple[str, str] | None]]] = {}
    for line in deployment(text):
        m = re.match(r"^Hex (\d{4}): (.+)$", line)
        if not m:
            continue
        placed: list[tuple[str, tuple[str, str] | None]] = []
        for part in re.split(r", | & ", m.group(2)):
            s = STATE.match(part)
            if s is None:
                placed.append((part, None))
            elif s.group("what").endswith(" attached"):
                attached = s.group("what").removesuffix(" attached")
                placed.append((s.group("name"), None))
                placed.append((attached, ("attached_to", s.group("name"))))
            else:
                placed.append((s.group("name"), (normal(s.group("what")).replace(" ", "_"), "")))
        assert m.group(1) not in out
        out[m.group(1)] = placed
    return out


def assigned(placed: ir.PlacedUnit) -> dict[str, Any]:
    return {key: value.value for key, value in placed.assigns}


@needs_rulebook
def test_historical_deployment_matches_the_rulebook_hex_by_hex(rules, text):
    lines = hex_lines(text)
    assert len(lines) == 21  # 9 Indian and 12 American hexes
    sc = scenario(rules, "historical")
    compiled: dict[str, dict[str, ir.PlacedUnit]] = {}
    for entry in sc.setup:
        if not entry.chosen:
            assert len(entry.hexes) == 1
            compiled.setdefault(entry.hexes[0], {}).update({p.name: p for p in entry.units})
    assert set(compiled) == set(lines)
    for label, placed in lines.items():
        expected = {unit_by_text_name(rules, name): state for name, state in placed}
        assert set(compiled[label]) == set(expected), label
        for name, state in expected.items():
            got = assigned(compiled[label][name])
            if state is None:
                assert got == {}, (label, name)
            elif state[0] == "attached_to":
                assert got == {"attached_to": unit_by_text_name(rules, state[1])}, (label, name)
            else:
                assert got == {state[0]: True}, (label, name)
        # The hex is on the map, and the entry cites the scenario.
        for entry in sc.setup:
            if entry.hexes == (label,):
                assert "historical_scenario" in cites(entry.prov)


@needs_rulebook
def test_historical_constrained_choices_match_the_rulebook(rules, text):
    sc = scenario(rules, "historical")
    chosen = [e for e in sc.setup if e.chosen]
    zones = {z.name: z for z in rules.map.zones}
    lines = [line for line in deployment(text) if not line.startswith(("Hex ", "Not used"))]
    assert len(lines) == 3 and len(chosen) == 3
    for line, entry in zip(lines, chosen, strict=True):
        m = re.match(r"^(?P<names>.+?) (?:anywhere (?P<where>.+)|with any (?P<with>.+))$", line)
        assert m, line
        names = re.split(r", | & ", m.group("names"))
        expected = {}
        for part in names:
            s = STATE.match(part)
            name = s.group("name") if s else part
            expected[unit_by_text_name(rules, name)] = (
                {normal(s.group("what")).replace(" ", "_"): True} if s else {}
            )
        assert {p.name: assigned(p) for p in entry.units} == expected, line
        if m.group("where"):
            # "anywhere on or west of hex row 34xx, south of Butler's Creek and
            # north of the Hog Back": a zone of that title.
            zone = next(z for z in zones.values() if normal(z.title) == normal(m.group("where")))
            assert entry.hexes == zone.hexes and entry.condition is None
            assert all(Grid.parse(h)[0] <= 34 for h in zone.hexes)
        else:
            # "with any Indian units (at the breastwork)": a condition on the hex.
            called = {n.define for n in nodes(entry.condition) if isinstance(n, ir.DefineCall)}
            assert "warrior" in called
            consts = [n.value for n in nodes(entry.condition) if isinstance(n, ir.Const)]
            assert (zones["breastwork_hexes"].hexes in consts) == ("breastwork" in m.group("with"))


@needs_rulebook
def test_units_not_used_in_the_historical_scenario(rules, text):
    sc = scenario(rules, "historical")
    placed = {p.name for e in (*sc.setup, *sc.reinforcements) for p in e.units}
    american = next(line for line in deployment(text) if "McLane" in line)
    for name in re.split(r" and ", american.split(": ", 1)[1]):
        assert unit_by_text_name(rules, name.removeprefix("the ")) not in placed
    assert not set(FACTS["scenarios"]["historical"]["not_used"]["value"]) & placed


# ---------------------------------------------------------------- transcribed facts


def assert_cited(prov: ir.Prov, section: str, what: str) -> None:
    assert section in cites(prov), f"{what}: not cited to newtown {section} ({prov})"
    assert prov.provisional is None, f"{what}: provisional ({prov.provisional})"


@pytest.mark.parametrize("name", sorted(FACTS["scenarios"]))
def test_scenario_facts_are_cited_and_not_provisional(rules, name):
    facts = FACTS["scenarios"][name]
    sc = scenario(rules, name)
    assert list(sc.turns) == facts["turns"]["value"]
    assert_cited(sc.provs["turns"], facts["turns"]["cite"], f"{name} turns")
    values = {(v.variable, v.index.value if v.index else None): v for v in sc.values}
    for variable in ("army_morale", "momentum"):
        for side, fact in facts[variable].items():
            if side == "text":
                continue
            v = values[(variable, side)]
            assert v.value.value == fact["value"], (name, variable, side)
            assert_cited(v.prov, fact["cite"], f"{name} {variable} {side}")
    for turn, fact in facts["order"].items():
        if turn == "text":
            continue
        assert list(sc.orders[int(turn)]) == fact["value"]
        assert_cited(sc.provs[f"order {turn}"], fact["cite"], f"{name} order {turn}")
    first = min(sc.orders)
    assert first == sc.turns[0], "the first turn's order is fixed"
    if facts.get("setup", {}).get("value") == "printed":
        assert sc.printed_setup
        assert_cited(sc.provs["setup"], facts["setup"]["cite"], f"{name} setup")
    for key, attr in (("rules_not_used", "rules_off"), ("special_rules", "rules_on")):
        assert sorted(getattr(sc, attr)) == sorted(facts[key]["value"]), (name, key)
        if facts[key]["value"]:
            assert_cited(sc.provs[key], facts[key]["cite"], f"{name} {key}")
    if "reinforcements" in facts:
        assert list(sc.reinforcements) == facts["reinforcements"]["value"]


def test_historical_opening_is_only_the_american_defensive_fire(rules):
    rule = next(s for s in rules.switches if s.name == "historical_opening")
    assert not rule.default and "scenario" in rule.flags
    turn = next(p for p in rules.procedures if p.name == "game_turn")
    step = next(s for s in turn.steps if s.name == "bottom_half_only")
    assert step.rule == "historical_opening"
    calls = [n.proc for n in nodes(step.body) if isinstance(n, ir.CallProc)]
    assert calls == ["defensive_artillery_fire_phase"]
    assert [s.name for s in turn.steps].index("bottom_half_only") < [
        s.name for s in turn.steps
    ].index("first_player_turn")


@pytest.mark.parametrize("name", sorted(FACTS["victory"]))
def test_victory_conditions_are_cited_and_not_provisional(rules, name):
    fact = FACTS["victory"][name]
    v = next(v for v in rules.victories if v.name == name)
    assert (v.winner, v.level) == (fact["winner"], fact["level"])
    assert_cited(v.prov, fact["cite"], name)
    if "number" in fact:
        numbers = [n.value for n in nodes(v.condition) if isinstance(n, ir.Const)]
        assert fact["number"] in numbers


@pytest.mark.parametrize("name", sorted(FACTS["units"]))
def test_unit_facts_are_cited_and_not_provisional(rules, name):
    u = unit(rules, name)
    for key, fact in FACTS["units"][name].items():
        if key == "text":
            continue
        value = {
            "setup": u.setup,
            "strength": list(u.strengths),
            "movement": u.movement,
        }.get(key, u.props.get(key))
        assert value == fact["value"], (name, key)
        assert_cited(u.provs[key], fact["cite"], f"{name} {key}")


def test_markers_decks_cards_track_and_places(rules):
    markers = {m.name: m for m in rules.markers}
    for name, fact in FACTS["markers"].items():
        assert markers[name].count == fact["count"], name
        assert_cited(markers[name].provs["count"], fact["cite"], f"marker {name}")
    bags = {b.name: b for b in rules.bags}
    for name, fact in FACTS["bags"].items():
        assert len(bags[name].contents) == fact["size"]
        assert_cited(bags[name].prov, fact["cite"], name)
    decks = set(bags["american_deck"].contents) | set(bags["indian_deck"].contents)
    for name, title in FACTS["cards"].items():
        assert name in decks and markers[name].title == title
        assert "4.2.4" in cites(markers[name].prov)
    turns = {t.number: t for t in rules.turn_track.turns}
    for number, fact in FACTS["turn_track"].items():
        assert turns[int(number)].label == fact["label"]
        assert_cited(turns[int(number)].prov, fact["cite"], f"turn {number}")
    places = {p.name: p for p in rules.map.places}
    for name, fact in FACTS["places"].items():
        assert places[name].hex == fact["hex"]
        assert fact["cite"] in cites(places[name].prov)


# ---------------------------------------------------------------- provenance and coverage


def test_every_number_is_cited_or_provisional():
    files = battle_files()
    assert len(files) > 10
    assert unvouched_literals(files) == []


def test_provisional_values_are_listed_with_their_reasons(rules):
    listed = provisional_values(rules)
    mine = [p for p in listed if "/newtown/" in p.where or p.where == "?"]
    assert all(p.reason for p in mine)
    whats = {p.what.split(" › ", 1)[-1] for p in mine}
    # Counter values, charts, the map, the turn track and the card texts.
    assert "unit red_jacket: strength" in whats
    assert "formation provincials: stripe" in whats
    assert "marker failed_resolve_marker: count" in whats
    assert "table indian_honor_table" in whats
    assert any("map sheets are not available" in p.reason for p in mine)
    assert sum("sortie range" in p.reason for p in mine) == 11  # turns 2-12
    assert any("card texts are not public" in p.reason for p in mine)
    # Every provisional property of a unit is listed.
    for u in rules.units:
        for key, prov in u.provs.items():
            if prov.provisional and prov.provisional != u.prov.provisional:
                assert f"unit {u.name}: {key}" in whats


def test_check_provisional_lists_the_battle(capsys):
    assert main(["check", "--provisional", str(BATTLE)]) == 0
    out = capsys.readouterr().out
    assert "rulesets/newtown/map.mst" in out and "the map sheets are not available" in out


@needs_rulebook
def test_every_numbered_section_of_the_exclusive_rules_is_cited(text):
    [cov] = coverage(text, ["newtown"], citations(battle_files()))
    numbers = [s.number for s, _via, _n in cov.rows]
    assert {"I", "VI", "1.1", "2.5.3", "5.2.2", "5.7.1", "6.1.7", "6.5.2"} <= set(numbers)
    assert [s.number for s in cov.uncited] == []


# ---------------------------------------------------------------- the map


@needs_rulebook
def test_every_hex_the_rulebook_names_is_on_the_map(rules, text):
    grid = grid_of(rules.map)
    labels = {grid.label(c, r) for c, r in grid.offsets()}
    named = set(re.findall(r"\b[Hh]ex (\d{4})\b", text))
    assert {"1408", "6020", "3419", "4016"} <= named
    assert named <= labels
    for column in re.findall(r"hex rows? (\d\d)xx", text):
        assert any(Grid.parse(h)[0] == int(column) for h in labels), column


def side(rules: ir.Ruleset, a: str, b: str) -> dict[str, str]:
    return rules.map.hexsides.get((min(a, b), max(a, b)), {})


def test_the_map_has_the_features_the_text_describes(rules):
    m = rules.map
    zones = {z.name: z.hexes for z in m.zones}
    grid = grid_of(m)
    # 2.5.3, 3.6.2: the breastwork along hex row 34xx, belonging to its hexes.
    for h in zones["breastwork_hexes"]:
        assert Grid.parse(h)[0] == 34
        east = [
            grid.label(*n)
            for n in grid.neighbors(*Grid.parse(h))
            if n[0] == 35 and grid.contains(*n)
        ]
        assert all(side(rules, h, e).get("breastwork") == h for e in east), h
    # 4.1: the Newtown hexes are the village, west of the breastwork.
    assert all(m.terrain.get(h) == "village" for h in zones["newtown_hexes"])
    # 4.2.2: a creek between hex rows 45xx and 46xx, all the way to the river.
    for r in range(1, 25):
        assert "creek" in side(rules, f"45{r:02d}", f"46{r:02d}"), r
    # Butler's Creek north of the set-up zone, the Hog Back south of it.
    zone = zones["creek_to_hog_back"]
    for h in zone:
        c, r = Grid.parse(h)
        if r == min(Grid.parse(x)[1] for x in zone):
            assert "creek" in side(rules, h, grid.label(c, r - 1)), h
    assert max(Grid.parse(h)[1] for h in zone) < min(Grid.parse(h)[1] for h in zones["hog_back"])
    assert any("slope" in f for f in m.hexsides.values())
    # The river beyond the Hog Back, impassable.
    assert all(m.terrain.get(grid.label(c, 25)) == "river" for c in range(1, 63))
    # Sullivan's Hill is high ground: slopes rise into it.
    hill = set(zones["sullivans_hill"])
    assert any(f.get("slope") in hill for f in m.hexsides.values())


def test_the_road_runs_from_6020_through_the_breastwork_to_newtown_and_1408(rules):
    m = rules.map
    grid = grid_of(m)
    roads = {"road", "track"}
    seen, todo = {"6020"}, ["6020"]
    while todo:
        h = todo.pop()
        for n in grid.neighbors(*Grid.parse(h)):
            if grid.contains(*n):
                label = grid.label(*n)
                if label not in seen and roads & set(side(rules, h, label)):
                    seen.add(label)
                    todo.append(label)
    zones = {z.name: set(z.hexes) for z in m.zones}
    assert zones["newtown_hexes"] & seen and "1408" in seen
    assert zones["breastwork_hexes"] & seen
    assert zones["the_road"] <= seen


# ---------------------------------------------------------------- dump and layering


def test_dump_holds_every_unit_leader_and_set_up_hex(rules):
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["dump", str(BATTLE)]) == 0
    data = json.loads(out.getvalue())
    dumped = {u["name"]: u for u in data["units"]}
    assert set(dumped) == {u.name for u in rules.units}
    kinds = {u["kind"] for u in dumped.values()}
    assert kinds == {"unit", "leader", "piece"}
    scenarios = {sc["name"]: sc for sc in data["scenarios"]}
    hexes = {h for e in scenarios["historical"]["setup"] for h in e["hexes"]}
    placed = {p["name"] for e in scenarios["historical"]["setup"] for p in e["units"]}
    assert {"3119", "3722", "4016", "2914"} <= hexes
    assert {"captain_montour", "eighth_foot", "john_butler", "provisional_ny"} <= placed
    assert scenarios["campaign"]["printed_setup"] is True


BATTLE_WORDS = {
    "newtown",
    "seneca",
    "mohawk",
    "cattle",
    "wampum",
    "iroquois",
    "cayuga",
    "tuscarora",
}


def test_generic_code_names_nothing_of_newtown():
    words = set(BATTLE_WORDS)
    for path in BATTLE.glob("*.mst"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(
            r"^\s*(?:unit|leader|piece|side|marker|bag|place|zone|entry)\s+([a-z_][a-z0-9_]*)",
            text,
            re.M,
        ):
            if len(m.group(1)) > 3:
                words.add(m.group(1))
    assert {"brant", "cattle_herd", "activation_cup", "creek_to_hog_back"} <= words
    assert not named_in_generic_code(words)


# ---------------------------------------------------------------- the documentation


def test_docs_quote_the_rulebook_and_the_rule_files_faithfully():
    doc = (ROOT / "docs" / "newtown.md").read_text(encoding="utf-8")
    sources = "\n".join(p.read_text(encoding="utf-8") for p in BATTLE.glob("*.mst"))
    blocks = re.findall(r"```mst\n(.*?)```", doc, re.S)
    assert len(blocks) >= 6
    for block in blocks:
        assert block in sources, block[:60]
    quotes = re.findall(r"^> (.+)$", doc, re.M)
    assert len(quotes) >= 6
    if RULEBOOK is not None:
        book = " ".join(RULEBOOK.read_text(encoding="utf-8").split())
        for quote in quotes:
            assert " ".join(quote.split()) in book, quote
    for section in ("5.2.2", "5.7", "5.9"):
        assert f"### {section} " in doc


# ---------------------------------------------------------------- it builds and plays


def test_committed_engine_is_current(rules):
    for fname, code in generate(rules).items():
        path = ROOT / "generated" / "newtown" / fname
        assert path.exists(), f"{path} is missing: run `muster build newtown`"
        assert path.read_text(encoding="utf-8") == code, f"{path} is stale: `muster build newtown`"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["historical", "campaign"])
def test_both_scenarios_build_and_play_to_the_end(name):
    game = fresh_game("newtown", {"scenario": name})
    s = game.new_initial_state()
    rng = random.Random(7)
    moves = 0
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance.sample(s, 7))
        else:
            actions = s.legal_actions()
            assert actions, "a dead end"
            if len(actions) > 1 and rng.random() < 0.7:
                actions = [a for a in actions if a != 0] or actions
            s.apply_action(rng.choice(actions))
        moves += 1
        assert moves < 20000
    assert s.winner >= 0


@pytest.mark.slow
def test_the_historical_assault_on_the_breastwork_shows_the_fieldworks_drm():
    """Issue 27 item 4, in play: the breastwork counts as fieldworks (series
    3.2, 13.5; newtown 3.6.2), and the map has no other fortified hexside, so a
    seeded game of heuristic bots attacking the Indian line shows the
    attacker's fieldworks DRM in its account."""
    from engine.bots import make_bot

    game = fresh_game("newtown", {"scenario": "historical"})
    s = game.new_initial_state()
    bots = [make_bot("heuristic", 0, 1), make_bot("heuristic", 1, 1)]
    account: list[str] = []
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance.sample(s, 1))
        else:
            s.apply_action(bots[s.current_player()].step(s))
        account += s.take_messages()
    rolls = [m for m in account if "Attacking into fieldworks" in m]
    assert rolls and all(m.startswith("Close Combat Table: rolled") for m in rolls)
    assert "fieldworks" not in (BATTLE / "map.mst").read_text(encoding="utf-8")
