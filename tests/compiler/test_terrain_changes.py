"""Terrain changed in play (`terrain_change`): the engine's patched board is the
board the compiler builds from the changed map, every map question reads it,
and the change is part of the state (saved, observed, undone).

The hand-made map has changes of every kind — a bridge blown, a ford flooded
(two neighbouring changes, so one group), a village burnt (blocking terrain,
so line of sight changes), a slope levelled, a road cut far away — and every
combination of them is compared with a board built from scratch.
"""

from __future__ import annotations

import itertools
from dataclasses import fields, replace

import pytest

from compiler.build import load_game
from compiler.check import compile_ruleset
from compiler.check.terrain_changes import change_groups, changed_map
from compiler.map.board import build_board
from engine import effects, queries
from engine.save import from_json, to_json
from engine.terrain_state import CHANGED_TERRAIN, board_of, changed_board
from tests.maps import write_map

CHANGES = """
marker change_marker "Changed" { count 5 }

terrain_change bridge_blown "The bridge is blown" {
    remove bridge 0404/0504
    marker change_marker
}

terrain_change ford_flooded "The ford is flooded" {
    remove ford 0405/0505
}

terrain_change village_burnt "The village burns" {
    clear 0702
    marker change_marker
}

terrain_change slope_levelled "The slope is levelled" {
    remove slope 0207/0307
}

terrain_change road_cut "A wood felled across the road" {
    forest 0808
    fieldworks 0809/0808
}
"""

MAP_LINES = (
    "creek 0401..0409/0501..0509",
    "bridge 0404/0504",
    "ford 0405/0505",
    "village 0702",
    "forest 0602",
    "slope 0207/0307 0206/0306",
    "road 0708 0808 0908",
)


@pytest.fixture(scope="module")
def changing(tmp_path_factory):
    folder = tmp_path_factory.mktemp("changes")
    path = write_map(folder, *MAP_LINES)
    path.write_text(path.read_text() + CHANGES, encoding="utf-8")
    rules, _sources = compile_ruleset(path)
    return rules, load_game(path)


def test_neighbouring_changes_are_grouped(changing):
    rules, _game = changing
    names = [c.name for c in rules.terrain_changes]
    groups = [{names[i] for i in g} for g in change_groups(rules.terrain_changes, rules.map)]
    assert {"bridge_blown", "ford_flooded"} in groups
    assert {"village_burnt"} in groups and {"road_cut"} in groups


def test_every_combination_patches_to_the_board_built_from_the_changed_map(changing):
    rules, game = changing
    names = [c.name for c in rules.terrain_changes]
    printed = game.rules.board
    for size in range(1, len(names) + 1):
        for made in itertools.combinations(names, size):
            chosen = tuple(c for c in rules.terrain_changes if c.name in made)
            expected = build_board(replace(rules, map=changed_map(rules.map, chosen)))
            found = changed_board(game.rules, made)
            for f in fields(expected):
                assert getattr(found, f.name) == getattr(expected, f.name), (made, f.name)
    # The changes do change what the engine reads.
    burnt = changed_board(game.rules, ("village_burnt",))
    assert burnt.los_codes != printed.los_codes
    blown = changed_board(game.rules, ("bridge_blown",))
    assert blown.move_cost != printed.move_cost


def test_the_effects_change_what_movement_and_line_of_sight_read(changing):
    _rules, game = changing
    s = game.new_initial_state()
    h = game.hex_by_label
    assert not queries.los(s, h["0701"], h["0703"])  # the village blocks
    bridge = queries.move_cost(s, 0, h["0404"], h["0504"])
    effects.change_terrain(s, "village_burnt")
    effects.change_terrain(s, "bridge_blown")
    assert s.vars[CHANGED_TERRAIN] == ("bridge_blown", "village_burnt")
    assert queries.terrain_changed(s, "village_burnt")
    assert queries.los(s, h["0701"], h["0703"])  # burnt to clear ground: it sees
    assert queries.move_cost(s, 0, h["0404"], h["0504"]) > bridge  # the creek again
    assert board_of(s) is changed_board(game.rules, ("bridge_blown", "village_burnt"))
    assert any("The village burns (0702)" in m for m in s.take_messages())
    effects.restore_terrain(s, "village_burnt")
    assert s.vars[CHANGED_TERRAIN] == ("bridge_blown",)
    assert not queries.los(s, h["0701"], h["0703"])


def test_the_change_is_saved_and_observed(changing):
    _rules, game = changing
    s = game.new_initial_state()
    effects.change_terrain(s, "ford_flooded")
    data = to_json(s)
    assert data["vars"][CHANGED_TERRAIN] == ["ford_flooded"]
    assert s.observation(0)["vars"][CHANGED_TERRAIN] == ["ford_flooded"]
    loaded = from_json(game, data)
    assert loaded.vars[CHANGED_TERRAIN] == ("ford_flooded",)
    assert loaded.state_hash() == s.state_hash()
    data["vars"][CHANGED_TERRAIN] = ["no_such_change"]
    with pytest.raises(ValueError, match=CHANGED_TERRAIN):
        from_json(game, data)


def test_a_ruleset_without_changes_reads_the_printed_board(changing, training):
    s = training.new_initial_state()
    assert CHANGED_TERRAIN not in s.vars
    assert board_of(s) is training.rules.board
