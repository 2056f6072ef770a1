"""Line of sight (11.41–11.44) on hand-made maps, and its invariants.

The maps use a grid whose even columns are shifted down. From 0305, the line
to 0505 runs exactly along the hexside 0404/0405 (a spine at range 2); the
line to 0705 runs along 0404/0405, through 0505, then along 0604/0605 (two
spines at range 4). The line from 0305 north to 0302 crosses 0304 and 0303;
its hexsides are 0305|0304 (the firer's), 0304|0303 (between) and 0303|0302
(the target's).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.map.hexmap import Grid
from compiler.map.los import LosModel, trace
from engine import los as rt
from engine import queries as q
from engine.state import ON_MAP
from tests.maps import board, game, los_model


def blocked_by(los: LosModel, a: str, b: str, **kw) -> tuple[str, set[str]]:
    """The kind of blocker and its hexes as labels; ("", set()) when clear."""
    s = los.sight(a, b, **kw)
    if s.clear:
        return "", set()
    return s.blocker.kind, {Grid.label(*h) for h in s.blocker.hexes}


# ---------------------------------------------------------------- 11.44 hex spines


def test_the_lines_that_run_along_hexsides(tmp_path):
    grid = los_model(tmp_path).grid
    assert trace(grid, (3, 5), (5, 5)) == ((((4, 4),), ((4, 5),)),)
    assert trace(grid, (3, 5), (7, 5)) == (
        (((4, 4),), ((4, 5),)),
        (((5, 5),),),
        (((6, 4),), ((6, 5),)),
    )
    assert trace(grid, (3, 5), (4, 6)) == ((((3, 6),), ((4, 5),)),)
    assert trace(grid, (3, 5), (3, 2)) == ((((3, 4),),), (((3, 3),),))


def test_spine_at_range_2_blocks_only_when_both_sides_block(tmp_path):
    assert blocked_by(los_model(tmp_path, "forest 0404"), "0305", "0505") == ("", set())
    assert blocked_by(los_model(tmp_path, "forest 0405"), "0305", "0505") == ("", set())
    both = los_model(tmp_path, "forest 0404 0405")
    assert blocked_by(both, "0305", "0505") == ("spine", {"0404", "0405"})
    # The other spine direction: along 0306/0405.
    assert blocked_by(los_model(tmp_path, "forest 0306"), "0305", "0406") == ("", set())
    assert blocked_by(los_model(tmp_path, "village 0306 0405"), "0305", "0406")[0] == "spine"


def test_a_unit_counts_as_blocking_on_its_side_of_a_spine(tmp_path):
    los = los_model(tmp_path, "forest 0405")
    assert los.sight("0305", "0505", occupied={"0404"}).blocker.kind == "spine"
    assert los.sight("0305", "0505", occupied={"0305", "0505"}).clear
    assert blocked_by(los_model(tmp_path), "0305", "0505", occupied={"0404", "0405"}) == (
        "spine",
        {"0404", "0405"},
    )


def test_spines_at_range_4_are_judged_one_by_one(tmp_path):
    # Forest north of the first spine and south of the second: a trace nudged
    # north meets 0404, one nudged south meets 0605, but each spine has a clear side.
    assert los_model(tmp_path, "forest 0404 0605").sight("0305", "0705").clear
    assert los_model(tmp_path, "forest 0404 0604").sight("0305", "0705").clear
    assert blocked_by(los_model(tmp_path, "forest 0604 0605"), "0305", "0705") == (
        "spine",
        {"0604", "0605"},
    )
    assert blocked_by(los_model(tmp_path, "forest 0505"), "0305", "0705") == ("hex", {"0505"})


# ---------------------------------------------------------------- 11.41 / 11.42


def test_adjacent_hexes_always_see_each_other(tmp_path):
    los = los_model(tmp_path, "forest 0304 0305", "slope 0304/0305")
    assert los.sight("0305", "0304").clear
    assert los.sight("0305", "0304", occupied={"0304", "0305"}).clear


def test_blocking_terrain_blocks_through_but_not_into(tmp_path):
    los = los_model(tmp_path, "forest 0302 0305", "orchard 0303")
    assert los.sight("0305", "0302").clear  # into and out of forest; orchard does not block
    forest = los_model(tmp_path, "forest 0303")
    assert blocked_by(forest, "0305", "0302") == ("hex", {"0303"})
    assert forest.sight("0305", "0302").blocker.why == "Forest"
    village = los_model(tmp_path, "village 0304")
    assert blocked_by(village, "0302", "0305") == ("hex", {"0304"})


def test_hexes_holding_combat_units_block(tmp_path):
    los = los_model(tmp_path)
    s = los.sight("0305", "0302", occupied={"0304"})
    assert not s.clear and s.blocker.why == "combat units"
    assert los.sight("0305", "0302", occupied={"0302", "0305", "0405"}).clear


# ---------------------------------------------------------------- 11.43 slopes


def test_case_a_no_unit_up_slope(tmp_path):
    # A slope between the two blocks; one that is part of an end's hex does not.
    assert blocked_by(los_model(tmp_path, "slope 0303/0304"), "0305", "0302") == (
        "slope",
        {"0303", "0304"},
    )
    assert los_model(tmp_path, "slope 0304/0305").sight("0305", "0302").clear
    assert los_model(tmp_path, "slope 0302/0303").sight("0302", "0304").clear


def test_case_b_one_unit_up_slope(tmp_path):
    up = "slope 0302/0303"  # the target in 0302 is up slope
    assert los_model(tmp_path, up).sight("0305", "0302").clear
    assert blocked_by(los_model(tmp_path, up, "forest 0304"), "0305", "0302")[0] == "hex"
    # A slope between that rises the same way may be looked across...
    assert los_model(tmp_path, "slope 0302/0303 0303/0304").sight("0305", "0302").clear
    # ...one that rises the other way may not.
    assert blocked_by(los_model(tmp_path, "slope 0302/0303 0304/0303"), "0305", "0302") == (
        "orientation",
        {"0303", "0304"},
    )


def test_case_b_with_slopes_at_both_ends_needs_slopes_between(tmp_path):
    # The firer stands below a slope of its own hex: at range 3 the hexside
    # between must be a slope rising the same way too.
    ends = "slope 0302/0303 0304/0305"
    assert blocked_by(los_model(tmp_path, ends), "0305", "0302") == (
        "terraces",
        {"0303", "0304"},
    )
    assert los_model(tmp_path, ends + " 0303/0304").sight("0305", "0302").clear


def test_case_c_both_units_up_slope(tmp_path):
    los = los_model(tmp_path, "slope 0302/0303 0305/0304", "forest 0303 0304")
    assert los.sight("0305", "0302", occupied={"0303", "0304"}).clear
    assert los.sight("0302", "0305").clear


# ---------------------------------------------------------------- range and indirect fire


def test_range_and_fire_without_line_of_sight(tmp_path):
    g = game(tmp_path, "forest 0304")
    s = g.new_initial_state()
    hexes = g.hex_by_label

    def place(unit: str, label: str) -> int:
        u = g.unit_by_name[unit]
        s.unit_hex[u], s.unit_status[u] = hexes[label], ON_MAP
        return u

    guns, lobbers = place("west_guns", "0305"), place("west_lobbers", "0306")
    assert not q.los(s, hexes["0305"], hexes["0302"])
    assert not q.can_fire_at(s, guns, hexes["0302"])  # forest 0304 between
    assert q.can_fire_at(s, guns, hexes["0505"])
    assert q.can_fire_at(s, lobbers, hexes["0302"])  # range 4, fires without LOS
    assert not q.can_fire_at(s, guns, hexes["0301"])  # 4 hexes: beyond range 3
    assert not q.can_fire_at(s, lobbers, hexes["0301"])  # 5 hexes
    assert q.can_fire_at(s, guns, hexes["0304"])  # adjacent: always seen
    place("east_foot", "0405")
    assert q.can_fire_at(s, guns, hexes["0505"])  # a unit on one side of the spine only
    place("east_marksmen", "0404")
    assert not q.can_fire_at(s, guns, hexes["0505"])


# ---------------------------------------------------------------- invariants

MAP_SIZE = 6


@st.composite
def random_maps(draw):
    """Forest hexes and slopes at random on a 6 × 6 map, and units to place."""
    hexes = [Grid.label(c, r) for c in range(1, MAP_SIZE + 1) for r in range(1, MAP_SIZE + 1)]
    grid = Grid(1, MAP_SIZE, 1, MAP_SIZE, draw(st.sampled_from([0, 1])))
    forest = draw(st.sets(st.sampled_from(hexes), max_size=8))
    slopes: dict[frozenset[str], str] = {}  # one slope a hexside, its upper hex first
    for label in draw(st.lists(st.sampled_from(hexes), max_size=10, unique=True)):
        c, r = Grid.parse(label)
        nc, nr = grid.neighbor(c, r, draw(st.integers(0, 5)))
        other = Grid.label(nc, nr)
        if grid.contains(nc, nr):
            slopes.setdefault(frozenset((label, other)), f"{label}/{other}")
    seed = draw(st.integers(0, 2**16))
    lines = []
    if forest:
        lines.append("forest " + " ".join(sorted(forest)))
    if slopes:
        lines.append("slope " + " ".join(slopes.values()))
    return lines, "even" if grid.shifted == 0 else "odd", seed


def compiled(folder: Path, lines: list[str], shifted: str):
    size = f"1..{MAP_SIZE}"
    return board(folder, *lines, columns=size, rows=size, shifted=shifted)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(random_maps())
def test_precomputed_table_agrees_with_shapely_on_every_pair(tmp_path_factory, case):
    lines, shifted, seed = case
    model, spec = compiled(tmp_path_factory.mktemp("map"), lines, shifted)
    los = LosModel(model)
    labels = spec.labels
    rng = random.Random(seed)
    placements = [set(rng.sample(range(len(labels)), k)) for k in (0, 3, 8)]
    for a in range(len(labels)):
        for b in range(len(labels)):
            if rt.distance(spec, a, b) > spec.los_range:
                continue
            for occupied in placements:
                fast = rt.sees(spec, a, b, occupied)
                slow = los.sight(labels[a], labels[b], {labels[h] for h in occupied})
                explained = rt.sight(spec, a, b, occupied, [t.title for t in model.rules.terrain])
                assert fast == slow.clear == explained.clear, (labels[a], labels[b], occupied)


@settings(max_examples=12, deadline=None)
@given(random_maps(), st.data())
def test_line_of_sight_is_symmetric_and_neighbours_always_see(tmp_path_factory, case, data):
    lines, shifted, seed = case
    _model, spec = compiled(tmp_path_factory.mktemp("map"), lines, shifted)
    rng = random.Random(seed)
    occupied = set(rng.sample(range(len(spec.labels)), 6))
    n = len(spec.labels)
    for _ in range(40):
        a, b = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
        if rt.distance(spec, a, b) <= spec.los_range:
            assert rt.sees(spec, a, b, occupied) == rt.sees(spec, b, a, occupied)
        for nb in spec.neighbors[a]:
            if nb >= 0:
                assert rt.sees(spec, a, nb, occupied)


def test_a_line_through_a_hex_corner_may_pass_either_way(tmp_path):
    # At range 5 a line can pass exactly through a corner where three hexes
    # meet: it touches the third hex at a point, which blocks only if going
    # round the corner through it were the only way.
    grid = los_model(tmp_path).grid
    slots = trace(grid, (3, 5), (4, 9))
    corners = [slot for slot in slots if () in slot]
    assert corners == [((), ((4, 6),)), ((), ((3, 8),))]
    assert los_model(tmp_path, "forest 0406 0308").sight("0305", "0409").clear
    assert blocked_by(los_model(tmp_path, "forest 0307"), "0305", "0409") == ("hex", {"0307"})


def test_a_slope_run_is_a_slope_for_line_of_sight(tmp_path):
    # Slope and creek on one hexside make the combined slope/creek type for
    # movement; for line of sight it is a slope like any other (11.41).
    los = los_model(tmp_path, "slope 0303/0304", "creek 0303/0304")
    assert blocked_by(los, "0305", "0302") == ("slope", {"0303", "0304"})


def test_the_engine_explains_a_blocked_line_from_its_tables(tmp_path):
    model, spec = board(tmp_path, "forest 0404 0405")
    ids = {label: i for i, label in enumerate(spec.labels)}
    titles = [t.title for t in model.rules.terrain]
    s = rt.sight(spec, ids["0305"], ids["0505"], set(), titles)
    assert s.blocker.kind == "spine" and {spec.labels[h] for h in s.blocker.hexes} == {
        "0404",
        "0405",
    }
    assert rt.explain(s.blocker, lambda h: spec.labels[h]) == (
        "blocked along the hexside 0404/0405: the hexes on both sides block (Forest, 11.44)"
    )
    far = rt.sight(spec, ids["0105"], ids["0605"], set(), titles)
    assert far.blocker.kind == "range" and not rt.sees(spec, ids["0105"], ids["0605"], set())
