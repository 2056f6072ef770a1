"""The VASSAL module: it validates against VASSAL 3.7's classes, its pieces decode, its set-ups
are the scenarios' set-ups, its grid lies on the drawn hexes, and hostile names survive."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from compiler import ir
from compiler.backends.map_render import MapRenderer
from compiler.backends.vassal.grid import grid_of
from compiler.backends.vassal.images import SCREEN_DPI
from compiler.backends.vassal.sequence import Unencodable, sequence, text
from compiler.build import vassal_output
from compiler.check import compile_ruleset
from compiler.map.model import MapModel
from dsl.source import SourceFiles
from muster.cli import main
from tests.conftest import RULESETS, STEPS, compiled, shared_file
from tests.vassal_decode import DecodedPiece, decode_piece, deobfuscate, read_save, split
from tests.vassal_render import grid_params, vassal_centre, vassal_label, vassal_snap
from tests.vassal_schema_check import load_schema, problems

BATTLES = ("training", "newtown", "monmouth")
SLOTS = ("VASSAL.build.widget.PieceSlot", "VASSAL.build.widget.CardSlot")
REGION = "VASSAL.build.module.map.boardPicker.board.Region"


def build_module(arg: object) -> tuple[ir.Ruleset, bytes]:
    return module_of(*compile_ruleset(arg))


def module_of(rules: ir.Ruleset, sources: SourceFiles) -> tuple[ir.Ruleset, bytes]:
    """The rules and the VASSAL module built from them."""
    files: dict[str, bytes] = {}
    for _what, run in vassal_output(rules, sources):
        files.update(run())
    return rules, files[f"{rules.name}.vmod"]


@pytest.fixture(scope="session")
def modules() -> dict[str, tuple[ir.Ruleset, bytes]]:
    """Each shipped battle's module, built once for the session."""
    return {name: module_of(*compiled(name)) for name in BATTLES}


@pytest.fixture(scope="session")
def schema() -> dict:
    """VASSAL 3.7.26's classes, from `shared/vassal/` (a user's clone has none: skip)."""
    path = shared_file("vassal", "vassal_schema.json")
    if path is None:
        pytest.skip("no shared/vassal/vassal_schema.json beside the checkout")
    return load_schema(path)


def buildfile(vmod: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        return z.read("buildFile.xml")


def names_in(vmod: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        return z.namelist()


def slots(vmod: bytes) -> list[ET.Element]:
    root = ET.fromstring(buildfile(vmod))
    return [e for cls in SLOTS for e in root.iter(cls)]


# ------------------------------------------------------------------ the buildFile


@pytest.mark.slow
@pytest.mark.parametrize("battle", BATTLES)
def test_buildfile_validates_against_vassal_classes(modules, schema, battle):
    _rules, vmod = modules[battle]
    assert problems(buildfile(vmod), schema) == []


def test_the_validator_finds_each_kind_of_mistake(modules, schema):
    xml = buildfile(modules["training"][1]).decode()
    cases = {
        "not a VASSAL class": xml.replace(
            "<VASSAL.build.module.BasicCommandEncoder />", "<VASSAL.build.module.Nonsense />"
        ),
        "has no attribute 'zoomStartt'": xml.replace("zoomStart=", "zoomStartt=", 1),
        "does not take a VASSAL.build.module.DiceButton": xml.replace(
            "<VASSAL.build.module.map.Scroller />", '<VASSAL.build.module.DiceButton name="x" />', 1
        ),
        "does not decode": xml.replace("\tpiece;;;red_guard", "\tpiece;;red_guard", 1),
    }
    for message, bad in cases.items():
        assert bad != xml
        found = problems(bad.encode(), schema)
        assert any(message in p for p in found), (message, found)


@pytest.mark.parametrize("battle", BATTLES)
def test_gpids_are_unique_and_below_next_piece_slot_id(modules, battle):
    _rules, vmod = modules[battle]
    root = ET.fromstring(buildfile(vmod))
    gpids = [int(e.get("gpid")) for e in slots(vmod)]
    assert len(gpids) == len(set(gpids))
    assert max(gpids) < int(root.get("nextPieceSlotId"))
    for e in slots(vmod):  # the slot's gpid is written in its BasicPiece state too
        assert decode_piece(e.text).state_of()[3] == e.get("gpid")


@pytest.mark.parametrize("battle", BATTLES)
def test_every_image_the_module_names_is_in_it(modules, battle):
    _rules, vmod = modules[battle]
    root = ET.fromstring(buildfile(vmod))
    images = {n.removeprefix("images/") for n in names_in(vmod) if n.startswith("images/")}
    named = {e.get("image") for e in root.iter() if e.get("image")}
    html = "VASSAL.build.widget.HtmlChart"
    named |= {e.get("fileName") for e in root.iter() if e.get("fileName") and e.tag != html}
    pages = {e.get("fileName") for e in root.iter(html)}
    assert pages and pages <= set(names_in(vmod))  # the help page, at the archive's root
    texts = [
        e.text for e in root.iter() if e.tag in (*SLOTS, "VASSAL.build.module.PrototypeDefinition")
    ]
    for t in texts:
        piece = decode_piece(t)
        for trait in piece.traits:
            if trait.id == "piece":
                named.add(trait.fields[2])
            elif trait.id == "emb2":
                named |= set(split(trait.fields[15], ","))
            elif trait.id in ("obs", "markmoved"):
                named.add(trait.fields[1] if trait.id == "obs" else trait.fields[0])
    named.discard("")
    assert named <= images, named - images
    assert "board.png" in named and "tracks.png" in named


def test_the_module_names_itself_for_vassal_3_7(modules):
    rules, vmod = modules["newtown"]
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        data = ET.fromstring(z.read("moduledata"))
        assert z.namelist()[:2] == ["buildFile.xml", "moduledata"]
        assert {f"{sc.name}.vsav" for sc in rules.scenarios} <= set(z.namelist())
    assert data.findtext("name") == rules.title
    assert data.findtext("VassalVersion").startswith("3.7")
    assert rules.title in data.findtext("description")


def test_the_same_rules_give_the_same_bytes(modules):
    assert build_module("training")[1] == modules["training"][1]


def test_the_module_has_its_game_aids(modules, schema):
    rules, vmod = modules["newtown"]
    root = ET.fromstring(buildfile(vmod))
    die = next(root.iter("VASSAL.build.module.DiceButton"))
    low, high = rules.die
    # VASSAL rolls 1..nSides and adds `plus`: the series die reads 0–9 (§ series 2.3).
    assert (int(die.get("nSides")), int(die.get("plus"))) == (high - low + 1, low - 1)
    phases = next(root.iter("VASSAL.build.module.turn.ListTurnLevel")).get("list")
    assert "Movement Phase" in split(phases, ",")
    decks = {e.get("name"): e for e in root.iter("VASSAL.build.module.map.DrawPile")}
    assert set(decks) == {b.title for b in rules.bags}
    for bag in rules.bags:
        assert len(list(decks[bag.title])) == len(bag.contents)
    hands = {e.get("side"): e.get("visible") for e in root.iter("VASSAL.build.module.PlayerHand")}
    assert hands == {s.title: "false" for s in rules.sides}
    charts = [e.get("fileName") for e in root.iter("VASSAL.build.widget.Chart")]
    assert len(charts) >= len(rules.tables)
    setups = [e.get("file") for e in root.iter("VASSAL.build.module.PredefinedSetup")]
    assert setups == [f"{sc.name}.vsav" for sc in rules.scenarios]


# ------------------------------------------------------------------ piece definitions


def slot_text(vmod: bytes, entry: str) -> str:
    return next(e.text for e in slots(vmod) if e.get("entryName") == entry)


# Written by hand from FORMAT.md. Traits nest outermost first; the tab before the
# n-th inner trait carries n−1 backslashes; BasicPiece is `piece;;;image;name`
# with state `null;0;0;gpid;0`; the flip layer is emb2's 33 fields in order.
FLIP_LAYER = (
    "emb2;Flip;130;;;130;;;130;;;;1;false;0;0;{image};+ (reduced);false;Flip;;;false;;1;1;"
    "false;70,130;;;Flip;1.0;;true"
)
# A report: the key (its comma escaped), the format, two unused fields, description, no.
FLIP_REPORT = (
    "report;70\\,130;$oldPieceName$ in $oldLocationName$: Flip → $newPieceName$;;;Report;false"
)


def tab(n: int) -> str:
    """The tab before the n-th inner trait: n − 1 backslashes, then the tab."""
    return "\\" * (n - 1) + "\t"


RED_GUARD = (
    "+/null/"
    "prototype;red counter"
    + tab(1)
    + FLIP_REPORT
    + tab(2)
    + FLIP_LAYER.format(image="red_guard-back.png")
    + tab(3)
    + "mark;Side,Kind,Formation"
    + tab(4)
    + "piece;;;red_guard-front.png;Red Guard"
    "/"
    ""
    + tab(1)
    + "-1"  # the prototype's state is empty; the report's is -1
    + tab(2)
    + "-1"  # the layer is off: full strength
    + tab(3)
    + "Red Army,unit,Red Line Army"
    + tab(4)
    + "null;0;0;1;0"
)
GENERAL_ROUGE = (
    "+/null/"
    "prototype;red counter"
    "\tmark;Side,Kind,Formation"
    "\\\tpiece;;;red_general-front.png;General Rouge"
    "/"
    "\tRed Army,leader,Red Line Army"
    "\\\tnull;0;0;8;0"
)
GAME_TURN = (
    "+/null/"
    "prototype;marker"
    "\temb2;Flip;130;;;130;;;130;;;;1;false;0;0;turn_marker-back.png;+ (back);false;Flip;;;"
    "false;;1;1;false;70,130;;;Flip;1.0;;true"
    "\\\tmark;Side,Kind"
    "\\\\\tpiece;;;turn_marker-front.png;Game Turn"
    "/"
    "\t-1"
    "\\\t,marker"  # a marker both sides use has an empty Side
    "\\\\\tnull;0;0;9;0"
)
# A card: the mask (`obs`: Ctrl+F, the back's image, peek for its side only) outermost.
CHAOS = (
    "+/null/"
    "obs;70,130;chaos-back.png;Flip card;P;Card;side:;Peek;Card;true;;"
    "\tprototype;card"
    "\\\tmark;Side,Kind"
    "\\\\\tpiece;;;chaos-front.png;Chaos"
    "/"
    "null;"  # not masked by anyone yet
    "\t"
    "\\\tIndian Player,card"
    "\\\\\tnull;0;0;93;0"
)


@pytest.mark.parametrize(
    ("battle", "entry", "golden"),
    [
        ("training", "Red Guard", RED_GUARD),
        ("training", "General Rouge", GENERAL_ROUGE),
        ("training", "Game Turn", GAME_TURN),
        ("newtown", "Chaos", CHAOS),
    ],
)
def test_piece_definitions_match_the_hand_written_ones(modules, battle, entry, golden):
    assert slot_text(modules[battle][1], entry) == golden


@pytest.mark.parametrize("battle", BATTLES)
def test_every_slot_decodes_to_its_counter(modules, battle):
    rules, vmod = modules[battle]
    titles = {u.title for u in rules.units} | {m.title for m in rules.markers}
    decoded = [decode_piece(e.text) for e in slots(vmod)]
    names = {p.name for p in decoded}
    assert titles <= names
    for u in rules.units:
        piece = next(p for p in decoded if p.name == u.title)
        flips = [t for t in piece.trait("emb2") if t.fields[18] == "Flip"]
        assert len(flips) == (1 if len(u.strengths) >= 2 else 0), u.name
        if flips:
            assert split(flips[0].fields[15], ",") == [f"{u.name}-back.png"]
        side = next(s for s in rules.sides if s.name == u.side)
        assert piece.properties()["Side"] == side.title
        assert piece.trait("prototype")[0].fields == [f"{u.side} counter"]


def state_layers(piece: DecodedPiece) -> dict[str, object]:
    """A counter's order-state layers by name (every layer but the reduced face's)."""
    return {t.fields[18]: t for t in piece.trait("emb2") if t.fields[18] != "Flip"}


@pytest.fixture(scope="module")
def steps_module() -> tuple[ir.Ruleset, bytes]:
    """The module of the training battle with a three-step unit."""
    return build_module(STEPS)


def test_a_three_step_unit_flips_through_a_level_for_each_reduced_step(steps_module):
    _rules, vmod = steps_module
    piece = decode_piece(slot_text(vmod, "Red Grenadiers"))
    [flip] = [t for t in piece.trait("emb2") if t.fields[18] == "Flip"]
    images = split(flip.fields[15], ",")
    # the unit's back, then its replacement counter's front (docs/print_and_play.md)
    assert images == ["red_grenadiers-back.png", "red_grenadiers-step3-front.png"]
    assert split(flip.fields[16], ",") == ["+ (reduced)", "+ (3rd step)"]
    assert flip.fields[26:28] == ["70,130", "70,195"]  # Ctrl+F flips, Ctrl+Shift+F: next step
    assert flip.fields[17] == "true"  # after the last step, back to the reduced face
    keys = [split(r.fields[0], ",") for r in piece.trait("report")]
    assert ["70,195"] in keys  # the next step is told in the chat
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        faces = [z.read(f"images/{name}") for name in ["red_grenadiers-front.png", *images]]
        page = z.read("help.html").decode("utf-8")
    assert len(set(faces)) == 3
    assert all(Image.open(io.BytesIO(f)).size == (96, 96) for f in faces)
    assert "Ctrl+Shift+F" in page
    # a two-step unit keeps its one-level layer and no next step
    guard = decode_piece(slot_text(vmod, "Red Guard"))
    assert [split(t.fields[15], ",") for t in guard.trait("emb2")] == [["red_guard-back.png"]]
    assert ["70,195"] not in [split(r.fields[0], ",") for r in guard.trait("report")]


def test_the_three_step_module_validates_against_vassal_classes(steps_module, schema):
    assert problems(buildfile(steps_module[1]), schema) == []


def test_order_states_are_layers_with_keys(modules):
    _rules, vmod = modules["monmouth"]
    root = ET.fromstring(buildfile(vmod))
    layers = state_layers(decode_piece(slot_text(vmod, "1st New Jersey")))
    assert {"Order", "Pinned"} <= set(layers)
    order = layers["Order"]
    assert split(order.fields[16], ",") == ["+ (Disrupted)", "+ (Shattered)"]
    keys = [t.fields[26] for t in layers.values()] + [layers["Order"].fields[27]]
    assert len(keys) == len(set(keys)) and all(keys)  # every state has its own key
    counter = next(
        e
        for e in root.iter("VASSAL.build.module.PrototypeDefinition")
        if e.get("name") == "british counter"
    )
    traits = decode_piece(counter.text).traits
    unit = decode_piece(slot_text(vmod, "1st New Jersey")).traits
    reported = {k for t in traits + unit if t.id == "report" for k in split(t.fields[0], ",")}
    assert set(keys) | {"70,130", "69,130"} <= reported  # every flip, state and elimination
    sends = [t for t in traits if t.id == "sendto"]
    assert [t.fields[0] for t in sends] == ["Eliminate", "Capture"]


def offered(vmod: bytes) -> dict[str, set[str]]:
    """Each unit and leader of the palette → the order states it offers."""
    out = {}
    for e in slots(vmod):
        piece = decode_piece(e.text)
        if piece.properties().get("Kind") in ("unit", "leader", "piece"):
            out[piece.name] = set(state_layers(piece))
    return out


BOOKKEEPING = {"Has fired", "Moving away from a PIN result (case B)"}


@pytest.mark.parametrize("battle", BATTLES)
def test_no_counter_offers_the_engines_bookkeeping(modules, battle):
    """Working notes of the engine's procedures (10.5's fired record, 13.1's PIN case)
    are no marks: no counter offers them."""
    _rules, vmod = modules[battle]
    every = set().union(*offered(vmod).values())
    assert not every & BOOKKEEPING
    assert not any("PIN result" in name for name in every)


def test_a_sides_counters_offer_only_that_sides_states(modules):
    """Newtown: Big Medicine and Wampum Belt only on the leaders the Enhancement Table
    names (1.8), Honor, Failed Resolve and Indian Withdrawal only on Indian units (V),
    none of them on an American unit; Cavalry Withdrawal only on mounted units (12.4)."""
    rules, vmod = modules["newtown"]
    got = offered(vmod)
    units = {u.title: u for u in rules.units}
    indian_only = {"Big Medicine", "Wampum Belt", "Honor", "Failed Resolve", "Indian Withdrawal"}
    for title, states in got.items():
        if units[title].side == "american":
            assert not states & indian_only, title
    assert {t for t, s in got.items() if "Big Medicine" in s} == {"Sayenqueraghta (Old Smoke)"}
    assert {t for t, s in got.items() if "Wampum Belt" in s} == {"Colonel John Butler"}
    assert sum("Honor" in s for s in got.values()) > 10
    mounted = {t for t, s in got.items() if "Cavalry Withdrawal" in s}
    assert mounted == {"McLane's DE Horse"}
    assert all(
        not s
        for t, s in got.items()
        if units[t].kind == "leader"
        and t not in ("Sayenqueraghta (Old Smoke)", "Colonel John Butler")
    )


def test_molly_pitcher_is_offered_where_the_scenario_plays_her(modules):
    """Monmouth 4.4 (optional): Molly Pitcher joins an American artillery unit. The
    scenarios that switch the rule off (Lee's Advance, the Holding Action) offer her on
    no counter; the others on the American artillery units alone."""
    rules, vmod = modules["monmouth"]
    artillery = {u.title for u in rules.units if u.side == "american" and u.type == "artillery"}
    assert {t for t, s in offered(vmod).items() if "Molly Pitcher" in s} == artillery
    for sc in rules.scenarios:
        with_molly = {
            title
            for title, (_place, piece) in saved(vmod, sc.name).items()
            if "Molly Pitcher" in state_layers(piece)
        }
        if "molly_pitcher" in sc.rules_off:
            assert not with_molly, sc.name
        else:
            assert with_molly and with_molly <= artillery, sc.name


def tag_boxes(vmod: bytes, piece: DecodedPiece) -> list[tuple[int, int, int, int]]:
    """Where a counter's state tags fall on its 96 px face: each layer's image centred
    on the counter and moved by the layer's offset, as VASSAL draws it."""
    from PIL import Image

    boxes = []
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        for t in state_layers(piece).values():
            for name in split(t.fields[15], ","):
                w, h = Image.open(io.BytesIO(z.read(f"images/{name}"))).size
                x = 48 + int(t.fields[13]) - w // 2
                y = 48 + int(t.fields[14]) - h // 2
                boxes.append((x, y, x + w, y + h))
    return boxes


@pytest.mark.parametrize("battle", ["monmouth", "newtown"])
def test_state_tags_leave_the_combat_factors_clear(modules, battle):
    """Every tag of every counter lies on the counter, clear of the factors printed along
    its foot (front and back), and no two states of a counter share a place."""
    from compiler.backends.print_and_play.geometry import COUNTER_PX
    from compiler.backends.print_and_play.layout import SLOT_BOXES
    from compiler.backends.print_and_play.mix import counter_mix
    from dsl.diagnostics import Reporter

    rules, vmod = modules[battle]
    _rules, sources = compiled(battle)
    faces = {c.name: c for c in counter_mix(rules, Reporter(sources))}
    titles = {u.title: u.name for u in rules.units}
    scale = 96 / COUNTER_PX
    checked = 0
    for e in slots(vmod):
        piece = decode_piece(e.text)
        if piece.name not in titles or not state_layers(piece):
            continue
        counter = faces[titles[piece.name]]
        factors = [
            [round(v * scale) for v in item.box]
            for face in (counter.front, counter.back)
            for item in face.items
            if item.box[1] >= SLOT_BOXES["bottom"][1]
        ]
        assert factors, piece.name
        boxes = tag_boxes(vmod, piece)
        for x0, y0, x1, y1 in boxes:
            assert min(x0, y0) >= 0 and max(x1, y1) <= 96, piece.name
            for f in factors:
                assert x1 <= f[0] or f[2] <= x0 or y1 <= f[1] or f[3] <= y0, (piece.name, f)
        layers = list(state_layers(piece).values())
        places = {(t.fields[13], t.fields[14]) for t in layers}
        assert len(places) == len(layers), piece.name
        checked += 1
    assert checked > 20


# ------------------------------------------------------------------ set-ups


def regions(vmod: bytes) -> dict[tuple[int, int], str]:
    root = ET.fromstring(buildfile(vmod))
    return {
        (int(e.get("originx")), int(e.get("originy"))): e.get("name") for e in root.iter(REGION)
    }


def nearest(boxes: dict[tuple[int, int], str], x: int, y: int) -> str:
    """The region VASSAL names a point of the tracks board by: the nearest (RegionGrid)."""
    return boxes[min(boxes, key=lambda p: (p[0] - x) ** 2 + (p[1] - y) ** 2)]


def expected_setup(rules: ir.Ruleset, sc: ir.Scenario) -> dict[str, tuple[set[str], bool]]:
    """Unit title → (the places it may start, starts reduced), read from the IR."""
    out: dict[str, tuple[set[str], bool]] = {}
    titles = {u.name: u.title for u in rules.units}
    every_hex = set(MapModel(rules).labels())
    if sc.printed_setup:
        for u in rules.units:
            if u.setup:
                out[u.title] = ({u.setup}, False)
            elif u.entry is not None:
                out[u.title] = ({f"Turn {u.entry.turn}"}, False)
        return out
    for e in sc.setup:
        allowed = {e.hexes[0]} if not e.chosen else set(e.hexes or every_hex)
        for p in e.units:
            out[titles[p.name]] = (allowed, p.reduced)
    for e in sc.reinforcements:
        for p in e.units:
            out[titles[p.name]] = ({f"Turn {e.turn}"}, p.reduced)
    return out


def saved(vmod: bytes, scenario: str) -> dict[str, tuple[str, DecodedPiece]]:
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        save = read_save(z.read(f"{scenario}.vsav"))
    params, boxes = grid_params(buildfile(vmod)), regions(vmod)
    out = {}
    for map_, x, y, ids in save.stacks:
        for pid in ids:
            piece = save.pieces[pid]
            state = piece.state_of()
            assert (state[0], int(state[1]), int(state[2])) == (map_, x, y)
            assert piece.name not in out, piece.name
            place = vassal_label(params, x, y) if map_ == "Map" else nearest(boxes, x, y)
            if map_ == "Map":  # where VASSAL itself snaps a counter dropped in that hex
                assert (x, y) == vassal_snap(params, place)
            out[piece.name] = (place, piece)
    return out


@pytest.mark.parametrize(
    ("battle", "scenario"),
    [
        (b, sc)
        for b in BATTLES
        for sc in {
            "training": ["skirmish", "night_march"],
            "newtown": ["campaign", "historical"],
            "monmouth": ["campaign", "lees_advance", "holding_action", "washingtons_stand"],
        }[b]
    ],
)
def test_each_scenario_save_is_its_setup_unit_by_unit(modules, battle, scenario):
    rules, vmod = modules[battle]
    sc = next(s for s in rules.scenarios if s.name == scenario)
    want = expected_setup(rules, sc)
    got = saved(vmod, scenario)
    units = {
        n: v for n, v in got.items() if v[1].properties().get("Kind") in ("unit", "leader", "piece")
    }
    assert set(units) == set(want)
    for title, (place, piece) in units.items():
        allowed, reduced = want[title]
        assert place in allowed, (title, place, sorted(allowed)[:5])
        flips = [t for t in piece.trait("emb2") if t.fields[18] == "Flip"]
        assert (flips[0].state == "1" if flips else False) == reduced, title
        assert not piece.trait("prototype")  # a saved game holds prototypes expanded
    assert got["Game Turn marker"][0] == f"Turn {sc.turns[0]}"
    for v in sc.values:
        if isinstance(getattr(v.value, "value", None), bool):
            continue
        side = next((s for s in rules.sides if s.name == getattr(v.index, "value", "")), None)
        var = next(x for x in rules.variables if x.name == v.variable)
        track = f"{side.short} {var.title}" if side else var.title
        assert got[f"{track} marker"][0] == f"{track} {v.value.value}"


def test_a_chosen_hex_is_the_first_the_engine_offers_and_is_described(modules):
    rules, vmod = modules["newtown"]
    root = ET.fromstring(buildfile(vmod))
    setup = next(
        e
        for e in root.iter("VASSAL.build.module.PredefinedSetup")
        if e.get("file") == "historical.vsav"
    )
    got = saved(vmod, "historical")
    sc = next(s for s in rules.scenarios if s.name == "historical")
    titles = {u.name: u.title for u in rules.units}
    for e in sc.setup:
        if e.chosen:
            for p in e.units:
                hex_ = got[titles[p.name]][0]
                assert (
                    f"{titles[p.name]} starts in {hex_}, the first hex its owner may choose"
                    in setup.get("description")
                )


def test_the_save_is_obfuscated_as_vassal_writes_it(modules):
    with (
        zipfile.ZipFile(io.BytesIO(modules["training"][1])) as z,
        zipfile.ZipFile(io.BytesIO(z.read("night_march.vsav"))) as save,
    ):
        data = save.read("savedGame")
        assert set(save.namelist()) == {"savedGame", "savedata", "moduledata"}
    assert data[:5] == b"!VCSK" and all(c in b"0123456789abcdef" for c in data[5:])
    key = int(data[5:7], 16)
    assert bytes(int(data[i : i + 2], 16) ^ key for i in range(7, 27, 2)) == b"begin_save"


# ------------------------------------------------------------------ the grid


@pytest.mark.parametrize("battle", BATTLES)
def test_hex_centres_agree_with_the_drawing_within_a_pixel(modules, battle):
    rules, vmod = modules[battle]
    renderer = MapRenderer(MapModel(rules), SCREEN_DPI)
    params = grid_params(buildfile(vmod))
    (c0, c1), (r0, r1) = rules.map.columns, rules.map.rows
    probes = [(c0, r0), (c1, r0), (c0, r1), (c1, r1), ((c0 + c1) // 2, (r0 + r1) // 2)]
    probes += [(c0 + 1, r0), (c1 - 1, r1)]  # both column parities at the edges
    for col, row in probes:
        label = f"{col:02d}{row:02d}"
        rx, ry = renderer.centre(label)
        vx, vy = vassal_centre(params, label)
        assert abs(rx - vx) <= 1 and abs(ry - vy) <= 1, (label, (rx, ry), (vx, vy))
        assert vassal_label(params, rx, ry) == label
    assert grid_of(renderer).dy == pytest.approx(120, abs=0.5)  # about 120 px a hex


# ------------------------------------------------------------------ encoding and hostile text

VALUE = st.text(alphabet=st.sampled_from(list("ab;,/\\'\t\n <&\"+")), max_size=12).filter(
    lambda v: not v.endswith("\\")
)


@given(st.lists(VALUE, min_size=2, max_size=5), st.sampled_from([";", ",", "/", "\t"]))
def test_sequences_decode_to_their_values(values, delimiter):
    assert split(sequence(values, delimiter), delimiter) == values


@given(st.lists(st.lists(VALUE, min_size=2, max_size=4), min_size=2, max_size=4))
def test_nested_sequences_decode_level_by_level(groups):
    inner = [sequence(g, ";") for g in groups]
    outer = sequence(inner, "\t")
    assert [split(v, ";") for v in split(outer, "\t")] == groups


def test_a_trailing_backslash_cannot_be_encoded_and_text_makes_it_safe():
    with pytest.raises(Unencodable):
        sequence(["a\\", "b"], ";")
    assert split(sequence([text("a\\"), "b"], ";"), ";") == ["a\\ ", "b"]


# As written in a rule file's "…", and as it must come out.
HOSTILE = r"O'Neil \"Q\", <b> & c; d\\e/f" + r"\n" + r"'g'"
DECODED = "O'Neil \"Q\", <b> & c; d\\e/f\n'g'"


@pytest.fixture(scope="session")
def hostile(tmp_path_factory) -> tuple[ir.Ruleset, bytes]:
    folder = tmp_path_factory.mktemp("hostile") / "training"
    shutil.copytree(RULESETS / "training", folder)
    battle = folder / "battle.mst"
    body = battle.read_text(encoding="utf-8")
    for old in ('"Red Guard"', '"Red Army"', '"Red Line Army"', '"Dawn"'):
        assert old in body
        body = body.replace(old, '"' + HOSTILE + '"', 1)
    battle.write_text(body, encoding="utf-8")
    scenarios = folder / "ruleset.mst"
    scenarios.write_text(scenarios.read_text().replace('"The Night March"', '"' + HOSTILE + '"'))
    return build_module(folder)


def test_hostile_names_build_a_valid_module_that_decodes_back(hostile, schema):
    rules, vmod = hostile
    assert rules.units[0].title == DECODED
    xml = buildfile(vmod)
    assert problems(xml, schema) == []
    piece = decode_piece(slot_text(vmod, DECODED))
    assert piece.name == DECODED
    assert piece.properties() == {"Side": DECODED, "Kind": "unit", "Formation": DECODED}
    root = ET.fromstring(xml)
    assert DECODED in [e.text for e in root.iter("entry")]
    assert DECODED in [e.get("name") for e in root.iter("VASSAL.build.module.PredefinedSetup")]
    assert f"{DECODED} counter" not in xml.decode()  # prototypes are named by identifiers
    got = saved(vmod, "night_march")
    assert got[DECODED][0] == "0404"
    regions_named = set(regions(vmod).values())
    assert any(DECODED in n for n in regions_named)  # the side's Eliminated box
    # The help page names the scenario in text, never as markup.
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        page = z.read("help.html").decode("utf-8")
    assert "<b> &" not in page and "&lt;b&gt; &amp; c" in page
    assert "&#x27;" not in page  # VASSAL's HTML pane reads no hexadecimal references


def test_muster_build_only_vassal_writes_the_module_and_says_where(tmp_path, capsys):
    args = ["build", str(RULESETS / "training"), "--out", str(tmp_path), "--only", "vassal"]
    assert main(args) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".muster-build",
        ".muster-files",
        "training.vmod",
    ]
    out = capsys.readouterr().out
    size = (tmp_path / "training.vmod").stat().st_size / 1e6
    assert f"VASSAL module {tmp_path / 'training.vmod'} ({size:.1f} MB)" in out


def test_a_sides_deck_is_drawn_from_by_that_side_only(modules):
    rules, vmod = modules["newtown"]
    root = ET.fromstring(buildfile(vmod))
    decks = {e.get("name"): e for e in root.iter("VASSAL.build.module.map.DrawPile")}
    sides = {s.name: s.title for s in rules.sides}
    owner = {m.name: m.side for m in rules.markers}
    for bag in rules.bags:
        deck = decks[bag.title]
        one = {owner[n] for n in bag.contents}
        if len(one) == 1 and "" not in one:
            assert deck.get("deckRestrictAccess") == "true"
            assert deck.get("deckOwners") == sides[one.pop()]
        else:
            assert deck.get("deckRestrictAccess") == "false"
    for card in root.iter("VASSAL.build.widget.CardSlot"):
        mask = decode_piece(card.text).traits[0]
        assert (mask.id, mask.fields[5]) == ("obs", "side:")  # only the owning side peeks


# ------------------------------------------------------------------ concealed units


@pytest.mark.parametrize("scenario", ["campaign", "historical"])
def test_newtowns_indian_stacks_start_masked_from_the_american_side(modules, scenario):
    """Newtown 3.4: the American player may not examine Indian player stacks. Every
    Indian unit on the map starts masked by the Indian side (VASSAL's side access: only
    the Indian player sees its face), and every unit that may be concealed in play can be
    masked and unmasked by its side; no American unit is masked."""
    _rules, vmod = modules["newtown"]
    for slot in slots(vmod):
        piece = decode_piece(slot.text)
        side = piece.properties().get("Side")
        masks = piece.trait("obs")
        if piece.properties().get("Kind") not in ("unit", "leader", "piece"):
            continue  # cards are masked as cards (test_a_sides_deck_is_drawn_from_…)
        if side == "Indian Player":
            assert masks and masks[0].fields[5] == "side:" and masks[0].fields[3] == "I"
        else:
            assert not masks, piece.name
    on_map = 0
    for _title, (place, piece) in saved(vmod, scenario).items():
        props = piece.properties()
        if props.get("Kind") not in ("unit", "leader", "piece"):
            continue
        masked_by = piece.trait("obs")[0].state.split(";")[0] if piece.trait("obs") else "null"
        if props["Side"] == "Indian Player" and not place.startswith("Turn"):
            assert masked_by == "Indian Player", place
            on_map += 1
        else:
            assert masked_by == "null", (props["Side"], place)
    assert on_map > 10


THE_AMBUSH = Path(__file__).parents[1] / "data" / "designer" / "the_ambush"


def test_markers_placed_face_down_are_masked_by_their_side():
    """The Ambush 5.3: Red places its Ambush and Dummy markers face down (a variable
    secret to Red holds them). Their pieces carry a side-owned mask, masked by Red
    from the start, so only the Red player sees which is which; no other marker is
    masked."""
    _rules, vmod = build_module(THE_AMBUSH)
    seen = set()
    for slot in slots(vmod):
        piece = decode_piece(slot.text)
        if piece.properties().get("Kind") != "marker":
            continue
        masks = piece.trait("obs")
        if piece.properties().get("Side") == "Red":
            seen.add(piece.name)
            assert masks and masks[0].fields[5] == "side:" and masks[0].fields[3] == "I"
            assert masks[0].state.split(";")[0] == "Red", piece.name
        else:
            assert not masks, piece.name
    assert seen == {"Ambush", "Dummy"}


VASSAL_CHECK = shared_file("vassal", "engine", "vassal-check")
_PIECE = re.compile(
    r"^\s+\[(?P<map>[^\]]+)\] (?P<name>.*) id=\S+ at \S+ location=(?P<where>.*?) "
    r"Side=(?P<side>.*?) Type=\S* masked=(?P<masked>\w+) obscuredToOthers=(?P<hidden>\w+)$"
)


def vassal(*args: str) -> str:
    """`vassal-check` (the real VASSAL 3.7.26): its output; skips where it cannot run."""
    if VASSAL_CHECK is None:
        pytest.skip("no shared/vassal/engine/vassal-check beside the checkout")
    done = subprocess.run(
        [str(VASSAL_CHECK), *args], capture_output=True, text=True, timeout=300, check=False
    )
    if done.returncode == 77:
        pytest.skip(f"vassal-check cannot run here: {done.stdout.strip()[-200:]}")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def vassal_scenarios(out: str) -> dict[str, list[dict[str, str]]]:
    """Each scenario VASSAL started, with the pieces it placed."""
    scenarios: dict[str, list[dict[str, str]]] = {}
    current = None
    for line in out.splitlines():
        started = re.match(r"PredefinedSetup '(.*)' loaded: ok started=true", line)
        if started:
            current = scenarios.setdefault(started.group(1), [])
        elif current is not None and (m := _PIECE.match(line)):
            current.append(m.groupdict())
    return scenarios


def placed_on_the_map(vmod: bytes, sc: ir.Scenario) -> Counter:
    """(side, hex) of every unit a scenario's saved set-up puts on the map."""
    want: Counter = Counter()
    for place, piece in saved(vmod, sc.name).values():
        props = piece.properties()
        if props.get("Kind") in ("unit", "leader", "piece") and not place.startswith("Turn"):
            want[(props["Side"], place)] += 1
    return want


# VASSAL names a point's hex from the board's place in the map, which its layout sets on
# the Swing thread while the harness lists the pieces from another: now and then a whole
# scenario reads shifted by a few hexes (the pieces' own x,y the same). A misplaced piece
# is wrong on every run; a run is tried again (twice at most) only for this race.
TRIES = 3


def vassal_until(check, *args: str) -> str:
    """`vassal(*args)` run until `check(output)` finds nothing wrong (`TRIES` at most);
    the last run's output, with `check` asserting its findings."""
    for _ in range(TRIES):
        out = vassal(*args)
        if not check(out):
            return out
    assert not check(out), check(out)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("battle", BATTLES)
def test_the_real_vassal_opens_every_scenario_as_the_rules_set_it_up(modules, battle, tmp_path):
    """VASSAL's own view of each module: it loads, every piece re-encodes unchanged, every
    scenario starts with each side's counters on the hexes its set-up gives and its
    reinforcements in their turn boxes, the units the rules conceal masked and hidden from
    the other side, the Inventory lists the counters, and each scenario saved by VASSAL
    loads back the same."""
    rules, vmod = modules[battle]
    path = tmp_path / f"{battle}.vmod"
    path.write_bytes(vmod)
    want = {text(sc.title): placed_on_the_map(vmod, sc) for sc in rules.scenarios}

    def misplaced(out: str) -> list:
        started = vassal_scenarios(out)
        wrong = []
        for title, placed in want.items():
            pieces = started.get(title, [])
            got = Counter((p["side"], p["where"]) for p in pieces if p["map"] == "Map")
            if got != placed:
                wrong.append((title, got - placed, placed - got))
        return wrong

    out = vassal_until(misplaced, "load", str(path))
    assert "LOAD OK" in out
    assert "re-encoded == original: false" not in out
    started = vassal_scenarios(out)
    sides = {s.name: text(s.title) for s in rules.sides}
    for sc in rules.scenarios:
        pieces = started[text(sc.title)]
        hidden = {(p["side"], p["where"]) for p in pieces if p["hidden"] == "true"}
        if battle == "newtown":  # 3.4: the Indian player's stacks, from the American side
            indian = sides["indian"]
            assert {k for k in want[text(sc.title)] if k[0] == indian} == {
                k for k in hidden if k[0] == indian
            }
            assert all(p["masked"] == "true" for p in pieces if p["side"] == indian)
        else:  # no rule conceals a unit: nothing on the map is hidden
            assert not hidden, hidden
    # Reinforcements wait in their turn boxes, by VASSAL's own names for the boxes.
    for sc in rules.scenarios:
        got = Counter(
            (p["side"], p["where"])
            for p in started[text(sc.title)]
            if p["map"] == "Tracks"
            and p["where"].startswith("Turn ")
            and p["side"] in sides.values()
        )
        waiting = Counter(
            (piece.properties()["Side"], place)
            for place, piece in saved(vmod, sc.name).values()
            if place.startswith("Turn ") and piece.properties().get("Side")
        )
        assert got == waiting, (sc.name, got - waiting, waiting - got)
    # The Inventory's filter is the module's, the same in every scenario: the first's.
    inventory = vassal("inventory", str(path), "0")
    leaves = re.search(r"include='[^']*' -> leaves (\d+)", inventory)
    assert leaves and int(leaves.group(1)) > 0, inventory[-500:]

    def not_identical(out: str) -> list:
        trips = re.findall(r"^(.*): pieces before .* identical=(\w+)", out, re.M)
        if len(trips) != len(rules.scenarios):
            return ["not every scenario saved", out[-1000:]]
        return [title for title, same in trips if same != "true"]

    rt = tmp_path / "roundtrip"
    rt.mkdir()
    vassal_until(not_identical, "roundtrip", str(path), str(rt))


@pytest.mark.parametrize("battle", BATTLES)
def test_a_sides_counters_answer_only_that_side(modules, battle):
    """Each side's counter prototype begins with VASSAL's Restricted Access for that side:
    another side's player can neither move its counters nor give them a command."""
    rules, vmod = modules[battle]
    root = ET.fromstring(buildfile(vmod))
    protos = {e.get("name"): e.text for e in root.iter("VASSAL.build.module.PrototypeDefinition")}
    for side in rules.sides:
        outer = decode_piece(protos[f"{side.name} counter"]).traits[0]
        assert outer.id == "restrict" and outer.fields[:3] == [text(side.title), "false", "true"]
    assert not any(t.id == "restrict" for t in decode_piece(protos["marker"]).traits)


# ------------------------------------------------------------------ chat reports


def every_piece(vmod: bytes) -> list[DecodedPiece]:
    """Every counter of the palette and the decks, its prototypes expanded."""
    root = ET.fromstring(buildfile(vmod))
    protos = {
        e.get("name"): decode_piece(e.text).traits[:-1]
        for e in root.iter("VASSAL.build.module.PrototypeDefinition")
    }
    out = []
    for e in slots(vmod):
        piece = decode_piece(e.text)
        traits = []
        for t in piece.traits:
            traits += protos[t.fields[0]] if t.id == "prototype" else [t]
        out.append(DecodedPiece(piece.piece_id, traits))
    return out


@pytest.mark.parametrize("battle", BATTLES)
def test_every_command_is_reported_with_the_counter_and_where(modules, battle):
    """Each key a counter answers to (flip, each order state, eliminate, capture, delete) is
    reported once, naming the counter and where it stood as VASSAL knew them before the
    command (`$oldPieceName$ in $oldLocationName$`), what was done in words, and what it
    became or where it went; never `$menuCommand$`, which VASSAL leaves blank for a
    counter the reporting player may not command."""
    _rules, vmod = modules[battle]
    for piece in every_piece(vmod):
        reports = [t for t in piece.traits if t.id == "report"]
        reported = [k for t in reports for k in split(t.fields[0], ",")]
        assert len(reported) == len(set(reported)), piece.name
        keys = {t.fields[26] for t in piece.trait("emb2")} | {
            t.fields[27] for t in piece.trait("emb2") if t.fields[27]
        }
        keys |= {t.fields[1] for t in piece.traits if t.id in ("sendto", "delete")}
        assert keys <= set(reported), (piece.name, keys - set(reported))
        for t in reports:
            form = t.fields[1]
            assert form.startswith("$oldPieceName$ in $oldLocationName$: "), form
            assert "$menuCommand$" not in form
            words = form.split(": ", 1)[1].split(" → ")[0]
            assert words and "$" not in words
        sent = [t.fields[1] for t in reports if t.fields[0] in ("69\\,130", "69,130")]
        assert all(f.endswith("→ $location$") for f in sent)


def test_a_hand_names_its_counters_location(modules):
    """A card in a side's hand is reported "in <side> hand": the hand's board is one zone."""
    _rules, vmod = modules["newtown"]
    root = ET.fromstring(buildfile(vmod))
    for hand in root.iter("VASSAL.build.module.PlayerHand"):
        zones = list(hand.iter("VASSAL.build.module.map.boardPicker.board.mapgrid.Zone"))
        assert [z.get("name") for z in zones] == [hand.get("mapName")]
        assert zones[0].get("locationFormat") == "$name$"


# ------------------------------------------------------------------ the turn boxes


@pytest.mark.parametrize("battle", BATTLES)
def test_reinforcement_stacks_fit_their_turn_boxes(modules, battle):
    """Every stack a scenario puts in a turn box, drawn as VASSAL draws a stack that is not
    expanded (the StackMetrics' offsets), lies inside that box, and VASSAL names its place
    by that box."""
    from compiler.backends.vassal.tracks import layout

    rules, vmod = modules[battle]
    root = ET.fromstring(buildfile(vmod))
    tracks = next(m for m in root.iter("VASSAL.build.module.Map") if m.get("mapName") == "Tracks")
    metrics = next(tracks.iter("VASSAL.build.module.map.StackMetrics"))
    dx, dy = int(metrics.get("unexSepX")), int(metrics.get("unexSepY"))
    boxes = {b.name: b for b in layout(rules).boxes}
    names = regions(vmod)
    checked = 0
    for sc in rules.scenarios:
        with zipfile.ZipFile(io.BytesIO(vmod)) as z:
            save = read_save(z.read(f"{sc.name}.vsav"))
        for map_, x, y, ids in save.stacks:
            place = nearest(names, x, y)
            if map_ != "Tracks" or not place.startswith("Turn "):
                continue
            b = boxes[place]
            n = len(ids)
            left, right = x - 48, x + 48 + dx * (n - 1)
            top, bottom = y - 48 - dy * (n - 1), y + 48
            assert b.x <= left and right <= b.x + b.w, (sc.name, place, n)
            assert b.y <= top and bottom <= b.y + b.h, (sc.name, place, n)
            checked += n
    if battle == "monmouth":
        assert checked > 60


# ------------------------------------------------------------------ the start view


@pytest.mark.parametrize("battle", BATTLES)
def test_each_scenario_sets_the_hex_the_set_up_button_centres_on(modules, battle):
    """The main map's Set-up button (VASSAL's MoveCameraButton) centres the map on the
    grid location `$SetUpHex$`, a module property each scenario's saved game sets to the
    hex of its set-up nearest the middle of its units."""
    rules, vmod = modules[battle]
    root = ET.fromstring(buildfile(vmod))
    main = next(m for m in root.iter("VASSAL.build.module.Map") if m.get("mapName") == "Map")
    button = next(main.iter("VASSAL.build.module.map.MoveCameraButton"))
    assert (button.get("moveCameraMode"), button.get("gridLocation")) == ("G", "$SetUpHex$")
    assert button.get("boardName") == "Map board"
    prop = next(root.iter("VASSAL.build.module.properties.GlobalProperty"))
    assert prop.get("name") == "SetUpHex"
    params = grid_params(buildfile(vmod))
    for sc in rules.scenarios:
        with zipfile.ZipFile(io.BytesIO(vmod)) as z:
            save = read_save(z.read(f"{sc.name}.vsav"))
        sets = [c for c in save.commands if c.startswith("GlobalProperty\t;SetUpHex;")]
        assert len(sets) == 1, sc.name
        hex_ = split(sets[0], ";")[2]
        on_map = [vassal_label(params, x, y) for m, x, y, _ids in save.stacks if m == "Map"]
        assert hex_ in on_map, (sc.name, hex_)
        points = [vassal_centre(params, h) for h in on_map]
        mx = sum(p[0] for p in points) / len(points)
        my = sum(p[1] for p in points) / len(points)
        hx, hy = vassal_centre(params, hex_)
        best = min((px - mx) ** 2 + (py - my) ** 2 for px, py in points)
        assert (hx - mx) ** 2 + (hy - my) ** 2 <= best + 1, sc.name


def test_the_help_page_says_which_rules_each_scenario_plays(modules):
    """A VASSAL player has no engine to keep the rules: the help page says, per
    scenario, the rules always played, those not used (Monmouth 6.18 for Lee's
    Advance) and those the players choose, an option with its rule only (4.4) and
    the play-balance rules one or the other (V)."""
    _rules, vmod = modules["monmouth"]
    with zipfile.ZipFile(io.BytesIO(vmod)) as z:
        page = z.read("help.html").decode("utf-8")
    lees = page.split("<h3>Scenario I: Lee's Advance</h3>")[1].split("<h3>")[0]
    assert "<p>Always played: Heat Game Turns, Command &amp; Control.</p>" in lees
    assert "Not used: Molly Pitcher, British Rear Guard Maneuver Zone," in lees
    assert "Pro-American (play balance; not with Pro-British)" in lees
    assert "Molly Pitcher (optional)" not in lees
    campaign = page.split("(Campaign Game)</h3>")[1].split("<h3>")[0]
    assert "Molly Pitcher: Historical Deployment Option (optional; with Molly Pitcher only)" in (
        campaign
    )
    assert "Momentum Chits (advanced, played unless left out)" in campaign
    assert "Not used:" not in campaign


def test_a_set_up_puts_the_turn_tracker_on_its_scenarios_first_turn(modules):
    """Each scenario's saved set-up starts the Turn tracker on the scenario's first turn
    (Lee's Advance on turn 4, Newtown's historical scenario on 5), at the first phase:
    the command VASSAL's own save writes for it (`vassal-check roundtrip`)."""
    for rules, vmod in modules.values():
        last = rules.turns[1]
        for sc in rules.scenarios:
            with (
                zipfile.ZipFile(io.BytesIO(vmod)) as z,
                zipfile.ZipFile(io.BytesIO(z.read(f"{sc.name}.vsav"))) as save,
            ):
                commands = split(deobfuscate(save.read("savedGame")), "\x1b")
            turns = [c for c in commands if c.startswith("TURN")]
            assert commands[-1] == "end_save" and len(turns) == 1, (rules.name, sc.name)
            assert turns[0].startswith(f"TURNTurnTracker0\t0|{sc.turns[0]};0;true;{last};0\\;")
