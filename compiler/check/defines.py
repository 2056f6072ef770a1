"""Definitions (`define NAME(params) = expression`), checked once, on first use.

An expression may call a definition declared after it, so a definition is
checked when something first reads its type; one that reads itself is an error.
"""

from __future__ import annotations

from compiler import ir
from compiler.check.expressions import ERROR, Scope
from compiler.check.props import prov_of
from compiler.check.tools import Tools
from dsl.diagnostics import BAD_VALUE, UNKNOWN_NAME, Reporter
from dsl.source import Span

# The types a parameter of a definition or procedure may have.
VALUE_TYPES = {
    "marker",
    "code",
    "int",
    "bool",
    "side",
    "unit",
    "units",
    "hex",
    "hexes",
    "terrain",
    "combat",
    "combats",
    "table",
}
_CHECKING = "checking"


def check_param_types(reporter: Reporter, span: Span, params: tuple[tuple[str, str], ...]) -> None:
    """Parameters (and a procedure's result) are values of the types the engine knows."""
    for pname, ptype in params:
        if ptype not in VALUE_TYPES:
            reporter.error(span, UNKNOWN_NAME, f"unknown type {ptype!r} of parameter {pname!r}")


class Definitions:
    """Checks definitions on demand and keeps what each became."""

    def __init__(self, tools: Tools) -> None:
        self.t = tools
        self.state: dict[str, str] = {}  # name -> "checking", or its type once checked
        self.checked: dict[str, ir.Define] = {}

    def check(self, name: str) -> str:
        """Check a definition once (on first use); returns its type."""
        r, sym = self.t.reporter, self.t.symbols
        d = sym.defines[name]
        state = self.state.get(name)
        if state == _CHECKING:
            r.error(d.span, BAD_VALUE, f"definition {name!r} refers to itself")
            return ERROR
        if state is not None:
            return state
        self.state[name] = _CHECKING
        params = tuple((p.name, p.type) for p in d.params)
        check_param_types(r, d.span, params)
        body = self.t.exprs.expr(d.expr, Scope(dict(params)))
        self.checked[name] = ir.Define(name, d.title or name, params, body, prov_of(d.prov), d.span)
        self.state[name] = body.type
        sym.define_types[name] = body.type
        return body.type
