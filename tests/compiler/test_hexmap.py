"""Hex geometry: labels, cube coordinates, neighbours and distance (property tests)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compiler.map.hexmap import Grid, run_between

grids = st.builds(
    lambda c0, nc, r0, nr, shifted: Grid(c0, c0 + nc, r0, r0 + nr, shifted),
    st.integers(1, 5),
    st.integers(1, 30),
    st.integers(1, 5),
    st.integers(1, 30),
    st.sampled_from([0, 1]),
)


@st.composite
def grid_and_hexes(draw, n=2):
    grid = draw(grids)
    hexes = [
        (
            draw(st.integers(grid.first_col, grid.last_col)),
            draw(st.integers(grid.first_row, grid.last_row)),
        )
        for _ in range(n)
    ]
    return grid, hexes


@given(grid_and_hexes(1))
def test_cube_round_trip(gh):
    grid, [(c, r)] = gh
    x, y, z = grid.to_cube(c, r)
    assert x + y + z == 0
    assert grid.from_cube((x, y, z)) == (c, r)


@given(grid_and_hexes(3))
def test_distance_is_a_metric(gh):
    grid, [a, b, c] = gh
    assert grid.distance(a, a) == 0
    assert grid.distance(a, b) == grid.distance(b, a)
    assert (grid.distance(a, b) == 0) == (a == b)
    assert grid.distance(a, c) <= grid.distance(a, b) + grid.distance(b, c)


@given(grid_and_hexes(1), st.integers(0, 5))
def test_neighbours_agree_with_geometry(gh, d):
    grid, [a] = gh
    b = grid.neighbor(*a, d)
    assert grid.distance(a, b) == 1
    assert grid.neighbor(*b, (d + 3) % 6) == a
    assert grid.direction_to(a, b) == d
    # Six distinct neighbours, all at distance one.
    ring = {grid.neighbor(*a, k) for k in range(6)}
    assert len(ring) == 6


def test_shifted_columns_follow_the_labels():
    # Even columns shifted down: 0304's north-east neighbour is 0403, its
    # south-east 0404; from the shifted column 04, 0404's north-east is 0504.
    grid = Grid(1, 10, 1, 8, 0)
    assert grid.neighbor(3, 4, 1) == (4, 3)
    assert grid.neighbor(3, 4, 2) == (4, 4)
    assert grid.neighbor(4, 4, 1) == (5, 4)
    assert grid.neighbor(4, 4, 2) == (5, 5)
    # Odd columns shifted down: the other way round.
    odd = Grid(1, 10, 1, 8, 1)
    assert odd.neighbor(3, 4, 1) == (4, 4)
    assert odd.neighbor(4, 4, 1) == (5, 3)


def test_labels_and_runs():
    assert Grid.parse("2115") == (21, 15)
    assert Grid.label(3, 7) == "0307"
    grid = Grid(1, 10, 1, 8, 0)
    assert run_between(grid, "0302", "0304") == ["0302", "0303", "0304"]
    assert run_between(grid, "0302", "0403") == ["0302", "0303", "0402", "0403"]
    assert run_between(grid, "0403", "0302") is None


@given(grid_and_hexes(1), st.integers(0, 5))
def test_neighbours_share_exactly_their_hexside(gh, d):
    from shapely.geometry import LineString, Polygon

    grid, [a] = gh
    b = grid.neighbor(*a, d)
    shared = Polygon(grid.corners(*a)).intersection(Polygon(grid.corners(*b)))
    assert shared.equals(LineString(grid.hexside_ends(*a, d)))
    assert set(grid.hexside_ends(*a, d)) == set(grid.hexside_ends(*b, (d + 3) % 6))
    # Hexes two apart do not touch at all.
    c = grid.neighbor(*b, d)
    assert Polygon(grid.corners(*a)).disjoint(Polygon(grid.corners(*c)))


@given(grid_and_hexes(1), st.integers(0, 4))
def test_lattice_centres_and_balls(gh, radius):
    grid, [a] = gh
    assert grid.at_centre(grid.centre(*a)) == a
    ball = list(grid.within(a, radius))
    assert len(ball) == len(set(ball)) == 3 * radius * (radius + 1) + 1
    assert all(grid.distance(a, h) <= radius for h in ball)


def test_hex_rows_and_map_edges():
    grid = Grid(1, 10, 1, 8, 0)
    assert grid.edges_of(1, 1) == ("west", "north")
    assert grid.edges_of(10, 5) == ("east",)
    assert grid.edges_of(5, 5) == ()
    # "On or east of hex row 05xx" is column 5 and up: a rectangle of labels.
    assert run_between(grid, "0501", "1008")[:2] == ["0501", "0502"]
