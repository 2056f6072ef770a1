"""Type checking of statements: the bodies of steps, results and triggers.

Bindings made by `let`, `for each`, `choose`, `roll … into` and `ask` are
visible for the rest of the procedure (a later step reads what an earlier
step computed, as the rulebook's steps do), and every binding's type is
recorded so the engine can save frames readably.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from compiler import ir
from compiler.check.expressions import (
    COLUMN_TYPES,
    ERROR,
    NULLABLE,
    ExprChecker,
    Scope,
    article,
    cell_type,
)
from dsl import ast
from dsl.diagnostics import MISSING, TYPE, UNKNOWN_NAME, did_you_mean, hint_note
from dsl.source import Span
from engine.vocabulary import ELEMENT_TYPES, VARIABLES, Lambda, Signature


@dataclass
class Context:
    """Where statements are being checked: which procedure, which steps exist."""

    owner: str
    steps: set[str] = field(default_factory=set)
    bindings: dict[str, str] = field(default_factory=dict)
    loops: int = 0  # how many loops enclose the statement (for `break`)
    secrets: set[str] = field(default_factory=set)


class StmtChecker:
    """Checks statements into the IR. `stmt` looks up the check of each kind of
    statement by its node type in `_CHECKS`, at the end of the class."""

    def __init__(self, ec: ExprChecker) -> None:
        self.ec = ec
        self.sym = ec.sym
        self.r = ec.r

    def bind(self, scope: Scope, ctx: Context, name: str, typ: str, span: Span) -> None:
        """Bind a name for the rest of the procedure; it keeps one type (`none` first,
        then a side, unit, … is allowed)."""
        old = ctx.bindings.get(name)
        if old == "none" and typ in NULLABLE:
            old = None  # `let x = none` first, a value of a kind later
        elif typ == "none" and old in NULLABLE:
            return
        if old is not None and old != typ and ERROR not in (old, typ):
            self.r.error(
                span, TYPE, f"{name!r} was {article(old)}; it cannot become {article(typ)}"
            )
        scope.bindings[name] = typ
        ctx.bindings[name] = typ

    def block(
        self, stmts: tuple[ast.Stmt, ...], scope: Scope, ctx: Context
    ) -> tuple[ir.TStmt, ...]:
        return tuple(self.stmt(s, scope, ctx) for s in stmts)

    def stmt(self, s: ast.Stmt, scope: Scope, ctx: Context) -> ir.TStmt:
        check = self._CHECKS.get(type(s))
        if check is None:
            raise AssertionError(f"unhandled statement {s!r}")
        return check(self, s, scope, ctx)

    def let(self, s: ast.Let, scope: Scope, ctx: Context) -> ir.TStmt:
        value = self.ec.expr(s.value, scope)
        self.bind(scope, ctx, s.name, value.type, s.span)
        return ir.Let(s.span, s.name, value)

    def if_(self, s: ast.If, scope: Scope, ctx: Context) -> ir.TStmt:
        test = self.ec.expr(s.test, scope, "bool")
        return ir.If(s.span, test, self.block(s.body, scope, ctx), self.block(s.orelse, scope, ctx))

    def break_(self, s: ast.Break, scope: Scope, ctx: Context) -> ir.TStmt:
        if not ctx.loops:
            self.r.error(s.span, TYPE, "`break` leaves a loop; there is none here")
        return ir.Break(s.span)

    def reveal(self, s: ast.Reveal, scope: Scope, ctx: Context) -> ir.TStmt:
        secret_variables = {v.name for v in self.sym.variables.values() if v.secret}
        for name in s.names:
            if name not in ctx.secrets and name not in secret_variables:
                self.r.error(
                    s.span,
                    UNKNOWN_NAME,
                    f"{name!r} was not chosen or answered secretly, nor is it a secret variable",
                )
        return ir.Reveal(s.span, s.names)

    def draw(self, s: ast.Draw, scope: Scope, ctx: Context) -> ir.TStmt:
        if s.bag not in self.sym.bags:
            hint = did_you_mean(s.bag, set(self.sym.bags))
            self.r.error(s.span, UNKNOWN_NAME, f"unknown bag {s.bag!r}", *hint_note(hint))
        self.bind(scope, ctx, s.into, "marker", s.span)
        return ir.Draw(s.span, s.bag, s.into)

    def for_each(self, s: ast.ForEach, scope: Scope, ctx: Context) -> ir.TStmt:
        iterable = self.ec.expr(s.iterable, scope)
        elem = self.element_type(iterable, s.iterable.span, "`for each` runs over")
        chooser = self.ec.expr(s.chooser, scope, "side") if s.chooser is not None else None
        self.bind(scope, ctx, s.var, elem, s.span)
        ctx.bindings[f"_for_{s.var}"] = iterable.type
        body = self.loop_body(s.body, scope, ctx)
        return ir.ForEach(s.span, s.var, elem, iterable, chooser, body)

    def repeat(self, s: ast.Repeat, scope: Scope, ctx: Context) -> ir.TStmt:
        test = self.ec.expr(s.test, scope, "bool") if s.test is not None else None
        return ir.Repeat(s.span, test, self.loop_body(s.body, scope, ctx))

    def loop_body(
        self, stmts: tuple[ast.Stmt, ...], scope: Scope, ctx: Context
    ) -> tuple[ir.TStmt, ...]:
        """A loop's body, where `break` may be written."""
        ctx.loops += 1
        body = self.block(stmts, scope, ctx)
        ctx.loops -= 1
        return body

    def element_type(self, collection: ir.TExpr, span: Span, what: str) -> str:
        """The type of a collection's elements; an error when it is not a collection."""
        elem = ELEMENT_TYPES.get(collection.type)
        if elem is None and collection.type != ERROR:
            self.r.error(span, TYPE, f"{what} a collection, not {article(collection.type)}")
        return elem or ERROR

    def choose(self, s: ast.Choose, scope: Scope, ctx: Context) -> ir.TStmt:
        options = self.ec.expr(s.options, scope)
        elem = self.element_type(options, s.options.span, "`choose` picks from")
        chooser = self.ec.expr(s.chooser, scope, "side")
        self.bind(scope, ctx, s.var, elem, s.span)
        if s.mode == "secretly":
            ctx.secrets.add(s.var)
            ctx.bindings["_secret"] = "any"
        return ir.Choose(s.span, s.var, elem, options, chooser, s.mode)

    def ask(self, s: ast.Ask, scope: Scope, ctx: Context) -> ir.TStmt:
        chooser = self.ec.expr(s.player, scope, "side")
        if s.into:
            var = s.into
            self.bind(scope, ctx, var, "bool", s.span)
        else:
            var = self.ec.temp("ask")
            ctx.bindings[var] = "bool"
        if s.mode == "secretly":
            if not s.into:
                self.r.error(
                    s.span,
                    TYPE,
                    "a secret answer needs a name to reveal it by: "
                    '`ask secretly SIDE "Question?" into NAME { … }`',
                )
            ctx.secrets.add(var)
            ctx.bindings["_secret"] = "any"
        # The question may show values, as `say` does: "Fire {a} at {target}?".
        question = self.ec.text(ast.String(s.span, s.question), scope)
        yes = self.block(s.yes, scope, ctx)
        no = self.block(s.no, scope, ctx)
        return ir.Ask(s.span, chooser, question, var, yes, no, s.mode)

    def apply(self, s: ast.Apply, scope: Scope, ctx: Context) -> ir.TStmt:
        result = self.ec.expr(s.result, scope, "code")
        params = self.sym.result_params
        args = self.ec.arguments(s.span, "a result", params, s.args, s.keywords, scope)
        return ir.ApplyResult(s.span, result, tuple(args))

    def skip_to(self, s: ast.SkipTo, scope: Scope, ctx: Context) -> ir.TStmt:
        if s.step not in ctx.steps:
            hint = did_you_mean(s.step, ctx.steps)
            self.r.error(
                s.span, UNKNOWN_NAME, f"{ctx.owner} has no step {s.step!r}", *hint_note(hint)
            )
        return ir.SkipTo(s.span, s.step)

    def return_(self, s: ast.Return, scope: Scope, ctx: Context) -> ir.TStmt:
        return ir.Return(s.span)

    def end(self, s: ast.End, scope: Scope, ctx: Context) -> ir.TStmt:
        return ir.EndPhase(s.span) if s.what == "phase" else ir.EndGame(s.span)

    def set(self, s: ast.Set, scope: Scope, ctx: Context) -> ir.TStmt:
        target = s.target
        if isinstance(target, ast.Index | ast.Attr):
            return self.set_at(s, target, scope)
        if not isinstance(target, ast.Name):
            self.r.error(target.span, TYPE, "only names can be set")
            return ir.SetVar(s.span, "", ir.Const(ERROR))
        name = target.id
        if name in scope.bindings:
            value = self.ec.expr(s.value, scope, scope.bindings[name])
            return ir.Let(s.span, name, value)
        if name in VARIABLES:
            typ, settable = VARIABLES[name]
            if not settable:
                self.r.error(target.span, TYPE, f"{name!r} cannot be changed")
            return ir.SetVar(s.span, name, self.ec.expr(s.value, scope, typ))
        var = self.sym.variables.get(name)
        if var is not None:
            if var.scope:
                self.r.error(
                    target.span, TYPE, f"{name!r} has one value per {var.scope}: set it at an index"
                )
            return ir.SetVar(s.span, name, self.ec.expr(s.value, scope, var.type))
        hint = did_you_mean(name, set(scope.bindings) | set(VARIABLES) | set(self.sym.variables))
        self.r.error(
            target.span,
            UNKNOWN_NAME,
            f"cannot set {name!r}: not a binding or a state variable",
            *hint_note(hint),
        )
        return ir.SetVar(s.span, name, ir.Const(ERROR))

    def set_at(self, s: ast.Set, target: ast.Index | ast.Attr, scope: Scope) -> ir.TStmt:
        """`set morale[side] = …`, `set u.order = …`: a per-side (unit, hex) variable."""
        place = self.ec.expr(target, scope)
        if not isinstance(place, ir.VarAt):
            if place.type != ERROR:
                self.r.error(target.span, TYPE, "only variables can be set")
            return ir.SetVar(s.span, "", ir.Const(ERROR))
        value = self.ec.expr(s.value, scope, place.type)
        return ir.SetVarAt(s.span, place.name, place.index, value)

    def roll(self, s: ast.Roll, scope: Scope, ctx: Context) -> ir.TStmt:
        if s.table == "die":
            return self.die_roll(s, scope, ctx)
        table = self.sym.tables.get(s.table)
        if table is None:
            hint = did_you_mean(s.table, set(self.sym.tables) | {"die"})
            self.r.error(s.span, UNKNOWN_NAME, f"unknown table {s.table!r}", *hint_note(hint))
        column = self.roll_column(s, table, scope)
        if table is not None and table.row_key != "die":
            self.r.error(
                s.span,
                TYPE,
                f"table {s.table!r} is looked up by {table.row_key}, not rolled: use lookup()",
            )
        if s.modifiers is not None:
            self.check_modifier_scope(s, scope)
            self.check_open_ends(s, table)
        self.bind(scope, ctx, s.into, cell_type(table) if table else ERROR, s.span)
        if s.total is not None:
            self.bind(scope, ctx, s.total, "int", s.span)
        if s.natural is not None:
            self.bind(scope, ctx, s.natural, "int", s.span)
        return ir.Roll(s.span, s.table, column, s.modifiers, s.into, s.total, s.natural)

    def die_roll(self, s: ast.Roll, scope: Scope, ctx: Context) -> ir.TStmt:
        """`roll die into n`: a die roll on no table; `into modified, natural`
        also keeps the face before the modifiers ("on a natural 0")."""
        if s.column is not None:
            self.r.error(s.span, TYPE, "a die roll on no table has no column")
        if s.natural is not None:
            self.r.error(
                s.span,
                TYPE,
                "a die roll on no table binds two names: write `into modified, natural`",
            )
        if s.modifiers is not None:
            self.check_modifier_scope(s, scope)
        self.bind(scope, ctx, s.into, "int", s.span)
        if s.total is not None:
            self.bind(scope, ctx, s.total, "int", s.span)
        return ir.Roll(s.span, "", None, s.modifiers, s.into, s.total)

    def roll_column(self, s: ast.Roll, table: ir.Table | None, scope: Scope) -> ir.TExpr | None:
        """The column rolled on (`at …`), which a table with columns needs."""
        if s.column is None:
            if table is not None and table.column_kind != "none":
                self.r.error(s.span, TYPE, f"table {s.table!r} has columns: say which with `at`")
            return None
        column = self.ec.expr(s.column, scope)
        if table is None or column.type in ("column", ERROR):
            return column
        want = COLUMN_TYPES.get(table.column_kind)
        if want is None:
            self.r.error(s.column.span, TYPE, f"table {s.table!r} has one column: drop `at`")
            return column
        return self.ec.expect(column, want, "the column")

    def check_open_ends(self, s: ast.Roll, table: ir.Table | None) -> None:
        """Modifiers take a roll past the die's faces: a table of ranges rolled
        with them must have a row for every modified roll, its first row open
        below and its last open above (`..N`, `N..`)."""
        if table is None or table.row_kind != "range" or not table.rows:
            return
        if table.rows[0].low is not None or table.rows[-1].high is not None:
            self.r.error(
                s.span,
                TYPE,
                f"table {s.table!r} is rolled with modifiers, so its rows must cover every "
                "modified roll: make its first row open below and its last open above "
                "(`..N`, `N..`)",
            )

    def check_modifier_scope(self, s: ast.Roll, scope: Scope) -> None:
        """The modifier list exists and everything it reads is bound where the die is rolled."""
        if s.modifiers is not None:
            params = self.sym.modifiers.get(s.modifiers)
            if params is None:
                hint = did_you_mean(s.modifiers, set(self.sym.modifiers))
                self.r.error(
                    s.span,
                    UNKNOWN_NAME,
                    f"unknown modifier list {s.modifiers!r}",
                    *hint_note(hint),
                )
            else:
                for pname, ptype in params:
                    if scope.bindings.get(pname) != ptype:
                        self.r.error(
                            s.span,
                            TYPE,
                            f"modifier list {s.modifiers!r} reads {pname!r} ({article(ptype)}), "
                            "which is not bound here",
                        )

    def call_proc(self, s: ast.CallProc, scope: Scope, ctx: Context) -> ir.TStmt:
        params = self.sym.procedures.get(s.proc)
        if params is None:
            hint = did_you_mean(s.proc, set(self.sym.procedures))
            self.r.error(
                s.span,
                UNKNOWN_NAME,
                f"unknown procedure {s.proc!r}",
                *hint_note(hint),
            )
            return ir.CallProc(s.span, s.proc, ())
        args = self.ec.arguments(s.span, s.proc, params, s.args, s.keywords, scope)
        if s.into is not None:
            result = self.sym.procedure_results.get(s.proc)
            if result is None:
                self.r.error(s.span, TYPE, f"{s.proc!r} gives no result: declare `-> name: type`")
            else:
                self.bind(scope, ctx, s.into, result[1], s.span)
        return ir.CallProc(s.span, s.proc, tuple(args), s.into)

    def effect(self, s: ast.Effect, scope: Scope, ctx: Context) -> ir.TStmt:
        sig = self.sym.vocabulary.get(s.func)
        if sig is None or sig.kind == "query":
            return self.not_an_effect(s, sig)
        args = self.ec.arguments(
            s.span, s.func, sig.params, s.args, s.keywords, scope, sig.optional
        )
        if sig.kind == "effect":
            return ir.Effect(s.span, s.func, tuple(a for _n, a in args))
        return self.primitive(s, sig, args)

    def primitive(
        self, s: ast.Effect, sig: Signature, args: list[tuple[str, ir.TExpr]]
    ) -> ir.TStmt:
        """A primitive's call: options that need another given with them, and its
        lambdas (`cost: (unit, hex) -> int`) kept apart from its plain arguments."""
        self.check_needs(s, sig, {n for n, _a in args})
        lambdas = {n for n, t in sig.params if isinstance(t, Lambda)}
        return ir.CallPrim(
            s.span,
            s.func,
            tuple((n, a) for n, a in args if n not in lambdas),
            tuple((n, a) for n, a in args if n in lambdas),
        )

    def check_needs(self, s: ast.Effect, sig: Signature, named: set[str]) -> None:
        """An option of a primitive that needs another given with it."""
        for option, needed in sig.needs:
            if option in named and needed not in named:
                self.r.error(
                    s.span, MISSING, f"{s.func}: `{option}` needs `{needed}` given as well"
                )

    def not_an_effect(self, s: ast.Effect, sig: Signature | None) -> ir.TStmt:
        """A statement calling a query (a value) or nothing the engine knows."""
        known = {n for n, g in self.sym.vocabulary.items() if g.kind != "query"}
        hint = did_you_mean(s.func, known)
        what = "a value, not an action" if sig is not None else "not an effect or primitive"
        self.r.error(s.span, UNKNOWN_NAME, f"{s.func!r} is {what}", *hint_note(hint))
        return ir.Effect(s.span, s.func, ())

    _CHECKS: ClassVar[dict[type, Callable[..., ir.TStmt]]] = {
        ast.Let: let,
        ast.Set: set,
        ast.If: if_,
        ast.Break: break_,
        ast.Reveal: reveal,
        ast.Draw: draw,
        ast.ForEach: for_each,
        ast.Repeat: repeat,
        ast.Roll: roll,
        ast.Choose: choose,
        ast.Ask: ask,
        ast.Apply: apply,
        ast.CallProc: call_proc,
        ast.SkipTo: skip_to,
        ast.Return: return_,
        ast.End: end,
        ast.Effect: effect,
    }
