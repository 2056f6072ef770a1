"""What every pass of the checker shares.

The symbol table is filled in pass by pass (sides, then terrain, then the
map's places, …); the expression and statement checkers read it as it grows.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.check.expressions import ExprChecker, Symbols
from compiler.check.names import Names
from compiler.check.statements import StmtChecker
from dsl.diagnostics import Reporter
from engine.registered import load as load_vocabulary


@dataclass
class Tools:
    """Where errors go, the symbols declared so far, the checkers of
    expressions and statements over them, and the names claimed so far."""

    reporter: Reporter
    symbols: Symbols
    exprs: ExprChecker
    stmts: StmtChecker
    names: Names

    @classmethod
    def new(cls, reporter: Reporter) -> Tools:
        symbols = Symbols()
        symbols.vocabulary = load_vocabulary()
        exprs = ExprChecker(symbols, reporter)
        return cls(reporter, symbols, exprs, StmtChecker(exprs), Names(reporter))
