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
ONE_OF = "one_of"  # `bridge one_of 0501/0601 0502/0602 …`: at one of these, chosen in play
MAX_BOARDS = 64  # boards compiled for a group of changes near each other (`check_groups`)


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
    return replace(
        empty,
        hexes=change.hexes,
        added=change.added,
        removed=change.removed,
        places=tuple(change.places),
    )


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
        self.places: list[ir.TerrainAt] = []

    def read(self, line: ast.Line) -> None:
        """A line by its key: a terrain, a hexside feature or `remove`; with `one_of`,
        the candidate places of which play chooses one."""
        key = line.key or ""
        if _is_one_of(line.values, 1 + (key == REMOVE)):
            self._one_of(line, key)
        elif key in self.terrain_names:
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

    def _one_of(self, line: ast.Line, key: str) -> None:
        """`FEATURE one_of HEXSIDES…`, `remove FEATURE one_of HEXSIDES…` or
        `TERRAIN one_of HEXES…`: each hexside or hex a place the change may be made at."""
        if self.places:
            self.r.error(
                line.span,
                BAD_VALUE,
                "a terrain change has one `one_of` line: the places it may be made at",
            )
            return
        at = line.values.index(next(v for v in line.values if _named(v, ONE_OF)))
        plain = replace(line, values=line.values[:at] + line.values[at + 1 :])
        if len(plain.values) < 2 + (key == REMOVE):
            self.r.error(line.span, MISSING, "`one_of` lists the places the change may be made at")
            return
        sub = _Change(self.the_map, self.r, self.terrain_names, self.features)
        sub.read(plain)
        self.places = [
            *(ir.TerrainAt(h, {h: t}, {}, {}) for h, t in sub.hexes.items()),
            *(ir.TerrainAt(f"{a}/{b}", {}, {(a, b): f}, {}) for (a, b), f in sub.added.items()),
            *(ir.TerrainAt(f"{a}/{b}", {}, {}, {(a, b): f}) for (a, b), f in sub.removed.items()),
        ]
        if len(self.places) < 2:
            self.r.error(line.span, BAD_VALUE, "`one_of` lists two places or more to choose from")

    def _unknown(self, line: ast.Line, key: str) -> None:
        choices = TERRAIN_CHANGE_KEYS | {REMOVE} | self.terrain_names | set(self.features)
        self.r.error(
            line.values[0].span,
            UNKNOWN_PROPERTY,
            "a terrain change line starts with a terrain, a hexside feature, `remove` "
            f"or `marker`, not {describe(line.values[0])}",
            *hint_note(did_you_mean(key, choices) if key else None),
        )


def _named(v: ast.Expr, name: str) -> bool:
    return isinstance(v, ast.Name) and v.id == name


def _is_one_of(values: tuple[ast.Expr, ...], at: int) -> bool:
    """Whether a line's places follow `one_of` (after its key, and a removal's feature)."""
    return len(values) > at and _named(values[at], ONE_OF)


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


def made_at(change: ir.TerrainChange, place: str = "") -> ir.TerrainChange:
    """The change as made at one of its candidate places (a fixed change: itself)."""
    if not place:
        return change
    at = next(p for p in change.places if p.place == place)
    removed = dict(change.removed)
    for side, gone in at.removed.items():
        removed[side] = (*removed.get(side, ()), *gone)
    return replace(
        change,
        hexes={**change.hexes, **at.hexes},
        added={**change.added, **at.added},
        removed=removed,
        places=(),
    )


def changed_rules(rules: ir.Ruleset, made: tuple[tuple[int, str], ...]) -> ir.Ruleset:
    """The rules with these changes made — (index, place) — in order: the map changed,
    and the hexsides impassable unless one of them is made opened."""
    assert rules.map is not None
    changes = tuple(made_at(rules.terrain_changes[i], place) for i, place in made)
    names = {c.name for c in changes}
    return replace(
        rules,
        map=changed_map(rules.map, changes),
        hexside_features=tuple(
            replace(f, unless="") if f.unless in names else f for f in rules.hexside_features
        ),
    )


def options(change: ir.TerrainChange) -> tuple[str, ...]:
    """How a change may stand once made: at each of its places, or "" where it is fixed."""
    return tuple(p.place for p in change.places) or ("",)


def change_groups(
    changes: tuple[ir.TerrainChange, ...],
    the_map: ir.Map,
    features: tuple[ir.HexsideFeature, ...] = (),
) -> list[tuple[int, ...]]:
    """The changes (by index) in groups of those that touch the same or neighbouring
    hexes: a board row reads a hex, its neighbour and the hexside between, so only
    changes of one group can alter a row together. A change touches every place it
    may be made at, and the hexsides it opens (`impassable unless`)."""
    grid = grid_of(the_map)
    touched = [[Grid.parse(h) for h in touched_hexes(c, the_map, features)] for c in changes]
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


def boards_of(changes: tuple[ir.TerrainChange, ...], members: tuple[int, ...]) -> int:
    """How many boards a group's combinations make: each change unmade, or made at
    one of its places (a change stands at one place at a time)."""
    count = 1
    for i in members:
        count *= 1 + len(options(changes[i]))
    return count - 1


def _touch(grid: Grid, these: list[Offset], those: list[Offset]) -> bool:
    """Whether two changes touch the same or neighbouring hexes."""
    return any(grid.distance(a, b) <= 1 for a in these for b in those)


def check_groups(
    changes: tuple[ir.TerrainChange, ...],
    the_map: ir.Map,
    features: tuple[ir.HexsideFeature, ...],
    r: Reporter,
) -> None:
    """Every combination of a group's changes is compiled: a group stays small enough
    (a change with places counts once per place, not once per set of them). Changes
    far apart combine freely, however many there are."""
    for members in change_groups(changes, the_map, features):
        if boards_of(changes, members) > MAX_BOARDS:
            names = ", ".join(changes[i].name for i in members)
            r.error(
                changes[members[-1]].span,
                BAD_VALUE,
                f"the terrain changes {names} touch the same or neighbouring hexes and make "
                f"{boards_of(changes, members)} combinations: at most {MAX_BOARDS} are compiled",
                "merge changes that always happen together into one declaration",
            )


def check_conditions(
    features: tuple[ir.HexsideFeature, ...], changes: tuple[ir.TerrainChange, ...], r: Reporter
) -> None:
    """`impassable unless terrain_changed(C)` names a declared terrain change."""
    names = {c.name for c in changes}
    for f in features:
        if f.unless and f.unless not in names:
            r.error(
                f.unless_span,
                UNKNOWN_NAME,
                f"hexside {f.name!r} is impassable unless a terrain change is made; "
                f"{f.unless!r} is not one",
                *hint_note(did_you_mean(f.unless, names)),
            )


def touched_hexes(
    change: ir.TerrainChange,
    the_map: ir.Map | None = None,
    features: tuple[ir.HexsideFeature, ...] = (),
) -> tuple[str, ...]:
    """The hexes a change alters, or that lie either side of a hexside it alters or
    opens, wherever it may be made."""
    found = set(change.hexes)
    for a, b in (*change.added, *change.removed):
        found |= {a, b}
    for at in change.places:
        found |= set(at.hexes)
        for a, b in (*at.added, *at.removed):
            found |= {a, b}
    opened = {f.name for f in features if f.unless == change.name}
    if the_map is not None and opened:
        for (a, b), here in the_map.hexsides.items():
            if opened & set(here):
                found |= {a, b}
    return tuple(sorted(found))
