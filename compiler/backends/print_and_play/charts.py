"""The ruleset's tables, modifier lists, terrain and levels as printable charts.

Every die-roll table (Fire Table, damage tables, Close Combat Table with its
odds columns, Tactics Matrix, C&C and entry tables, …) becomes a grid with
its row ranges and columns; every modifier list a DRM chart; terrain and
hexside features the Terrain Effects Chart; each level track (Army Morale)
a chart of its levels. Values come from the IR only; cells whose provenance
is provisional carry its mark (see grid.py).
"""

from __future__ import annotations

from compiler import ir
from compiler.backends.print_and_play.face import signed, tint
from compiler.backends.print_and_play.grid import Cell, Chart

DASH = "–"


def words(name: str) -> str:
    """An identifier as words: `close_combat` → "close combat"."""
    return name.replace("_", " ")


def cites(prov: ir.Prov) -> str:
    """`§ series 12.23, 12.5; battle 4.5`: the sources a chart was taken from."""
    docs: dict[str, list[str]] = {}
    for c in prov.cites:
        docs.setdefault(c.document, []).append(c.section)
    return "; ".join(f"§ {d} {', '.join(s)}" for d, s in docs.items())


def range_label(low: int | None, high: int | None) -> str:
    if low is None:
        return f"{high} or less"
    if high is None:
        return f"{low} or more"
    return str(low) if low == high else f"{low}–{high}"


def column_label(column: object) -> str:
    if isinstance(column, tuple):
        return f"{column[0]}:{column[1]}"
    return words(str(column))


def table_chart(rules: ir.Ruleset, t: ir.Table) -> Chart:
    codes = {res.name: res.code for res in rules.results}
    row_head = "Die roll" if t.row_key == "die" else words(t.row_key).capitalize()
    columns = [column_label(c) for c in t.columns] or ["/".join(words(p) for p in t.parts)]
    header = (Cell(row_head), *(Cell(c) for c in columns))
    rows = []
    used: list[str] = []
    for row in t.rows:
        why = row.prov.provisional
        label = words(row.key) if row.key is not None else range_label(row.low, row.high)
        cells = [Cell(label)]
        for cell in row.cells:
            texts = []
            for value, kind in zip(cell, t.kinds, strict=True):
                if value is None:
                    texts.append(DASH)
                elif kind == "code":
                    texts.append(codes.get(str(value), str(value)))
                    used.append(str(value))
                else:
                    texts.append(words(str(value)))
            cells.append(Cell("/".join(texts), why))
        rows.append(tuple(cells))
    subtitle = [cites(t.prov)]
    if t.column_key and t.column_key != "odds":
        subtitle.append(f"columns: {words(t.column_key)}")
    if len(t.parts) > 1:
        subtitle.append(f"each cell: {' / '.join(words(p) for p in t.parts)}")
    legend = [
        f"{res.code} = {res.title}"
        for res in rules.results
        if res.name in used and res.code not in ("-", res.title)
    ]
    notes = ("Results: " + "; ".join(legend),) if legend else ()
    return Chart(t.title, header, tuple(rows), "   ".join(s for s in subtitle if s), notes)


def modifiers_chart(m: ir.ModifierList) -> Chart:
    """A DRM chart: each modifier's amount and when it applies."""
    rows = []
    for mod in m.modifiers:
        amount = mod.amount
        if isinstance(amount, ir.Const) and isinstance(amount.value, int):
            text = signed(amount.value)
        else:
            text = "±"  # computed in play: the label says from what
        rows.append((Cell(text, mod.prov.provisional), Cell(mod.label, mod.prov.provisional)))
    notes = (
        ("± : the amount depends on the units involved, as the condition says.",)
        if any(r[0].text == "±" for r in rows)
        else ()
    )
    return Chart(m.title, (Cell("DRM"), Cell("Condition")), tuple(rows), cites(m.prov), notes)


def terrain_chart(rules: ir.Ruleset) -> Chart:
    """The Terrain Effects Chart: movement cost and every effect the terrain declares."""
    things: list[ir.Terrain | ir.HexsideFeature] = [*rules.terrain, *rules.hexside_features]
    keys = sorted({k for t in things for k in t.props})
    header = (Cell("Terrain"), Cell("Movement"), *(Cell(words(k).capitalize()) for k in keys))
    rows = []
    for t in things:
        why = t.prov.provisional
        kind = " (hexside)" if isinstance(t, ir.HexsideFeature) else ""
        move = "prohibited" if t.move is None else f"{t.move} MP"
        if isinstance(t, ir.HexsideFeature) and t.road:
            move = f"{t.move} MP along"
        cells = [Cell(t.title + kind, fill=tint(t.color, 0.55)), Cell(move, why)]
        for k in keys:
            cells.append(Cell(_prop(t.props.get(k), k), why))
        rows.append(tuple(cells))
    prov = ir.Prov(tuple(c for t in things for c in t.prov.cites))
    return Chart("Terrain Effects Chart", header, tuple(rows), cites(prov))


def levels_chart(lv: ir.Levels) -> Chart:
    """A level track's levels, their ranges and what each level gives."""
    keys = list(lv.levels[0].data) if lv.levels else []
    header = (Cell("Level"), Cell(words(lv.variable).capitalize()), *(Cell(words(k)) for k in keys))
    rows = tuple(
        (
            Cell(level.title),
            Cell(range_label(level.low, level.high), level.prov.provisional),
            *(Cell(_prop(level.data[k], k), level.prov.provisional) for k in keys),
        )
        for level in lv.levels
    )
    return Chart(lv.title, header, rows, cites(lv.prov))


def _prop(value: object, key: str) -> str:
    if value is None or value is False:
        return DASH
    if value is True:
        return "yes"
    if isinstance(value, int) and ("drm" in key or "modifier" in key):
        return signed(value)
    if isinstance(value, tuple):
        return range_label(*value)
    return words(str(value))


def all_charts(rules: ir.Ruleset) -> list[tuple[str, Chart]]:
    """Every chart of a ruleset, by file name, in the order they are declared."""
    out = [(t.name, table_chart(rules, t)) for t in rules.tables]
    out += [(m.name, modifiers_chart(m)) for m in rules.modifiers]
    out += [(lv.name, levels_chart(lv)) for lv in rules.levels]
    if rules.terrain or rules.hexside_features:
        out.append(("terrain_effects", terrain_chart(rules)))
    return out
