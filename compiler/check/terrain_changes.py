"""The `terrain_change` declaration: a change of the map that happens in play.

A bridge blown, a ford flooded, a village burnt: the rules name the change
and where it is, and a procedure makes it (`change_terrain(bridge_blown)`)
or undoes it (`restore_terrain`). It is written like the map's own lines —
a terrain and the hexes that take it, a hexside feature and the hexsides
that gain it — with `remove FEATURE hexsides…` for what it takes away, and
`marker NAME` for the counter that shows it on the map:

    terrain_change bridge_blown "The bridge is blown" § mill_creek 3.5 {
        remove bridge 0604/0704
        marker blown_bridge
    }

Everything the map model derives from the terrain (movement costs, ZOC,
line of sight, roads) is derived again from the changed map; `compiler.map.board`
turns the differences into the patches the engine applies.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from compiler import ir
from compiler.check.maps import grid_of, hex_list, hexside_line
from compiler.check.props import Props, describe, prov_of
from compiler.map.hexmap import Grid, Offset
from dsl import ast
from dsl.diagnostics import (
    BAD_VALUE,
    MISSING,
    UNKNOWN_NAME,
    UNKNOWN_PROPERTY,
    Reporter,
    did_you_mean,
    hint_note,
)

TERRAIN_CHANGE_KEYS = {"marker"}
REMOVE = "remove"
MAX_GROUP = 6  # changes touching neighbouring hexes (see `check_groups`)


def check_terrain_change(
    d: ast.Entity,
    r: Reporter,
    the_map: ir.Map | None,
    terrain: tuple[ir.Terrain, ...],
    features: tuple[ir.HexsideFeature, ...],
    markers: set[str],
) -> ir.TerrainChange:
    """The change as declared, each hex and hexside checked against the map as printed."""
    p = Props(d, r, TERRAIN_CHANGE_KEYS, keyed_only=False)
    marker = _check_marker(p, r, markers)
    empty = ir.TerrainChange(d.ident, d.display_title, {}, {}, {}, marker, prov_of(d.prov), d.span)
    if the_map is None:
        r.error(d.span, MISSING, "a terrain change needs a map to change")
        return empty
    change = _Change(the_map, r, {t.name for t in terrain}, {f.name: f for f in features})
    for line in p.other:
        change.read(line)
    if not p.other:
        r.error(d.span, MISSING, "a terrain change changes at least one hex or hexside")
    return replace(empty, hexes=change.hexes, added=change.added, removed=change.removed)


def _check_marker(p: Props, r: Reporter, markers: set[str]) -> str:
    """`marker NAME`: the counter that shows the change on the map."""
    marker = p.name("marker") or ""
    if marker and marker not in markers:
        r.error(
            p.line("marker").span,
            UNKNOWN_NAME,
            f"a terrain change is shown by a marker; {marker!r} is not one",
            *hint_note(did_you_mean(marker, markers)),
        )
    return marker


class _Change:
    """What a terrain change's lines do to the map: hexes retyped, hexsides gained or lost."""

    def __init__(
        self,
        the_map: ir.Map,
        r: Reporter,
        terrain_names: set[str],
        features: dict[str, ir.HexsideFeature],
    ) -> None:
        self.the_map = the_map
        self.grid = grid_of(the_map)
        self.r = r
        self.terrain_names = terrain_names
        self.features = features
        self.hexes: dict[str, str] = {}
        self.added: dict[tuple[str, str], dict[str, str]] = {}
        self.removed: dict[tuple[str, str], tuple[str, ...]] = {}

    def read(self, line: ast.Line) -> None:
        """A line by its key: a terrain, a hexside feature or `remove`."""
        key = line.key or ""
        if key in self.terrain_names:
            self._terrain(line, key)
        elif key in self.features:
            self._feature(line, key)
        elif key == REMOVE:
            _removal(line, self.the_map, self.grid, self.features, self.removed, self.r)
        else:
            self._unknown(line, key)

    def _terrain(self, line: ast.Line, key: str) -> None:
        """`woods 0304 …`: hexes that become this terrain (none of them already is)."""
        for label in hex_list(line.values[1:], self.grid, self.r):
            if self.the_map.terrain.get(label, self.the_map.default) == key:
                self.r.error(line.span, BAD_VALUE, f"hex {label} is {key} already on the map")
            self.hexes[label] = key

    def _feature(self, line: ast.Line, key: str) -> None:
        """`bridge 0604/0704`: hexsides that gain the feature (none has it already)."""
        here: dict[tuple[str, str], dict[str, str]] = {}
        hexside_line(line, self.features[key], self.grid, here, self.r)
        for side, found in here.items():
            if key in self.the_map.hexsides.get(side, {}):
                self.r.error(
                    line.span,
                    BAD_VALUE,
                    f"the hexside {side[0]}/{side[1]} has {key} already on the map",
                )
            self.added.setdefault(side, {}).update(found)

    def _unknown(self, line: ast.Line, key: str) -> None:
        choices = TERRAIN_CHANGE_KEYS | {REMOVE} | self.terrain_names | set(self.features)
        self.r.error(
            line.values[0].span,
            UNKNOWN_PROPERTY,
            "a terrain change line starts with a terrain, a hexside feature, `remove` "
            f"or `marker`, not {describe(line.values[0])}",
            *hint_note(did_you_mean(key, choices) if key else None),
        )


def _removal(
    line: ast.Line,
    the_map: ir.Map,
    grid: Grid,
    by_name: dict[str, ir.HexsideFeature],
    removed: dict[tuple[str, str], tuple[str, ...]],
    r: Reporter,
) -> None:
    """`remove FEATURE hexsides…`: the feature must be on each of those hexsides."""
    vals = line.values[1:]
    if not vals or not isinstance(vals[0], ast.Name) or vals[0].id not in by_name:
        r.error(
            line.span,
            BAD_VALUE,
            "write `remove FEATURE hexsides…` with a hexside feature such as "
            + ", ".join(sorted(by_name)[:4]),
        )
        return
    feature = vals[0].id
    sides: dict[tuple[str, str], dict[str, str]] = {}
    hexside_line(replace(line, values=vals), by_name[feature], grid, sides, r)
    for side in sides:
        if feature not in the_map.hexsides.get(side, {}):
            r.error(
                line.span,
                BAD_VALUE,
                f"there is no {feature} on the hexside {side[0]}/{side[1]} of the map to remove",
            )
            continue
        removed[side] = (*removed.get(side, ()), feature)


def changed_map(m: ir.Map, changes: tuple[ir.TerrainChange, ...]) -> ir.Map:
    """The map with these changes made, in order."""
    terrain = dict(m.terrain)
    sides = {k: dict(v) for k, v in m.hexsides.items()}
    for change in changes:
        terrain.update(change.hexes)
        _change_hexsides(sides, change)
    terrain = {label: t for label, t in sorted(terrain.items()) if t != m.default}
    return replace(
        m, terrain=terrain, hexsides={k: dict(sorted(v.items())) for k, v in sorted(sides.items())}
    )


def _change_hexsides(
    sides: dict[tuple[str, str], dict[str, str]], change: ir.TerrainChange
) -> None:
    """Take away the features a change removes, then add those it adds."""
    for side, gone in change.removed.items():
        for f in gone:
            sides.get(side, {}).pop(f, None)
    for side, found in change.added.items():
        sides.setdefault(side, {}).update(found)


def change_groups(changes: tuple[ir.TerrainChange, ...], grid: Grid) -> list[tuple[int, ...]]:
    """The changes (by index) in groups of those that touch the same or neighbouring
    hexes: a board row reads a hex, its neighbour and the hexside between, so only
    changes of one group can alter a row together."""
    touched = [[Grid.parse(h) for h in touched_hexes(c)] for c in changes]
    group = list(range(len(changes)))  # each change's parent in its group's tree

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, j in itertools.combinations(range(len(changes)), 2):
        if _touch(grid, touched[i], touched[j]):
            group[root(j)] = root(i)
    found: dict[int, list[int]] = {}
    for i in range(len(changes)):
        found.setdefault(root(i), []).append(i)
    return [tuple(members) for members in found.values()]


def _touch(grid: Grid, these: list[Offset], those: list[Offset]) -> bool:
    """Whether two changes touch the same or neighbouring hexes."""
    return any(grid.distance(a, b) <= 1 for a in these for b in those)


def check_groups(changes: tuple[ir.TerrainChange, ...], the_map: ir.Map, r: Reporter) -> None:
    """Every combination of a group's changes is compiled (2^n boards): a group
    stays small. Changes far apart combine freely, however many there are."""
    for members in change_groups(changes, grid_of(the_map)):
        if len(members) > MAX_GROUP:
            names = ", ".join(changes[i].name for i in members)
            r.error(
                changes[members[-1]].span,
                BAD_VALUE,
                f"the terrain changes {names} touch the same or neighbouring hexes: "
                f"at most {MAX_GROUP} may, as each combination of them is compiled",
                "merge changes that always happen together into one declaration",
            )


def touched_hexes(change: ir.TerrainChange) -> tuple[str, ...]:
    """The hexes a change alters, or that lie either side of a hexside it alters."""
    found = set(change.hexes)
    for a, b in (*change.added, *change.removed):
        found |= {a, b}
    return tuple(sorted(found))
