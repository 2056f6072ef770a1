"""The ruleset's tables, modifier lists, terrain and levels as printable charts.

Every die-roll table (Fire Table, damage tables, Close Combat Table with its
odds columns, Tactics Matrix, C&C and entry tables, …) becomes a grid with
its row ranges and columns; every modifier list a DRM chart; terrain and
hexside features the Terrain Effects Chart; each level track (Army Morale)
a chart of its levels. Values come from the IR only; cells whose provenance
is provisional carry its mark (see grid.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from compiler import ir
from compiler.backends.print_and_play.face import signed, tint
from compiler.backends.print_and_play.grid import Cell, Chart

DASH = "–"
Feature = ir.Terrain | ir.HexsideFeature  # a row of the Terrain Effects Chart


def words(name: str) -> str:
    """An identifier as words: `close_combat` → "close combat"."""
    return name.replace("_", " ")


def cites(prov: ir.Prov) -> str:
    """`§ series 12.23, 12.5; battle 4.5`: the sources a chart was taken from, each once."""
    docs: dict[str, set[str]] = {}
    for c in prov.cites:
        docs.setdefault(c.document, set()).add(c.section)
    return "; ".join(f"§ {d} {', '.join(sorted(s, key=section_order))}" for d, s in docs.items())


def section_order(section: str) -> tuple[tuple[int, int | str], ...]:
    """Sections in the rulebook's order: 9.4 before 9.52 before 12.5 (numbers, not text)."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in section.split("."))


def range_label(low: int | None, high: int | None) -> str:
    if low is None:
        return f"{high} or less"
    if high is None:
        return f"{low} or more"
    return str(low) if low == high else f"{low}–{high}"


def titles_of(rules: ir.Ruleset) -> dict[str, dict[str, str]]:
    """Declared names by the title a player reads, per kind of declaration a
    table's rows, columns or cells may name: `brigade` `maxwell` → "Maxwell's Brigade"."""
    groups = {
        "side": rules.sides,
        "formation": rules.formations,
        "brigade": rules.brigades,
        "unit": rules.units,
        "marker": rules.markers,
        "result": rules.results,
    }
    return {kind: {d.name: d.title for d in group} for kind, group in groups.items()}


def name_label(name: str, titles: dict[str, str]) -> str:
    """A name in a chart: its declaration's title, or its words with a capital
    (`maxwell` → "Maxwell's Brigade" in a `kind brigade` cell, `enter` → "Enter");
    two numbers side by side read as a range (`turns_2_3` → "Turns 2–3")."""
    if name in titles:
        return titles[name]
    text = re.sub(r"(\d) (\d)", "\\1–\\2", words(name))
    return text[:1].upper() + text[1:]


def column_label(column: object, titles: dict[str, str]) -> str:
    if isinstance(column, tuple):
        return f"{column[0]}:{column[1]}"
    if isinstance(column, int):
        return str(column)
    return name_label(str(column), titles)


def table_chart(rules: ir.Ruleset, t: ir.Table) -> Chart:
    """A die-roll table as a grid: its row ranges (or named rows) down the
    side, its columns across, each cell's values in the words of the kinds
    they are (result codes, numbers, declared names)."""
    titles = titles_of(rules)
    header = (Cell(_row_head(t)), *(Cell(c) for c in _column_heads(t, titles)))
    codes = {res.name: res.code for res in rules.results}
    rows = tuple(_table_row(t, row, codes, titles) for row in t.rows)
    return Chart(t.title, header, rows, _table_subtitle(t), _results_legend(rules, t))


def _row_head(t: ir.Table) -> str:
    return "Die roll" if t.row_key == "die" else words(t.row_key).capitalize()


def _column_heads(t: ir.Table, titles: dict[str, dict[str, str]]) -> list[str]:
    """The column labels; a table with no columns has one, naming the parts of its cells."""
    column_titles = titles.get(t.column_key or "", {})
    part_head = "/".join(words(p) for p in t.parts).capitalize()
    return [column_label(c, column_titles) for c in t.columns] or [part_head]


def _table_row(
    t: ir.Table, row: ir.TableRow, codes: dict[str, str], titles: dict[str, dict[str, str]]
) -> tuple[Cell, ...]:
    """A row's label (a name or a range of rolls), then its cells, each part
    of a cell in the words of its kind, joined by slashes."""
    if row.key is not None:
        label = name_label(row.key, titles.get(t.row_key, {}))
    else:
        label = range_label(row.low, row.high)
    cells = (
        Cell(
            "/".join(
                _value_text(value, kind, codes, titles)
                for value, kind in zip(cell, t.kinds, strict=True)
            ),
            row.prov.provisional,
        )
        for cell in row.cells
    )
    return (Cell(label), *cells)


def _value_text(
    value: object, kind: str, codes: dict[str, str], titles: dict[str, dict[str, str]]
) -> str:
    """One part of a cell: a result's code, a number, or a declared name's title."""
    if value is None:
        return DASH
    if kind == "code":
        return codes.get(str(value), str(value))
    if kind == "number":
        return str(value)
    return name_label(str(value), titles.get(kind, {}))


def _codes_used(t: ir.Table) -> set[str]:
    """The results a table's cells name by code."""
    return {
        str(value)
        for row in t.rows
        for cell in row.cells
        for value, kind in zip(cell, t.kinds, strict=True)
        if value is not None and kind == "code"
    }


def _table_subtitle(t: ir.Table) -> str:
    """The sources, then what the columns and each cell's parts are, where not plain."""
    subtitle = [cites(t.prov)]
    if t.column_key and t.column_key != "odds":
        subtitle.append(f"columns: {words(t.column_key)}")
    if len(t.parts) > 1:
        subtitle.append(f"each cell: {' / '.join(words(p) for p in t.parts)}")
    return " · ".join(s for s in subtitle if s)


def _results_legend(rules: ir.Ruleset, t: ir.Table) -> tuple[str, ...]:
    """A note saying what each result code in the table stands for (codes that
    are the result's title or a dash need none)."""
    used = _codes_used(t)
    legend = [
        f"{res.code} = {res.title}"
        for res in rules.results
        if res.name in used and res.code not in ("-", res.title)
    ]
    return ("Results: " + "; ".join(legend),) if legend else ()


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
    """The Terrain Effects Chart: movement cost, line of sight, ZOC and every other effect
    of the terrain the map uses (`in_play`).

    The line-of-sight and ZOC columns appear only when some terrain has such
    an effect; the other columns are the terrain's own keys (`defend_drm`, …).
    """
    every: list[Feature] = [*rules.terrain, *rules.hexside_features]
    shown = in_play(rules)
    things = [t for t in every if t.name in shown]
    titles = {t.name: t.title for t in every}
    titles |= {f"change:{c.name}": c.title for c in rules.terrain_changes}
    slopes = _slopes(rules)
    keys = _prop_keys(things)
    extra = _effect_columns(things, slopes)
    header = (
        Cell("Terrain"),
        Cell("Movement"),
        *(Cell(name) for name, _ in extra),
        *_key_heads(keys),
    )
    rows = tuple(
        _terrain_row(t, [col[i] for _, col in extra], keys, titles, slopes)
        for i, t in enumerate(things)
    )
    return Chart("Terrain Effects Chart", header, rows, cites(_prov_of(things)))


def _key_heads(keys: list[str]) -> list[Cell]:
    return [Cell(heading(k)) for k in keys]


def _prov_of(items: Iterable[Feature | ir.TerrainChange]) -> ir.Prov:
    """The sources of a chart made of many declarations: all of theirs."""
    return ir.Prov(tuple(c for t in items for c in t.prov.cites))


def _slopes(rules: ir.Ruleset) -> set[str]:
    """The hexside features that are slopes: a hexside combining one reads up and down."""
    return {f.name for f in rules.hexside_features if f.slope}


def _prop_keys(things: list[Feature]) -> list[str]:
    """The terrain's own keys (`defend_drm`, …), each a column of the chart."""
    return sorted({k for t in things for k in t.props})


def _effect_columns(things: list[Feature], slopes: set[str]) -> list[tuple[str, list[str]]]:
    """The line-of-sight and ZOC columns, each with its entry per terrain; a
    column no terrain has anything in is left out."""
    sight = [_sight(t) for t in things]
    zoc = [_zoc(t, slopes) for t in things]
    return [(name, col) for name, col in (("Line of sight", sight), ("ZOC", zoc)) if any(col)]


def _terrain_row(
    t: Feature, effects: list[str], keys: list[str], titles: dict[str, str], slopes: set[str]
) -> tuple[Cell, ...]:
    """A terrain's name on its own colour, its movement, its effects and its keys' values."""
    why = t.prov.provisional
    kind = " (hexside)" if isinstance(t, ir.HexsideFeature) else ""
    return (
        Cell(t.title + kind, fill=tint(t.color, 0.55)),
        Cell(_movement(t, titles, slopes), why),
        *(Cell(effect or DASH, why) for effect in effects),
        *(Cell(_prop(t.props.get(k), k), why) for k in keys),
    )


def in_play(rules: ir.Ruleset) -> set[str]:
    """The terrain and hexside features a player meets on this battle's map: on
    a hex or hexside, or made by a change in play (a village burnt), and a
    combined type (9.4) where all its parts meet on one hexside. The series
    declares more than any one map uses; the chart lists what this one does
    (every declared type when the battle has no map)."""
    every = {t.name for t in [*rules.terrain, *rules.hexside_features]}
    if rules.map is None:
        return every
    sides = _hexside_sets(rules, rules.map)
    used = _hex_terrain(rules, rules.map)
    used |= {f for fs in sides for f in fs}
    return (used | _combined(rules, sides)) & every


def _combined(rules: ir.Ruleset, sides: list[set[str]]) -> set[str]:
    """The combined types (9.4) whose parts all meet on one of the hexsides."""
    return {
        f.name
        for f in rules.hexside_features
        if f.combines and any(set(f.combines) <= fs for fs in sides)
    }


def _hex_terrain(rules: ir.Ruleset, m: ir.Map) -> set[str]:
    """The terrain on the map's hexes, and the terrain changes in play make there."""
    used = {m.default, *m.terrain.values()}
    changes = [c for c in rules.terrain_changes for c in (c, *c.places)]
    return used | {name for c in changes for name in c.hexes.values()}


def _hexside_sets(rules: ir.Ruleset, m: ir.Map) -> list[set[str]]:
    """The features on each hexside, as the map has them and as changes add them."""
    sides = [set(fs) for fs in m.hexsides.values()]
    changes = [c for c in rules.terrain_changes for c in (c, *c.places)]
    return sides + [set(fs) for c in changes for fs in c.added.values()]


def move_cost(cost: ir.MoveCost, extra: bool = False) -> str:
    """A TEC movement entry in words: `2 MP, artillery 3 MP`; `+1 MP` for a hexside's extra."""

    def mp(value: int | None) -> str:
        if value is None:
            return "prohibited"
        return f"+{value} MP" if extra else f"{value} MP"

    return ", ".join([mp(cost.default), *(f"{words(c)} {mp(v)}" for c, v in cost.classes)])


def heading(key: str) -> str:
    """A column heading from a key: `defend_drm` → "Defend DRM"."""
    text = words(key).capitalize()
    return " ".join(
        w.upper() if w.lower() in ("drm", "mp", "zoc", "los", "vp") else w for w in text.split()
    )


def _up_down(t: ir.HexsideFeature, slopes: set[str]) -> tuple[str, str]:
    """How to say the two ways across a directional hexside: a slope's up and down."""
    if t.slope or any(c in slopes for c in t.combines):
        return "up", "down"
    return "into", "out of"


def _movement(t: Feature, titles: dict[str, str], slopes: set[str]) -> str:
    if isinstance(t, ir.Terrain):
        return move_cost(t.move)
    if t.road:
        return f"{move_cost(t.move)} along"
    if t.directional:
        up, down = _up_down(t, slopes)
        text = f"{up}: {move_cost(t.move_into, True)}\n{down}: {move_cost(t.move_out_of, True)}"
    else:
        text = move_cost(t.move, True)
    if t.replaces:
        text += "\ninstead of " + ", ".join(titles.get(r, words(r)) for r in t.replaces)
    if t.unless:
        text = f"prohibited unless {_lower(titles[f'change:{t.unless}'])}; then {text}"
    return text


def _lower(title: str) -> str:
    """A title inside a sentence: "The pontoon is laid" → "the pontoon is laid"."""
    return title[:1].lower() + title[1:]


def _sight(t: Feature) -> str:
    if isinstance(t, ir.Terrain):
        return "blocks" if t.blocks_los else ""
    return "slope" if t.slope else ""


def _zoc(t: Feature, slopes: set[str]) -> str:
    """Where a ZOC does not reach, in the words of 8.1; empty when it reaches everywhere."""
    if isinstance(t, ir.HexsideFeature) and t.unless:
        return "not across while prohibited"
    if isinstance(t, ir.HexsideFeature) and not t.directional:
        return "" if t.zoc_into else "not across"
    into, out = _up_down(t, slopes) if isinstance(t, ir.HexsideFeature) else ("into", "out of")
    blocked = [w for w, ok in ((into, t.zoc_into), (out, t.zoc_out_of)) if not ok]
    return f"not {' or '.join(blocked)}" if blocked else ""


def levels_chart(lv: ir.Levels) -> Chart:
    """A level track's levels, their ranges and what each level gives."""
    keys = list(lv.levels[0].data) if lv.levels else []
    header = (
        Cell("Level"),
        Cell(words(lv.variable).capitalize()),
        *_key_heads(keys),
    )
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
    if rules.terrain_changes:
        out.append(("terrain_changes", terrain_changes_chart(rules)))
    return out


def terrain_changes_chart(rules: ir.Ruleset) -> Chart:
    """The terrain the rules may change in play: where, what it becomes, and the
    marker the players put there when it happens (a bridge blown)."""
    titles = {t.name: t.title for t in (*rules.terrain, *rules.hexside_features)}
    markers = {m.name: m.title for m in rules.markers}
    rows = tuple(
        (
            Cell(c.title, c.prov.provisional),
            Cell("; ".join(_change_places(c, titles)), c.prov.provisional),
            Cell(markers.get(c.marker, DASH), c.prov.provisional),
        )
        for c in rules.terrain_changes
    )
    return Chart(
        "Terrain Changes",
        (Cell("Change"), Cell("Where, and what the map has there once it is made"), Cell("Marker")),
        rows,
        cites(_prov_of(rules.terrain_changes)),
        ("Put the marker on the map when the change is made; the map is read as changed there.",),
    )


def _change_places(c: ir.TerrainChange, titles: dict[str, str]) -> list[str]:
    """Where a change is made: a hex's new terrain, a hexside's feature added or removed."""
    fixed = [
        *(f"{h}: {titles[t]}" for h, t in c.hexes.items()),
        *(f"{a}/{b}: {titles[f]} added" for (a, b), fs in c.added.items() for f in fs),
        *(f"{a}/{b}: no {titles[f]}" for (a, b), fs in c.removed.items() for f in fs),
    ]
    if not c.places:
        return fixed
    what = {
        *(titles[t] for at in c.places for t in at.hexes.values()),
        *(f"{titles[f]} added" for at in c.places for fs in at.added.values() for f in fs),
        *(f"no {titles[f]}" for at in c.places for fs in at.removed.values() for f in fs),
    }
    labels = [at.place for at in c.places]
    rows = [", ".join(labels[i : i + PLACES_A_LINE]) for i in range(0, len(labels), PLACES_A_LINE)]
    where = ",\n".join(rows)
    return [*fixed, f"{', '.join(sorted(what))} at one of, chosen when made:\n{where}"]


PLACES_A_LINE = 6  # a change's places, so many a line of the chart
