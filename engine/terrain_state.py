"""The map as it stands: terrain the rules changed in play (a bridge blown, a ford flooded).

The compiled board is the map as printed. A ruleset's `terrain_change`
declarations come with patches (`Rules.board_patches`): for each group of
changes near enough to each other to interact, and each combination of them
made, the rows of the board's tables that differ. Which changes are made is
the state variable `CHANGED_TERRAIN` — saved, hashed, shown in observations,
and part of the fingerprint that keeps or forgets the incremental answers
(engine/incremental.py) — and `board_of(s)` is the board every question
about the map reads: movement costs, hexsides, ZOC, retreats, line of sight.

Line of sight is judged again here, from the patched tables, for every pair
whose trace passes a hex whose blocking terrain or slopes changed; the other
pairs keep their precomputed codes. A ruleset without terrain changes reads
`rules.board` itself, as it always did.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.board import hex_at, parity
from engine.los import choice_codes, slope_between
from engine.rules import BoardSpec, Rules
from engine.state import CHANGED_TERRAIN, State

# A change made at one of its places is held as "name@place" (`pontoon@0503/0603`).
AT = "@"

# (id(rules), changes made) -> (rules, the board as changed): a board per
# combination reached, kept with the rules so the id stays theirs.
_BOARDS: dict[tuple[int, tuple[str, ...]], tuple[Rules, BoardSpec]] = {}


def board_of(s: State) -> BoardSpec:
    """The board as the terrain now stands (while a legal-move question is worked
    out, the one its decision looked up: engine/incremental.py)."""
    watched = s._watched
    if watched is not None:
        return watched.board
    made = s.vars.get(CHANGED_TERRAIN)
    if not made:
        return s.game.rules.board
    return changed_board(s.game.rules, made)


def changed_board(rules: Rules, made: tuple[str, ...]) -> BoardSpec:
    """The board with these terrain changes made (names of `rules.terrain_changes`)."""
    key = (id(rules), made)
    found = _BOARDS.get(key)
    if found is None or found[0] is not rules:
        found = _BOARDS[key] = (rules, _patched(rules, made))
    return found[1]


def change_index(rules: Rules, name: str) -> int:
    return next(i for i, c in enumerate(rules.terrain_changes) if c.name == name)


def made_entry(name: str, place: str = "") -> str:
    """A change made, as the state holds it: its name, and where if it has places."""
    return f"{name}{AT}{place}" if place else name


def split_entry(entry: str) -> tuple[str, str]:
    """(name, place) of a change made; place "" for a change without places."""
    name, _, place = entry.partition(AT)
    return name, place


def place_of(s: State, name: str) -> str | None:
    """Where a change stands: its place ("" if it has none), or None if not made."""
    for entry in s.vars.get(CHANGED_TERRAIN, ()):
        made, place = split_entry(entry)
        if made == name:
            return place
    return None


def sorted_entries(rules: Rules, entries: set[str]) -> tuple[str, ...]:
    """Changes made in declared order (a change stands at one place at a time)."""
    order = {c.name: i for i, c in enumerate(rules.terrain_changes)}
    return tuple(sorted(entries, key=lambda e: order[split_entry(e)[0]]))


def _patched(rules: Rules, made: tuple[str, ...]) -> BoardSpec:
    """The printed board with the rows of these changes' patches put in, and the
    line of sight judged again wherever blocking terrain or slopes changed."""
    base = rules.board
    rows = _patch_rows(rules, made)
    board = replace(
        base, **{table: _patched_table(base, table, by_hex) for table, by_hex in rows.items()}
    )
    seen = {
        h
        for table in ("los_blocks", "slope_up")
        for h in rows.get(table, {})
        if getattr(board, table)[h] != getattr(base, table)[h]
    }
    if seen:
        board = replace(board, los_codes=_los_codes(board, seen))
    return board


def _patch_rows(rules: Rules, made: tuple[str, ...]) -> dict[str, dict[int, Any]]:
    """table -> hex -> its row, from the patch of each group's combination of changes made."""
    groups: dict[int, list[str]] = {}
    for entry in made:
        spec = rules.terrain_changes[change_index(rules, split_entry(entry)[0])]
        groups.setdefault(spec.group, []).append(entry)
    rows: dict[str, dict[int, Any]] = {}
    for members in groups.values():
        for table, h, row in rules.board_patches[tuple(members)]:
            rows.setdefault(table, {})[h] = row
    return rows


def _patched_table(base: BoardSpec, table: str, by_hex: dict[int, Any]) -> tuple:
    """A board table with the patched hexes' rows (movement costs: per class)."""
    if table == "move_cost":
        return tuple(
            tuple(by_hex[h][c] if h in by_hex else r for h, r in enumerate(per_class))
            for c, per_class in enumerate(base.move_cost)
        )
    return tuple(by_hex.get(h, r) for h, r in enumerate(getattr(base, table)))


def _los_codes(board: BoardSpec, changed: set[int]) -> tuple[tuple[int, ...], ...]:
    """The LOS codes again for every pair whose trace passes (or ends in) a changed hex."""
    codes = [list(row) for row in board.los_codes]

    def blocks(h: int) -> str:
        return "terrain" if h >= 0 and board.los_blocks[h] else ""

    def slope(p: int, q: int) -> tuple[int, int] | None:
        return slope_between(board, p, q)

    for a in _within_los_range(board, changed):
        for i, b, slots in _traces_from(board, a):
            if not changed.isdisjoint(_passes(a, b, slots)):
                codes[a][i] = choice_codes(a, b, slots, blocks, slope)
    return tuple(tuple(row) for row in codes)


def _passes(a: int, b: int, slots: tuple) -> set[int]:
    """Every hex a trace from a to b passes, its ends included."""
    return {a, b} | {h for slot in slots for alt in slot for h in alt}


def _within_los_range(board: BoardSpec, changed: set[int]) -> list[int]:
    """The hexes within LOS range of a changed hex: the firers whose codes may change."""
    reach = board.los_range
    return [
        h for h in range(len(board.labels)) if any(_distance(board, h, c) <= reach for c in changed)
    ]


def _traces_from(board: BoardSpec, a: int) -> list[tuple[int, int, tuple]]:
    """(template index, target hex, the trace's slots as hex ids) of every pair from
    hex a within LOS range whose target is on the map."""
    p = parity(board, a)
    col, row = board.columns[a], board.rows[a]
    out = []
    for (dc, dr), i in board.los_index[p].items():
        b = hex_at(board, col + dc, row + dr)
        if b < 0:
            continue
        slots = tuple(
            tuple(tuple(hex_at(board, col + c, row + r) for c, r in alt) for alt in slot)
            for slot in board.los_templates[p][i][0]
        )
        out.append((i, b, slots))
    return out


def _distance(board: BoardSpec, a: int, b: int) -> int:
    (x1, y1, z1), (x2, y2, z2) = board.cube[a], board.cube[b]
    return max(abs(x1 - x2), abs(y1 - y2), abs(z1 - z2))
