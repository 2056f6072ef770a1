"""Die-roll tables: modify the roll, find the row and the column, read the cell."""

from __future__ import annotations

from typing import Any

from engine.effects import say
from engine.state import State


def modifiers_of(s: State, name: str, bindings: dict[str, Any]) -> list[tuple[str, int]]:
    """The modifiers of a list that apply here, itemised as (label, amount)."""
    out = []
    for m in s.game.rules.modifiers[name].modifiers:
        if m.condition is None or m.condition(s, bindings):
            amount = m.amount(s, bindings)
            if amount:
                out.append((m.label, amount))
    return out


def row_of(table_rows: tuple, roll: int) -> int:
    """The row whose range holds the modified roll; open-ended rows catch the rest."""
    for i, (low, high, _cells) in enumerate(table_rows):
        if (low is None or roll >= low) and (high is None or roll <= high):
            return i
    raise ValueError(f"no row for modified roll {roll}")


def roll_on_table(
    s: State, table: int, column: int, modifiers: str | None, bindings: dict[str, Any], face: int
) -> tuple[int, ...]:
    spec = s.game.rules.tables[table]
    items = modifiers_of(s, modifiers, bindings) if modifiers else []
    total = face + sum(a for _label, a in items)
    cell = spec.rows[row_of(spec.rows, total)][2][column]
    results = s.game.rules.results
    drm = "".join(f", {a:+d} {label}" for label, a in items)
    a, d = spec.columns[column]
    codes = "/".join(results[c].code for c in cell)
    say(s, f"{spec.title}: rolled {face}{drm} = {total} at {a}:{d} → {codes}.")
    return cell
