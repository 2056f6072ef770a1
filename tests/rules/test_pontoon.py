"""A terrain change made at one of many places, and a hexside impassable unless it
is made (Mill Creek 3.8, 3.9: the attacker's pontoon among twelve creek hexsides,
the upper ford crossed only while it stands).

The engine's patched board for every place is the board built from the changed
map; the place is part of the state (saved, loaded, checked); the refusal to
cross the closed ford cites its rule; `muster path` routes as the engine does;
and the checker places each mistake at its file, line and column.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import fields
from pathlib import Path

import pytest

from compiler.backends.vassal import tracks
from compiler.backends.vassal.pieces import pieces_of
from compiler.build import load_game
from compiler.check import compile_ruleset
from compiler.check.terrain_changes import changed_rules, options
from compiler.map.board import build_board
from engine import effects, invariants, pathing, queries
from engine.explain import why_not
from engine.nodes import RulesError
from engine.save import from_json, to_json
from engine.terrain_state import CHANGED_TERRAIN, board_of, changed_board
from muster.cli import main
from table.views import terrain_changes_json
from tests.conftest import first_movement

MILL_CREEK = Path(__file__).parent.parent / "data" / "designer" / "mill_creek"
PLACES = [
    "0501/0601",
    "0502/0602",
    "0505/0605",
    "0506/0606",
    "0508/0608",
    "0502/0601",
    "0503/0602",
    "0504/0603",
    "0505/0604",
    "0506/0605",
    "0507/0606",
    "0508/0607",
]


@pytest.fixture(scope="module")
def game():
    return load_game(MILL_CREEK)


@pytest.fixture(scope="module")
def rules():
    return compile_ruleset(MILL_CREEK)[0]


def test_the_pontoon_may_be_laid_at_twelve_places(game):
    s = game.new_initial_state()
    assert queries.places_of(s, "pontoon_laid") == tuple(PLACES)


def test_every_place_patches_to_the_board_built_from_the_changed_map(game, rules):
    """Each place alone, and with the bridge blown (one group: they are neighbours)."""
    i = [c.name for c in rules.terrain_changes].index("pontoon_laid")
    assert options(rules.terrain_changes[i]) == tuple(PLACES)
    for place in PLACES:
        for blown in (False, True):
            made = ((0, ""),) * blown + ((i, place),)
            expected = build_board(changed_rules(rules, made))
            entries = ("bridge_blown",) * blown + (f"pontoon_laid@{place}",)
            found = changed_board(game.rules, entries)
            for f in fields(expected):
                assert getattr(found, f.name) == getattr(expected, f.name), (entries, f.name)


def test_a_place_is_required_and_must_be_one_of_them(game):
    s = game.new_initial_state()
    with pytest.raises(RulesError, match=r"made at one of 0501/0601, .*not nowhere"):
        effects.change_terrain(s, "pontoon_laid")
    with pytest.raises(RulesError, match="not 0503/0603"):
        effects.change_terrain(s, "pontoon_laid", "0503/0603")  # the ford
    with pytest.raises(RulesError, match="no places to choose from"):
        effects.change_terrain(s, "bridge_blown", "0504/0604")


def test_laid_moved_and_taken_up_with_the_account(game):
    s = game.new_initial_state()
    s.take_messages()
    effects.change_terrain(s, "pontoon_laid", "0504/0603")
    assert queries.terrain_changed(s, "pontoon_laid")
    assert queries.terrain_changed_at(s, "pontoon_laid") == "0504/0603"
    effects.change_terrain(s, "pontoon_laid", "0506/0606")  # laid elsewhere: it moves
    assert s.vars[CHANGED_TERRAIN] == ("pontoon_laid@0506/0606",)
    effects.restore_terrain(s, "pontoon_laid")
    assert s.vars[CHANGED_TERRAIN] == ()
    assert s.take_messages() == [
        "The pontoon is laid at 0504/0603.",
        "The pontoon is laid at 0506/0606.",
        "The pontoon is laid: undone at 0506/0606.",
    ]


def test_the_closed_ford_refuses_with_its_rule(game):
    s = first_movement(game, attacker_foot="0507")
    u = game.rules.unit_index("attacker_foot")
    board = board_of(s)
    a, h = game.hex_by_label["0507"], game.hex_by_label["0607"]
    step = s.game.actions.step(u, board.neighbors[a].index(h))
    reason = why_not(s, step)
    assert reason is not None
    assert (
        reason.text == "1st Foot may not cross the Upper Ford hexside unless the pontoon is laid."
    )
    assert reason.cite == "§ mill_creek 3.9"
    opened = first_movement(game, ("pontoon_laid@0501/0601",), attacker_foot="0507")
    assert why_not(opened, step) is None


def test_the_place_is_saved_loaded_checked_and_shown(game):
    s = first_movement(game, ("bridge_blown", "pontoon_laid@0505/0605"), attacker_foot="0405")
    data = to_json(s)
    assert data["vars"][CHANGED_TERRAIN] == ["bridge_blown", "pontoon_laid@0505/0605"]
    loaded = from_json(game, data)
    assert loaded.vars[CHANGED_TERRAIN] == ("bridge_blown", "pontoon_laid@0505/0605")
    assert board_of(loaded) is board_of(s)
    assert invariants.violations(loaded) == []
    assert s.observation(1)["vars"][CHANGED_TERRAIN] == data["vars"][CHANGED_TERRAIN]
    shown = terrain_changes_json(s, s.observation(0))
    assert shown[1] == {
        "name": "pontoon_laid",
        "title": "The pontoon is laid",
        "marker": "pontoon",
        "hexes": [],
        "hexsides": [["0505", "0605"]],
        "place": "0505/0605",
    }
    assert invariants.fits(loaded, "terrain_changes", ("pontoon_laid@0505/0605",))
    for bad in ("pontoon_laid@0503/0603", "pontoon_laid", "bridge_blown@0504/0604"):
        assert not invariants.fits(loaded, "terrain_changes", (bad,)), bad
    assert not invariants.fits(
        loaded, "terrain_changes", ("pontoon_laid@0505/0605", "bridge_blown")
    )


@pytest.mark.parametrize("place", ["", "0505/0605", "0507/0606", "0501/0601"])
def test_muster_path_routes_as_the_engine_does(game, capsys, place):
    changed = (f"pontoon_laid@{place}",) if place else ()
    s = first_movement(game, changed)
    for a, b in (("0405", "0805"), ("0507", "0607"), ("0406", "0706")):
        found = pathing.cheapest_path(board_of(s), game.hex_by_label[a], game.hex_by_label[b])
        assert found is not None
        argv = ["path", str(MILL_CREEK), a, b, "--unit", "attacker_foot"]
        assert main(argv + (["--changed", *changed] if changed else [])) == 0
        out = capsys.readouterr().out
        assert f"{a} → {b} costs {found[0]} MP" in out, (place, out)
        steps = re.findall(r"^  (\d{4}) → (\d{4})", out, re.M)
        assert [game.hex_by_label[x] for x in (steps[0][0], *(y for _x, y in steps))] == list(
            found[1]
        )


def test_muster_path_refuses_a_place_not_among_them(capsys):
    argv = ["path", str(MILL_CREEK), "0507", "0607", "--unit", "attacker_foot"]
    assert main([*argv, "--changed", "pontoon_laid@0503/0603"]) == 1
    assert "made at one of its places (0501/0601" in capsys.readouterr().err


SPECIAL = "special_rules.mst"


ONE_OF = "pontoon_bridge one_of " + " ".join(PLACES)


@pytest.mark.parametrize(
    ("old", "new", "at", "col", "message"),
    [
        (
            "impassable unless terrain_changed(pontoon_laid)",
            "impassable unless terrain_changed(pontoon_lad)",
            "pontoon_lad",
            5,
            r"hexside 'upper_ford' is impassable unless a terrain change is made; "
            r"'pontoon_lad' is not one.*\n(.*\n)*.*did you mean 'pontoon_laid'\?",
        ),
        (
            "impassable unless terrain_changed(pontoon_laid)",
            "impassable while terrain_changed(pontoon_laid)",
            "impassable while",
            5,
            r"write `impassable unless terrain_changed\(CHANGE\)`",
        ),
        (
            ONE_OF,
            "pontoon_bridge one_of 0501/0601",
            "one_of 0501/0601",
            5,
            r"`one_of` lists two places or more",
        ),
        (
            ONE_OF,
            f"{ONE_OF}\n    pontoon_bridge one_of 0401/0501 0402/0502",
            "one_of 0401/0501",
            5,
            r"a terrain change has one `one_of` line",
        ),
        (
            "    marker pontoon\n}",
            '    marker pontoon\n}\n\nterrain_change flood "The fords" § mill_creek 3.8 {\n'
            "    creek one_of 0401/0501 0402/0502\n}",
            "terrain_change flood",
            1,
            r"the terrain changes bridge_blown, pontoon_laid, flood touch the same or "
            r"neighbouring hexes and make 77 combinations: at most 64",
        ),
    ],
    ids=["unknown change", "not unless", "one place", "two one_of", "too many boards"],
)
def test_a_mistake_is_placed_and_said(tmp_path, capsys, old, new, at, col, message):
    folder = tmp_path / "mill_creek"
    shutil.copytree(MILL_CREEK, folder)
    path = folder / SPECIAL
    text = path.read_text()
    assert old in text
    text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    line = next(n for n, ln in enumerate(text.splitlines(), 1) if at in ln)
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert re.search(rf"{SPECIAL}:{line}:{col}: error: " + message, err), err
    assert "Traceback" not in err


def test_the_vassal_palette_has_the_terrain_markers_apart(rules):
    slots = {s.name: s for s in pieces_of(rules, tracks.layout(rules)).slots}
    for name in ("pontoon", "blown_bridge"):
        assert (slots[name].tab, slots[name].group, slots[name].kind) == (
            "Markers",
            "Terrain changes",
            "marker",
        )
