"""State variables: what the game remembers besides positions.

    variable army_morale "Army Morale" § series 16 {
        per side
        type int
        initial 20
    }
    variable order "Order" { per unit; values parade_order disrupted shattered }

A variable is global, or one value per side (`army_morale[east_army]`), one per
unit (`u.pinned`, or bare `pinned` inside `where`), or one per hex
(`destroyed[h]`: a village burnt, a hex's controller). `values` makes an
enumeration whose names become constants. `reset PROC` sets the variable back
to its initial value whenever procedure PROC begins (a phase, a player turn).
`announce` has the play log tell every change of it.

`secret SIDE` keeps the value from the other side (a plan, a face-down marker
placed in a hex: `per hex; type marker; secret north`), and `secret` alone
keeps each side's own value of a `per side` variable from the other: the
other side reads "hidden" wherever the value is not the initial one (so it
sees that a marker was placed, or a plan made, not which) until a `reveal`
names the variable; setting it again hides it again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from compiler import ir
from compiler.check.props import (
    BOOL_WORDS,
    TRUE_WORDS,
    Props,
    as_int,
    describe,
    name_of,
    prov_of,
    title_of,
)
from dsl import ast
from dsl.diagnostics import BAD_VALUE, UNKNOWN_NAME, Reporter, did_you_mean, hint_note

SCOPES = {"side", "unit", "hex"}
TYPES = {"int", "bool", "number", "side", "unit", "hex", "code", "marker"}
NONE_VALUE = -1


VARIABLE_KEYS = {"per", "type", "values", "initial", "reset", "announce", "secret"}
EACH_SIDE = "each"  # `secret` alone: each side's own value, of a `per side` variable


def enum_type(name: str) -> str:
    return f"enum:{name}"


def check_variable(d: ast.Entity, r: Reporter, sides: Collection[str] = ()) -> ir.Variable:
    p = Props(d, r, VARIABLE_KEYS)
    scope = _scope(p, r)
    if p.has("values"):
        values, typ = _enumeration(d, p, r)
    else:
        values, typ = (), _type(p, r)
    initial = _initial(p, typ, values, r)
    secret = _secret(p, scope, sides, r)
    if secret and typ in ("int", "number", "code"):
        r.error(
            p.line("secret").span,
            BAD_VALUE,
            f"a secret variable holds one of a list of values (the other side's bots "
            f"guess among them): `values …`, a yes/no, a side, unit, hex or marker, not {typ}",
        )
    return ir.Variable(
        name_of(d),
        title_of(d),
        scope,
        typ,
        values,
        initial,
        p.name("reset"),
        p.flag("announce"),
        prov_of(d.prov),
        d.span,
        secret,
    )


def _secret(p: Props, scope: str, sides: Collection[str], r: Reporter) -> str:
    """Who may read the variable: "" everyone, a side's name only that side,
    `EACH_SIDE` each side its own value."""
    line = p.line("secret")
    if line is None:
        return ""
    vals = line.values[1:]
    if not vals:
        if scope != "side":
            r.error(
                line.span,
                BAD_VALUE,
                "`secret` alone keeps each side's own value from the other: "
                "the variable is `per side`; else write `secret SIDE`",
            )
        return EACH_SIDE
    if len(vals) != 1 or not isinstance(vals[0], ast.Name) or vals[0].id == EACH_SIDE:
        r.error(line.span, BAD_VALUE, "write `secret SIDE` (the side that may read it) or `secret`")
        return ""
    side = vals[0].id
    if side not in sides:
        hint = did_you_mean(side, set(sides))
        r.error(vals[0].span, UNKNOWN_NAME, f"unknown side {side!r}", *hint_note(hint))
        return ""
    return side


def _scope(p: Props, r: Reporter) -> str:
    """`per side`, `per unit`, `per hex`, or "" for a global variable."""
    scope = p.name("per", "") or ""
    if scope and scope not in SCOPES:
        r.error(
            p.line("per").span,
            BAD_VALUE,
            "a variable is `per side`, `per unit` or `per hex` (or global)",
        )
        return ""
    return scope


def _enumeration(d: ast.Entity, p: Props, r: Reporter) -> tuple[tuple[str, ...], str]:
    """`values A B C`: an enumeration, its values and its type."""
    names = p.values("values")
    if not names or not all(isinstance(v, ast.Name) for v in names):
        r.error(p.line("values").span, BAD_VALUE, "values lists the names of an enumeration")
    values = tuple(v.id for v in names if isinstance(v, ast.Name))
    if p.has("type"):
        r.error(
            p.line("type").span,
            BAD_VALUE,
            "a variable with values is an enumeration: drop `type`",
        )
    return values, enum_type(name_of(d))


def _type(p: Props, r: Reporter) -> str:
    typ = p.name("type", "int") or "int"
    if typ not in TYPES:
        r.error(p.line("type").span, BAD_VALUE, f"type is one of {', '.join(sorted(TYPES))}")
        return "int"
    return typ


def _initial(p: Props, typ: str, values: tuple[str, ...], r: Reporter) -> object:
    line = p.line("initial")
    if line is None:
        if values:
            return values[0]
        return {"int": 0, "number": 0, "bool": False, "marker": ""}.get(typ, NONE_VALUE)
    vals = line.values[1:]
    v = vals[0] if len(vals) == 1 else None
    if values:
        if isinstance(v, ast.Name) and v.id in values:
            return v.id
        r.error(line.span, BAD_VALUE, f"initial is one of {', '.join(values)}")
        return values[0]
    initial = _typed_initial(typ, v)
    if initial is _UNFIT:
        r.error(
            line.span,
            BAD_VALUE,
            f"initial value {describe(v) if v else ''} does not fit type {typ}",
        )
        return 0
    return initial


_UNFIT = object()  # an initial value that does not fit the variable's type


def _typed_initial(typ: str, v: ast.Expr | None) -> object:
    """The initial value `v` gives a variable of type `typ`, or `_UNFIT`."""
    read = _INITIAL_VALUES.get(typ)
    return read(v) if read is not None and v is not None else _UNFIT


def _number_initial(v: ast.Expr) -> object:
    n = as_int(v)
    return n if n is not None else _UNFIT


def _bool_initial(v: ast.Expr) -> object:
    if isinstance(v, ast.Name) and v.id in BOOL_WORDS:
        return v.id in TRUE_WORDS
    return _UNFIT


def _none_initial(v: ast.Expr) -> object:
    return NONE_VALUE if isinstance(v, ast.Name) and v.id == "none" else _UNFIT


def _named_initial(v: ast.Expr) -> object:
    """`none`, or a side's (unit's) name: resolved to an index by the checker once
    names are known."""
    if not isinstance(v, ast.Name):
        return _UNFIT
    return NONE_VALUE if v.id == "none" else ("name", v.id)


# How an initial value is read, by the variable's type.
_INITIAL_VALUES: dict[str, Callable[[ast.Expr], object]] = {
    "int": _number_initial,
    "number": _number_initial,
    "bool": _bool_initial,
    "side": _named_initial,
    "unit": _named_initial,
    "hex": _none_initial,
    "code": _none_initial,
}
