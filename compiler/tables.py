"""Tables: die-roll tables, cross-reference tables and matrices.

    table close_combat_table "Close Combat Table" § series 12.23 {
        rows die                           # rows are ranges of the modified die roll
        columns odds 1:3 1:2 1:1 2:1 3:1   # column key, then the columns
        cells attacker/defender            # each cell has two parts, result codes
        ..0     AC/-  R/-   …              # a row: its range, then one cell per column
        1..2    …
        10..    …
    }

Rows are matched by ranges (`1..2`, `10..` open above, `..0` open below) of
a number — the modified die roll (`rows die`) or any other value
(`rows strength`) — or by names (`rows attacker_chit`, then each row starts
with a name). Columns are odds (`1:2`), numbers (`columns range 1 2 3`),
names, or absent (one column). Cell parts are result codes unless `kind` says
otherwise (`kind number` for to-hit numbers; `kinds number/code` for a
table whose cells carry a number and a code). A `-` is "no result".
"""

from __future__ import annotations

from compiler import ir
from compiler.props import Props, as_int, code_text, describe, prov_of
from dsl import ast
from dsl.diagnostics import BAD_VALUE, TABLE, UNKNOWN_NAME, Reporter, did_you_mean, hint_note

PART_KINDS = {"code", "number", "name"}
HEADER = {"rows", "roll", "columns", "cells", "kind", "kinds"}


def check_table(
    d: ast.Entity, r: Reporter, results: dict[str, str], named: dict[str, tuple[str, ...]]
) -> ir.Table:
    """Check a table; `results` maps each result code to its result's name, and
    `named` each other kind of cell part to the names it may hold: a variable's
    `values`, or the brigades (markers, …) for `kind brigade`."""
    p = Props(d, r, HEADER, keyed_only=False)
    decl_prov = prov_of(d.prov)
    row_key = p.name("rows") or "die"
    if p.has("roll") and p.has("rows"):
        r.error(p.line("roll").span, BAD_VALUE, "`roll die` is the same as `rows die`: give one")
    column_key, column_kind, columns = _columns(p, r)
    parts = ("result",)
    cv = p.values("cells")
    if cv:
        if (
            len(cv) == 1
            and isinstance(cv[0], ast.Slash)
            and all(isinstance(x, ast.Name) for x in cv[0].parts)
        ):
            parts = tuple(x.id for x in cv[0].parts)  # type: ignore[union-attr]
        elif len(cv) == 1 and isinstance(cv[0], ast.Name):
            parts = (cv[0].id,)
        else:
            r.error(
                p.line("cells").span,
                TABLE,
                "cells names the parts of a cell: `cells attacker/defender`",
            )
    kinds = _kinds(p, r, len(parts), named)
    rows: list[ir.TableRow] = []
    row_kind = ""
    for line in p.other:
        row = _row(line, r, len(columns) or 1, parts, kinds, results, named, decl_prov)
        if row is None:
            continue
        kind = "name" if row.key is not None else "range"
        if row_kind and kind != row_kind:
            r.error(line.span, TABLE, "rows are all ranges of a number or all names, not both")
        row_kind = row_kind or kind
        rows.append(row)
    if row_key == "result":
        names = set(results.values())
        for row in rows:
            if row.key is not None and row.key not in names:
                r.error(row.span, UNKNOWN_NAME, f"no result is named {row.key!r}")
    if not rows:
        r.error(d.name_span, TABLE, f"table {d.name!r} has no rows")
    elif row_kind == "range":
        _check_ranges(rows, r)
    else:
        seen: set[str] = set()
        for row in rows:
            if row.key in seen:
                r.error(row.span, TABLE, f"row {row.key!r} is given twice")
            seen.add(row.key or "")
    return ir.Table(
        name=d.name or "",
        title=d.title or d.name or "",
        row_key=row_key,
        row_kind=row_kind or "range",
        column_key=column_key,
        column_kind=column_kind,
        columns=tuple(columns),
        parts=parts,
        kinds=kinds,
        rows=tuple(rows),
        prov=decl_prov,
        span=d.span,
    )


def _columns(p: Props, r: Reporter) -> tuple[str, str, list[object]]:
    line = p.line("columns")
    if line is None:
        return "", "none", []
    vals = line.values[1:]
    if vals and isinstance(vals[0], ast.Odds):
        key, rest = "odds", vals
    elif vals and isinstance(vals[0], ast.Name) and len(vals) > 1:
        key, rest = vals[0].id, vals[1:]
    else:
        r.error(
            line.span,
            TABLE,
            "write `columns odds 1:2 1:1 …`, or `columns NAME` and the column values",
        )
        return "", "none", []
    columns: list[object] = []
    kinds = set()
    for v in rest:
        if isinstance(v, ast.Odds):
            columns.append((v.attack, v.defend))
            kinds.add("odds")
        elif as_int(v) is not None:
            columns.append(as_int(v))
            kinds.add("number")
        elif isinstance(v, ast.Name):
            columns.append(v.id)
            kinds.add("name")
        else:
            r.error(v.span, TABLE, f"a column is odds (3:1), a number or a name, not {describe(v)}")
    if len(kinds) > 1:
        r.error(line.span, TABLE, "columns are all odds, all numbers or all names")
    if len(set(columns)) != len(columns):
        r.error(line.span, TABLE, "a column is given twice")
    return key, (kinds.pop() if len(kinds) == 1 else "none"), columns


def _kinds(p: Props, r: Reporter, n: int, named: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    if p.has("kind") and p.has("kinds"):
        r.error(
            p.line("kinds").span,
            BAD_VALUE,
            "give `kind` (all parts) or `kinds` (per part), not both",
        )
    if p.has("kind"):
        kind = p.name("kind", "code") or "code"
        if kind not in PART_KINDS and kind not in named:
            r.error(
                p.line("kind").span,
                BAD_VALUE,
                f"kind is one of {', '.join(sorted(PART_KINDS))}, a kind of declaration"
                " (brigade, marker, …) or a variable with `values`",
            )
            kind = "code"
        return (kind,) * n
    vals = p.values("kinds")
    if vals:
        v = vals[0]
        names = (
            [x.id for x in v.parts if isinstance(x, ast.Name)] if isinstance(v, ast.Slash) else []
        )
        if len(vals) != 1 or len(names) != n or not set(names) <= PART_KINDS | set(named):
            r.error(
                p.line("kinds").span,
                BAD_VALUE,
                f"kinds gives one of {', '.join(sorted(PART_KINDS))} per part, joined by /",
            )
            return ("code",) * n
        return tuple(names)
    return ("code",) * n


def _row(
    line: ast.Line,
    r: Reporter,
    ncols: int,
    parts: tuple[str, ...],
    kinds: tuple[str, ...],
    results: dict[str, str],
    named: dict[str, tuple[str, ...]],
    decl_prov: ir.Prov,
) -> ir.TableRow | None:
    first = line.values[0]
    low = high = None
    key = None
    if isinstance(first, ast.Range):
        low = int(first.low) if first.low is not None else None
        high = int(first.high) if first.high is not None else None
    elif as_int(first) is not None:
        low = high = as_int(first)
    elif isinstance(first, ast.Name):
        key = first.id
    else:
        r.error(
            first.span,
            TABLE,
            f"a row starts with a range such as 2..3 or a name, not {describe(first)}",
        )
        return None
    cells_src = line.values[1:]
    if len(cells_src) != ncols:
        r.error(
            line.span, TABLE, f"this row has {len(cells_src)} cells; the table has {ncols} columns"
        )
        return None
    cells = []
    for v in cells_src:
        pieces = v.parts if isinstance(v, ast.Slash) else (v,)
        if len(pieces) != len(parts):
            r.error(v.span, TABLE, f"each cell has {len(parts)} part(s): {'/'.join(parts)}")
            return None
        cells.append(
            tuple(
                _part(piece, kind, r, results, named)
                for piece, kind in zip(pieces, kinds, strict=True)
            )
        )
    return ir.TableRow(
        low, high, tuple(cells), decl_prov.merged(prov_of(line.prov)), line.span, key
    )


def _part(
    piece: ast.Expr,
    kind: str,
    r: Reporter,
    results: dict[str, str],
    named: dict[str, tuple[str, ...]],
) -> object:
    """One part of a cell: a result's name, a number, a name or one of an
    enumeration's values; None for `-` outside codes."""
    if kind == "number":
        if isinstance(piece, ast.Dash):
            return None
        n = as_int(piece)
        if n is None:
            r.error(piece.span, TABLE, f"this table holds numbers here, not {describe(piece)}")
        return n
    if kind == "name":
        if isinstance(piece, ast.Dash):
            return None
        if isinstance(piece, ast.Name):
            return piece.id
        r.error(piece.span, TABLE, f"this table holds names here, not {describe(piece)}")
        return None
    if kind in named:
        if isinstance(piece, ast.Dash):  # no value: a cell that names no brigade
            return None
        if isinstance(piece, ast.Name) and piece.id in named[kind]:
            return piece.id
        hint = did_you_mean(piece.id, set(named[kind])) if isinstance(piece, ast.Name) else None
        r.error(
            piece.span,
            TABLE,
            f"this table holds values of {kind!r} here, not {describe(piece)}",
            *hint_note(hint),
            f"values of {kind!r}: {', '.join(named[kind])}",
        )
        return None
    code = code_text(piece)
    if code is None or code not in results:
        hint = did_you_mean(code or "", set(results))
        r.error(
            piece.span,
            UNKNOWN_NAME,
            f"no result has code {code!r}"
            if code
            else f"a cell holds result codes, not {describe(piece)}",
            *hint_note(hint),
            'declare it: result name "Title" { code … }',
        )
        return None
    return results[code]


def _check_ranges(rows: list[ir.TableRow], r: Reporter) -> None:
    """Ranges must not overlap or leave gaps; only the first and last may be open."""
    for i, row in enumerate(rows):
        if row.low is None and i != 0:
            r.error(row.span, TABLE, "only the first row may be open below (..n)")
        if row.high is None and i != len(rows) - 1:
            r.error(row.span, TABLE, "only the last row may be open above (n..)")
        if row.low is not None and row.high is not None and row.low > row.high:
            r.error(row.span, TABLE, f"row {row.low}..{row.high} is empty")
        if i > 0:
            prev = rows[i - 1]
            if prev.high is not None and row.low is not None and row.low != prev.high + 1:
                what = "overlaps" if row.low <= prev.high else "leaves a gap after"
                r.error(row.span, TABLE, f"row {row.low}.. {what} the row ending at {prev.high}")
