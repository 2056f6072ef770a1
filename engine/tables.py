"""Die-roll tables: modify the roll, find the row and the column, read the cell."""

from __future__ import annotations

from typing import Any

from engine.events import say
from engine.firing import fired
from engine.operands import LABEL, Bound
from engine.rules import TableSpec
from engine.state import State


def modifiers_of(s: State, name: str, bindings: dict[str, Any]) -> list[tuple[str, int]]:
    """The modifiers of a list that apply here, itemised as (label, amount)."""
    return [(label, amount) for label, amount, _key in itemised(s, name, bindings)]


def itemised(s: State, name: str, bindings: dict[str, Any]) -> list[tuple[str, int, str]]:
    """The modifiers of a list that apply here as (label, amount, the key of their
    source in `rules.sources`). An entry that is a number the caller passed
    (`(drm) "Other modifiers"`) is labelled by the `define` the caller named it
    with, when it did (`engine.operands.Labels`)."""
    out = []
    sources = s.game.rules.sources
    for i, m in enumerate(s.game.rules.modifiers[name].modifiers):
        if m.condition is None or m.condition(s, bindings):
            amount = m.amount(s, bindings)
            if amount:
                fired(s, "modifier", f"{name}#{i}")
                label, key = m.label, f"modifier:{name}:{m.label}"
                named = isinstance(m.amount, Bound) and bindings.get(LABEL + m.amount.name)
                if named and f"define:{named}" in sources:
                    key = f"define:{named}"
                    label = sources[key][0]
                out.append((label, amount, key))
    return out


def row_of(spec: TableSpec, key: int | str) -> int:
    """The row holding a number (in its range) or named `key`."""
    for i, (low, high, name, _cells) in enumerate(spec.rows):
        if _holds(low, high, name, key):
            return i
    raise ValueError(f"table {spec.name!r} has no row for {key!r}")


def _holds(low: int | None, high: int | None, name: str | None, key: int | str) -> bool:
    """A named row holds its name; a numbered row, the numbers in its range (a
    bound left open is None)."""
    if name is not None:
        return name == key
    return (low is None or key >= low) and (high is None or key <= high)


def column_index(spec: TableSpec, key: Any) -> int:
    """The column of a key: odds round down to the nearest column (in favour of
    the defender, 12.23 step 1), numbers and names must match a column."""
    if spec.column_kind == "none":
        return 0
    try:
        return spec.columns.index(key)
    except ValueError as e:
        raise ValueError(f"table {spec.name!r} has no column {key!r}") from e


def cell_value(spec: TableSpec, cell: tuple[Any, ...]) -> Any:
    """A one-part cell is its value; a cell of several parts stays a tuple."""
    return cell[0] if len(spec.parts) == 1 else cell


def column_label(spec: TableSpec, column: int) -> str:
    if spec.column_kind == "none":
        return ""
    key = spec.columns[column]
    if spec.column_kind == "odds":
        return f" at {key[0]}:{key[1]}"
    return f" at {words(str(key))}"


def words(name: str) -> str:
    """A declared name as the log writes it: `turn_4_plus` → "turn 4 plus"."""
    return name.replace("_", " ")


def cell_text(s: State, spec: TableSpec, cell: tuple[Any, ...]) -> str:
    """A cell in words, as a player says the result: each result by its title and code
    ("No Movement (NM)"), a declared name by its title ("the Left Wing"); the
    parts of a cell of results each named ("attacker Retreat (R), defender …"), those
    of a cell of names listed ("Maxwell and Scott"); "no effect" for an empty cell."""
    said = [
        (part, _part_text(s, kind, value))
        for part, kind, value in zip(spec.parts, spec.kinds, cell, strict=True)
    ]
    shown = [(part, text) for part, text in said if text]
    if not shown:
        return "no effect"
    if len(said) == 1 or ("code" not in spec.kinds and len(set(spec.kinds)) == 1):
        return " and ".join(text for _part, text in shown)
    return ", ".join(f"{words(part)} {text}" for part, text in shown)


def _part_text(s: State, kind: str, value: Any) -> str:
    """One part of a cell in words; "" for none."""
    if value is None or (value == -1 and kind == "code") or value == "-":
        return ""
    if kind == "code":
        result = s.game.rules.results[value]
        if result.code == "-":  # the printed table's blank: no effect
            return ""
        return f"{result.title} ({result.code})" if result.title != result.code else result.code
    if kind == "number":
        return str(value)
    source = s.game.rules.sources.get(f"{kind}:{value}")
    if source:
        return source[0]
    unit = next((u for u in s.game.rules.units if u.name == value), None)
    return unit.title if unit is not None else words(str(value))


def read_cell(s: State, spec: TableSpec, row: int, column: int) -> tuple[Any, ...]:
    """The cell at a row and column index, counted as read when the game counts
    what fires (engine/firing.py)."""
    if s.game.firing is not None and s.counted:
        s.game.firing.counts[("table_row", f"{spec.name}#{row}")] += 1
        s.game.firing.counts[("table_column", f"{spec.name}#{column}")] += 1
    return spec.rows[row][3][column]


def roll_on_table(
    s: State, table: int, column: int, modifiers: str | None, bindings: dict[str, Any], face: int
) -> tuple[Any, int]:
    """The cell the modified roll reads, and the modified roll."""
    spec = s.game.tables[table]
    fired(s, "table", spec.name)
    items = modifiers_of(s, modifiers, bindings) if modifiers else []
    total = face + sum(a for _label, a in items)
    cell = read_cell(s, spec, row_of(spec, total), column)
    drm = "".join(f", {a:+d} {label}" for label, a in items)
    where = column_label(spec, column)
    say(s, f"{spec.title}: rolled {face}{drm} = {total}{where} → {cell_text(s, spec, cell)}.")
    return cell_value(spec, cell), total
