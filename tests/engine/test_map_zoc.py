"""Zones of control (8.1) on hand-made maps: projection and its exceptions.

A ZOC extends from a combat unit into the six adjacent hexes, across creeks
and fords, but not into forest, orchard or village hexes (out of them it
does; the village rule is Monmouth 4.9, declared in the TEC as `zoc_into no`)
and not into fieldworks across their hexside. Around 0505 the neighbours are
0504 (N), 0604 (NE), 0605 (SE), 0506 (S), 0405 (SW), 0404 (NW).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import queries
from engine.state import ON_MAP
from engine.zoc import zoc_hexes
from tests.maps import board, game

RING = {"0504", "0604", "0605", "0506", "0405", "0404"}


def zoc_from(m, label: str) -> set[str]:
    return {n for n in m.neighbors(label) if n is not None and m.zoc_extends(label, n)}


def test_a_unit_in_the_open_projects_into_all_six_hexes(tmp_path):
    m, _spec = board(tmp_path, "creek 0505/0504", "creek 0505/0604", "ford 0505/0604")
    assert zoc_from(m, "0505") == RING  # across a creek and a ford (8.1)


@pytest.mark.parametrize("terrain", ["forest", "orchard", "village"])
def test_out_of_but_not_into_forest_orchard_and_village(tmp_path, terrain):
    m, _spec = board(tmp_path, f"{terrain} 0504 0505")
    assert zoc_from(m, "0505") == RING - {"0504"}  # not into 0504
    assert "0505" not in zoc_from(m, "0404")  # nor into 0505
    assert zoc_from(m, "0504") == {"0503", "0604", "0404", "0403", "0603"}  # out of it, yes


def test_out_of_but_not_into_fieldworks(tmp_path):
    m, _spec = board(tmp_path, "fieldworks 0505/0504 0505/0604")  # works in 0505 facing north
    assert "0505" not in zoc_from(m, "0504")  # not into the works across their hexside
    assert "0505" not in zoc_from(m, "0604")
    assert "0505" in zoc_from(m, "0506")  # from behind, across a plain hexside
    assert zoc_from(m, "0505") == RING  # out of the works


def test_the_map_edge_bounds_a_zoc(tmp_path):
    m, _spec = board(tmp_path)
    assert zoc_from(m, "0101") == {"0102", "0201"}  # a corner hex has two neighbours


def test_retreat_and_movement_read_the_same_projection(tmp_path):
    g = game(tmp_path, "forest 0404")
    s = g.new_initial_state()
    east = g.side_by_name["east_army"]
    u = g.unit_by_name["east_foot"]
    s.unit_hex[u], s.unit_status[u] = g.hex_by_label["0505"], ON_MAP
    zoc = {g.rules.board.labels[h] for h in zoc_hexes(s, queries.units_of(s, east))}
    assert zoc == RING - {"0404"}


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**16))
def test_run_time_zoc_agrees_with_the_model(tmp_path_factory, seed):
    m, spec = board(
        tmp_path_factory.mktemp("map"),
        "forest 0302..0404 0606",
        "village 0707",
        "fieldworks 0505/0504",
    )
    rng = random.Random(seed)
    for h in rng.sample(range(len(spec.labels)), 10):
        label = spec.labels[h]
        expected = zoc_from(m, label)
        got = {spec.labels[spec.neighbors[h][d]] for d in range(6) if spec.zoc_out[h] >> d & 1}
        assert got == expected
