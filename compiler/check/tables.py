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

from collections.abc import Callable
from typing import ClassVar

from compiler import ir
from compiler.check.bounds import TABLE_ROW, all_within
from compiler.check.props import Props, as_int, code_text, describe, prov_of
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
    row_key = _check_row_key(p, r)
    column_key, column_kind, columns = _columns(p, r)
    parts = _check_parts(p, r)
    kinds = _kinds(p, r, len(parts), named)
    cells = _Cells(r, parts, kinds, results, named)
    rows, row_kind = _rows(p, r, len(columns) or 1, cells, decl_prov)
    if row_key == "result":
        _check_result_rows(rows, set(results.values()), r)
    _check_rows(d, rows, row_kind, r)
    return ir.Table(
        name=d.ident,
        title=d.display_title,
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


def _check_row_key(p: Props, r: Reporter) -> str:
    """`rows die` (the default), `rows strength`, `rows attacker_chit`, …; `roll die` is old."""
    row_key = p.name("rows") or "die"
    if p.has("roll") and p.has("rows"):
        r.error(p.line("roll").span, BAD_VALUE, "`roll die` is the same as `rows die`: give one")
    return row_key


def _check_parts(p: Props, r: Reporter) -> tuple[str, ...]:
    """`cells attacker/defender`: the names of a cell's parts (one `result` by default)."""
    cv = p.values("cells")
    if not cv:
        return ("result",)
    parts = _part_names(cv)
    if parts is None:
        r.error(
            p.line("cells").span,
            TABLE,
            "cells names the parts of a cell: `cells attacker/defender`",
        )
        return ("result",)
    return parts


def _part_names(cv: tuple[ast.Expr, ...]) -> tuple[str, ...] | None:
    if len(cv) != 1:
        return None
    v = cv[0]
    if isinstance(v, ast.Name):
        return (v.id,)
    if isinstance(v, ast.Slash) and all(isinstance(x, ast.Name) for x in v.parts):
        return tuple(x.id for x in v.parts)  # type: ignore[union-attr]
    return None


def _rows(
    p: Props, r: Reporter, ncols: int, cells: _Cells, decl_prov: ir.Prov
) -> tuple[list[ir.TableRow], str]:
    """The rows, and whether they are matched by ranges ("range") or names ("name")."""
    rows: list[ir.TableRow] = []
    row_kind = ""
    for line in p.other:
        row = _row(line, r, ncols, cells, decl_prov)
        if row is None:
            continue
        kind = "name" if row.key is not None else "range"
        if row_kind and kind != row_kind:
            r.error(line.span, TABLE, "rows are all ranges of a number or all names, not both")
        row_kind = row_kind or kind
        rows.append(row)
    return rows, row_kind


def _check_result_rows(rows: list[ir.TableRow], names: set[str], r: Reporter) -> None:
    """`rows result`: each row is named after a result."""
    for row in rows:
        if row.key is not None and row.key not in names:
            r.error(row.span, UNKNOWN_NAME, f"no result is named {row.key!r}")


def _check_rows(d: ast.Entity, rows: list[ir.TableRow], row_kind: str, r: Reporter) -> None:
    """A table has rows: ranges without gaps or overlaps, or names each given once."""
    if not rows:
        r.error(d.name_span, TABLE, f"table {d.name!r} has no rows")
    elif row_kind == "range":
        _check_ranges(rows, r)
    else:
        _check_names_once(rows, r)


def _check_names_once(rows: list[ir.TableRow], r: Reporter) -> None:
    seen: set[str] = set()
    for row in rows:
        if row.key in seen:
            r.error(row.span, TABLE, f"row {row.key!r} is given twice")
        seen.add(row.key or "")


def _columns(p: Props, r: Reporter) -> tuple[str, str, list[object]]:
    """`columns odds 1:2 1:1 …` or `columns NAME values…`: the key, the kind, the columns."""
    line = p.line("columns")
    if line is None:
        return "", "none", []
    header = _column_header(line.values[1:])
    if header is None:
        r.error(
            line.span,
            TABLE,
            "write `columns odds 1:2 1:1 …`, or `columns NAME` and the column values",
        )
        return "", "none", []
    key, rest = header
    columns: list[object] = []
    kinds = set()
    for v in rest:
        column = _column(v)
        if column is None:
            r.error(v.span, TABLE, f"a column is odds (3:1), a number or a name, not {describe(v)}")
            continue
        columns.append(column[0])
        kinds.add(column[1])
    return key, _check_column_kind(line, columns, kinds, r), columns


def _check_column_kind(line: ast.Line, columns: list[object], kinds: set[str], r: Reporter) -> str:
    """The columns are of one kind (which this returns), each given once."""
    if len(kinds) > 1:
        r.error(line.span, TABLE, "columns are all odds, all numbers or all names")
    if len(set(columns)) != len(columns):
        r.error(line.span, TABLE, "a column is given twice")
    return kinds.pop() if len(kinds) == 1 else "none"


def _column_header(vals: tuple[ast.Expr, ...]) -> tuple[str, tuple[ast.Expr, ...]] | None:
    """The column key (`odds` when the columns are odds) and the column values."""
    if vals and isinstance(vals[0], ast.Odds):
        return "odds", vals
    if vals and isinstance(vals[0], ast.Name) and len(vals) > 1:
        return vals[0].id, vals[1:]
    return None


def _column(v: ast.Expr) -> tuple[object, str] | None:
    """A column's value and its kind: odds (3:1), a number or a name."""
    if isinstance(v, ast.Odds):
        return (v.attack, v.defend), "odds"
    if as_int(v) is not None:
        return as_int(v), "number"
    if isinstance(v, ast.Name):
        return v.id, "name"
    return None


def _kinds(p: Props, r: Reporter, n: int, named: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """What each of a cell's `n` parts holds: `kind` for all of them, `kinds` per part."""
    if p.has("kind") and p.has("kinds"):
        r.error(
            p.line("kinds").span,
            BAD_VALUE,
            "give `kind` (all parts) or `kinds` (per part), not both",
        )
    if p.has("kind"):
        return (_one_kind(p, r, named),) * n
    if p.values("kinds"):
        return _per_part_kinds(p, r, n, named)
    return ("code",) * n


def _one_kind(p: Props, r: Reporter, named: dict[str, tuple[str, ...]]) -> str:
    kind = p.name("kind", "code") or "code"
    if kind not in PART_KINDS and kind not in named:
        r.error(
            p.line("kind").span,
            BAD_VALUE,
            f"kind is one of {', '.join(sorted(PART_KINDS))}, a kind of declaration"
            " (brigade, marker, …) or a variable with `values`",
        )
        return "code"
    return kind


def _per_part_kinds(
    p: Props, r: Reporter, n: int, named: dict[str, tuple[str, ...]]
) -> tuple[str, ...]:
    """`kinds number/code`: one kind per part, joined by `/`."""
    vals = p.values("kinds")
    v = vals[0]
    names = [x.id for x in v.parts if isinstance(x, ast.Name)] if isinstance(v, ast.Slash) else []
    if len(vals) != 1 or len(names) != n or not set(names) <= PART_KINDS | set(named):
        r.error(
            p.line("kinds").span,
            BAD_VALUE,
            f"kinds gives one of {', '.join(sorted(PART_KINDS))} per part, joined by /",
        )
        return ("code",) * n
    return tuple(names)


def _row(
    line: ast.Line, r: Reporter, ncols: int, cells: _Cells, decl_prov: ir.Prov
) -> ir.TableRow | None:
    """A row: its range or name, then one cell per column."""
    first = line.values[0]
    start = _row_start(first)
    if start is None:
        r.error(
            first.span,
            TABLE,
            f"a row starts with a range such as 2..3 or a name, not {describe(first)}",
        )
        return None
    ends = [n for n in start[:2] if n is not None]
    if not all_within(r, first.span, "the row's number", ends, TABLE_ROW):
        return None
    cells_src = line.values[1:]
    if len(cells_src) != ncols:
        r.error(
            line.span, TABLE, f"this row has {len(cells_src)} cells; the table has {ncols} columns"
        )
        return None
    row_cells = cells.read(cells_src)
    if row_cells is None:
        return None
    low, high, key = start
    return ir.TableRow(low, high, row_cells, decl_prov.merged(prov_of(line.prov)), line.span, key)


def _row_start(first: ast.Expr) -> tuple[int | None, int | None, str | None] | None:
    """(low, high, name) of a row's first value: a range, a number or a name."""
    if isinstance(first, ast.Range):
        low = int(first.low) if first.low is not None else None
        high = int(first.high) if first.high is not None else None
        return low, high, None
    if as_int(first) is not None:
        return as_int(first), as_int(first), None
    if isinstance(first, ast.Name):
        return None, None, first.id
    return None


class _Cells:
    """Reads a row's cells: each cell's parts, by the kind of each part."""

    def __init__(
        self,
        r: Reporter,
        parts: tuple[str, ...],
        kinds: tuple[str, ...],
        results: dict[str, str],
        named: dict[str, tuple[str, ...]],
    ) -> None:
        self.r = r
        self.parts = parts
        self.kinds = kinds
        self.results = results
        self.named = named

    def read(self, cells_src: tuple[ast.Expr, ...]) -> tuple[tuple[object, ...], ...] | None:
        """The cells of a row; None (reported) when a cell has the wrong number of parts."""
        cells = []
        for v in cells_src:
            pieces = v.parts if isinstance(v, ast.Slash) else (v,)
            if len(pieces) != len(self.parts):
                self.r.error(
                    v.span,
                    TABLE,
                    f"each cell has {len(self.parts)} part(s): {'/'.join(self.parts)}",
                )
                return None
            cells.append(
                tuple(self.part(p, kind) for p, kind in zip(pieces, self.kinds, strict=True))
            )
        return tuple(cells)

    def part(self, piece: ast.Expr, kind: str) -> object:
        """One part of a cell: a result's name, a number, a name or one of an
        enumeration's values; None for `-` outside codes."""
        if kind in self._READERS:
            return self._READERS[kind](self, piece)
        if kind in self.named:
            return self._value(piece, kind)
        return self._result(piece)

    def _number(self, piece: ast.Expr) -> int | None:
        if isinstance(piece, ast.Dash):
            return None
        n = as_int(piece)
        if n is None:
            self.r.error(piece.span, TABLE, f"this table holds numbers here, not {describe(piece)}")
        return n

    def _name(self, piece: ast.Expr) -> str | None:
        if isinstance(piece, ast.Dash):
            return None
        if isinstance(piece, ast.Name):
            return piece.id
        self.r.error(piece.span, TABLE, f"this table holds names here, not {describe(piece)}")
        return None

    def _value(self, piece: ast.Expr, kind: str) -> str | None:
        """One of the names of `kind` (a brigade, a variable's value); `-` names none."""
        values = self.named[kind]
        if isinstance(piece, ast.Dash):
            return None
        if isinstance(piece, ast.Name) and piece.id in values:
            return piece.id
        hint = did_you_mean(piece.id, set(values)) if isinstance(piece, ast.Name) else None
        self.r.error(
            piece.span,
            TABLE,
            f"this table holds values of {kind!r} here, not {describe(piece)}",
            *hint_note(hint),
            f"values of {kind!r}: {', '.join(values)}",
        )
        return None

    def _result(self, piece: ast.Expr) -> str | None:
        """A result code (`R`, `1`, `-`): the name of the result that has it."""
        code = code_text(piece)
        if code is not None and code in self.results:
            return self.results[code]
        hint = did_you_mean(code or "", set(self.results))
        self.r.error(
            piece.span,
            UNKNOWN_NAME,
            f"no result has code {code!r}"
            if code
            else f"a cell holds result codes, not {describe(piece)}",
            *hint_note(hint),
            'declare it: result name "Title" { code … }',
        )
        return None

    _READERS: ClassVar[dict[str, Callable[[_Cells, ast.Expr], object]]] = {
        "number": _number,
        "name": _name,
    }


def _check_ranges(rows: list[ir.TableRow], r: Reporter) -> None:
    """Ranges must not overlap or leave gaps; only the first and last may be open."""
    for i, row in enumerate(rows):
        _check_open_ends(row, i == 0, i == len(rows) - 1, r)
        _check_not_empty(row, r)
        if i > 0:
            _check_follows(rows[i - 1], row, r)


def _check_open_ends(row: ir.TableRow, first: bool, last: bool, r: Reporter) -> None:
    if row.low is None and not first:
        r.error(row.span, TABLE, "only the first row may be open below (..n)")
    if row.high is None and not last:
        r.error(row.span, TABLE, "only the last row may be open above (n..)")


def _check_not_empty(row: ir.TableRow, r: Reporter) -> None:
    if row.low is not None and row.high is not None and row.low > row.high:
        r.error(row.span, TABLE, f"row {row.low}..{row.high} is empty")


def _check_follows(prev: ir.TableRow, row: ir.TableRow, r: Reporter) -> None:
    """A range starts right after the one before it ends."""
    if prev.high is not None and row.low is not None and row.low != prev.high + 1:
        what = "overlaps" if row.low <= prev.high else "leaves a gap after"
        r.error(row.span, TABLE, f"row {row.low}.. {what} the row ending at {prev.high}")
