"""Movement costs (9.4, 9.51), strategic movement (9.52), ZOC costs (8.31), paths.

Costs are read on hand-made maps along column 3 of a grid whose even columns
are shifted down: 0305 and 0304 are neighbours across their north/south
hexside. The base TEC (data/maps/common.mst) has clear 1, forest 2
(artillery 3), marsh 3 (artillery prohibited), lake prohibited; creek +1
(artillery +2), a ford or a bridge replaces the creek, a slope costs +1 up
(artillery +2) and nothing down, the combined slope/creek +3 up (artillery
prohibited) and +2 down; road, track and path 1.
"""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.map.hexmap import Grid
from engine import pathing
from engine.board import PROHIBITED
from engine.save import from_json
from tests.maps import board, game

CASES = [
    # map lines, (MP 0305 → 0304, artillery), (MP 0304 → 0305, artillery)
    ((), (1, 1), (1, 1)),
    (("forest 0304",), (2, 3), (1, 1)),
    (("creek 0304/0305",), (2, 3), (2, 3)),
    (("forest 0304", "creek 0304/0305"), (3, 5), (2, 3)),  # hex and hexside add up (9.4)
    (("creek 0304/0305", "ford 0304/0305"), (1, 1), (1, 1)),
    (("creek 0304/0305", "bridge 0304/0305"), (1, 1), (1, 1)),
    (("slope 0304/0305",), (2, 3), (1, 1)),  # 0304 is up-slope
    (("slope 0305/0304",), (1, 1), (2, 3)),
    # Up Slope/Creek and Down Slope/Creek: their own costs, not slope + creek (9.4).
    (("slope 0304/0305", "creek 0304/0305"), (4, None), (3, 3)),
    # A ford on it leaves a slope to climb.
    (("slope 0304/0305", "creek 0304/0305", "ford 0304/0305"), (2, 3), (1, 1)),
    (("marsh 0304",), (3, None), (1, 1)),
    (("lake 0304",), (None, None), (1, 1)),
    # Along a road, track or path: 1 MP whatever else is there (9.51).
    (("forest 0304", "creek 0304/0305", "road 0305 0304"), (1, 1), (1, 1)),
    (("marsh 0304", "slope 0304/0305", "creek 0304/0305", "track 0305 0304"), (1, 1), (1, 1)),
    (("forest 0304", "path 0304 0305"), (1, 1), (1, 1)),
]


@pytest.mark.parametrize(("lines", "north", "south"), CASES)
def test_terrain_effects_on_movement(tmp_path, lines, north, south):
    m, spec = board(tmp_path, *lines)
    for (a, b), expected in ((("0305", "0304"), north), (("0304", "0305"), south)):
        assert (m.move_cost(a, b), m.move_cost(a, b, "artillery")) == expected
        # The run-time table says the same.
        ia, ib = spec.labels.index(a), spec.labels.index(b)
        d = spec.neighbors[ia].index(ib)
        got = tuple(spec.move_cost[spec.move_classes.index(k)][ia][d] for k in ("", "artillery"))
        assert got == tuple(PROHIBITED if c is None else c for c in expected)


def test_off_the_map_is_prohibited(tmp_path):
    _m, spec = board(tmp_path)
    corner = spec.labels.index("0101")
    assert [spec.move_cost[0][corner][d] for d in range(6)] == [-1, -1, 1, 1, -1, -1]


# ---------------------------------------------------------------- strategic movement (9.52)

ROADS = (
    "road 0105 0205 0305 0405",
    "track 0405 0505 0605",
    "path 0605 0705 0805",
    "creek 0305/0405",
    "ford 0305/0405",  # a ford on the road does not impede strategic movement
    "forest 0205",
)


def labelled(spec, found: dict[int, int]) -> dict[str, int]:
    return {spec.labels[h]: c for h, c in found.items()}


def test_strategic_movement_follows_connected_roads_and_tracks(tmp_path):
    _m, spec = board(tmp_path, *ROADS)
    start = spec.labels.index("0105")
    reach = labelled(spec, pathing.strategic_reachable(spec, start, 2))
    assert reach == {"0105": 0, "0205": 1, "0305": 2, "0405": 3, "0505": 4}
    reach = labelled(spec, pathing.strategic_reachable(spec, start, 4))
    assert max(reach, key=reach.get) == "0605"  # not along the path beyond it
    assert "0705" not in reach and "0104" not in reach


def test_strategic_movement_keeps_away_from_enemy_units(tmp_path):
    _m, spec = board(tmp_path, *ROADS)
    near = frozenset(spec.neighbors[spec.labels.index("0504")]) - {-1}  # an enemy in 0504
    start = spec.labels.index("0105")
    reach = labelled(spec, pathing.strategic_reachable(spec, start, 4, near_enemy=near))
    assert "0505" not in reach and max(reach.values()) == 3
    begins_near = spec.labels.index("0505")
    assert labelled(spec, pathing.strategic_reachable(spec, begins_near, 4, near_enemy=near)) == {
        "0505": 0
    }


def test_roads_at_run_time(tmp_path):
    m, spec = board(tmp_path, *ROADS)
    for a in range(len(spec.labels)):
        for d, b in enumerate(spec.neighbors[a]):
            if b >= 0:
                la, lb = spec.labels[a], spec.labels[b]
                assert bool(spec.road[a] >> d & 1) == m.road(la, lb)
                assert bool(spec.strategic[a] >> d & 1) == m.strategic(la, lb)
    assert m.strategic("0405", "0505") and m.road("0605", "0705")
    assert not m.strategic("0605", "0705")


# ---------------------------------------------------------------- paths and the one-hex minimum


def test_cheapest_path_and_reachable_hexes(tmp_path):
    _m, spec = board(tmp_path, *ROADS, "lake 0304 0404 0504", "marsh 0306")
    ids = {label: i for i, label in enumerate(spec.labels)}
    cost, path = pathing.cheapest_path(spec, ids["0105"], ids["0605"])
    assert cost == 5 and len(path) == 6 and spec.labels[path[-1]] == "0605"
    # Artillery may not enter the marsh in 0306: it goes round, by the road west
    # (1 MP into the forest of 0205) or the ford east, three hexes either way.
    artillery = spec.move_classes.index("artillery")
    cost, path = pathing.cheapest_path(spec, ids["0305"], ids["0307"], artillery)
    assert cost == 3 and ids["0306"] not in path
    assert pathing.cheapest_path(spec, ids["0305"], ids["0304"]) is None  # a lake
    # A unit may always move one hex (9.1), however dear.
    reach = labelled(spec, pathing.reachable(spec, ids["0305"], 1))
    assert reach["0306"] == 3 and "0304" not in reach


@st.composite
def terrain_lines(draw):
    hexes = [Grid.label(c, r) for c in range(1, 8) for r in range(1, 8)]
    chosen = draw(
        st.dictionaries(st.sampled_from(hexes), st.sampled_from(["forest", "marsh", "lake"]))
    )
    by_terrain: dict[str, list[str]] = {}
    for label, terrain in sorted(chosen.items()):
        by_terrain.setdefault(terrain, []).append(label)
    return [f"{terrain} {' '.join(labels)}" for terrain, labels in by_terrain.items()]


@settings(max_examples=10, deadline=None)
@given(terrain_lines(), st.integers(0, 2**16))
def test_search_on_tables_agrees_with_networkx(tmp_path_factory, lines, seed):
    m, spec = board(
        tmp_path_factory.mktemp("map"),
        *lines,
        "creek 0303..0306/0403..0406",
        columns="1..7",
        rows="1..7",
    )
    rng = random.Random(seed)
    for k, move_class in enumerate(spec.move_classes):
        g = m.movement_digraph(move_class)
        for _ in range(5):
            start = rng.randrange(len(spec.labels))
            ours = pathing.reachable(spec, start, 4, k)
            theirs = nx.single_source_dijkstra_path_length(g, spec.labels[start], cutoff=4)
            assert {spec.labels[h]: c for h, c in ours.items() if c <= 4} == theirs


# ---------------------------------------------------------------- ZOC costs when moving (8.31)


def moving(tmp_path, foot: str, enemy: str, enemy_hex: str, *lines: str):
    """West's movement phase with West Foot in `foot` and one East unit."""
    g = game(tmp_path, *lines)
    position = {
        "format": "muster.state/1",
        "ruleset": "maptest",
        "vars": {"turn": 1, "phasing": "west_army", "vp": {"west_army": 0, "east_army": 0}},
        "units": {"west_foot": {"hex": foot}, enemy: {"hex": enemy_hex}},
        "stack": [{"procedure": "game", "step": "move"}],
    }
    return g, from_json(g, position)


def step_to(g, s, label: str) -> None:
    u = g.unit_by_name["west_foot"]
    d = g.rules.board.neighbors[s.unit_hex[u]].index(g.hex_by_label[label])
    s.apply_action(g.actions.step(u, d))


@pytest.mark.parametrize(
    ("enemy", "lines", "spent", "stopped"),
    [
        ("east_foot", (), 1, True),  # an enemy ZOC: stop (8.31) at no extra cost
        ("east_marksmen", (), 2, True),  # a rifle unit's ZOC: +1 MP to enter
        ("east_marksmen", ("forest 0304",), 2, False),  # not into forest (8.1): forest's 2 MP
    ],
)
def test_entering_an_enemy_zoc(tmp_path, enemy, lines, spent, stopped):
    g, s = moving(tmp_path, "0305", enemy, "0303", *lines)
    step_to(g, s, "0304")
    frame = s.stack[-1]
    assert frame.b["spent"] == spent
    assert frame.b["stop"] == stopped


def test_leaving_a_rifle_units_zoc_costs_one_more(tmp_path):
    g, s = moving(tmp_path, "0304", "east_marksmen", "0303")
    step_to(g, s, "0305")
    assert s.stack[-1].b["spent"] == 2
