"""Type checking of statements: the bodies of steps, results and triggers.

Bindings made by `let`, `for each`, `choose`, `roll … into` and `ask` are
visible for the rest of the procedure (a later step reads what an earlier
step computed, as the rulebook's steps do), and every binding's type is
recorded so the engine can save frames readably.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler import ir
from compiler.expressions import ERROR, ExprChecker, Scope, article, cell_type
from dsl import ast
from dsl.diagnostics import MISSING, TYPE, UNKNOWN_NAME, did_you_mean, hint_note
from engine.vocabulary import ELEMENT_TYPES, VARIABLES, Lambda


@dataclass
class Context:
    """Where statements are being checked: which procedure, which steps exist."""

    owner: str
    steps: set[str] = field(default_factory=set)
    bindings: dict[str, str] = field(default_factory=dict)
    loops: int = 0  # how many loops enclose the statement (for `break`)
    secrets: set[str] = field(default_factory=set)


class StmtChecker:
    def __init__(self, ec: ExprChecker) -> None:
        self.ec = ec
        self.sym = ec.sym
        self.r = ec.r

    def bind(self, scope: Scope, ctx: Context, name: str, typ: str, span) -> None:
        old = ctx.bindings.get(name)
        if old == "none" and typ in ("side", "unit", "hex", "code", "combat"):
            old = None  # `let x = none` first, a value of a kind later
        elif typ == "none" and old in ("side", "unit", "hex", "code", "combat"):
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
        ec = self.ec
        if isinstance(s, ast.Let):
            value = ec.expr(s.value, scope)
            self.bind(scope, ctx, s.name, value.type, s.span)
            return ir.Let(s.span, s.name, value)
        if isinstance(s, ast.Set):
            return self.set(s, scope, ctx)
        if isinstance(s, ast.If):
            test = ec.expr(s.test, scope, "bool")
            return ir.If(
                s.span, test, self.block(s.body, scope, ctx), self.block(s.orelse, scope, ctx)
            )
        if isinstance(s, ast.Break):
            if not ctx.loops:
                self.r.error(s.span, TYPE, "`break` leaves a loop; there is none here")
            return ir.Break(s.span)
        if isinstance(s, ast.Reveal):
            for name in s.names:
                if name not in ctx.secrets:
                    self.r.error(s.span, UNKNOWN_NAME, f"{name!r} was not chosen secretly")
            return ir.Reveal(s.span, s.names)
        if isinstance(s, ast.Draw):
            bag = self.sym.bags.get(s.bag)
            if bag is None:
                hint = did_you_mean(s.bag, set(self.sym.bags))
                self.r.error(
                    s.span,
                    UNKNOWN_NAME,
                    f"unknown bag {s.bag!r}",
                    *hint_note(hint),
                )
            self.bind(scope, ctx, s.into, "marker", s.span)
            return ir.Draw(s.span, s.bag, s.into)
        if isinstance(s, ast.ForEach):
            iterable = ec.expr(s.iterable, scope)
            elem = ELEMENT_TYPES.get(iterable.type)
            if elem is None and iterable.type != ERROR:
                self.r.error(
                    s.iterable.span,
                    TYPE,
                    f"`for each` runs over a collection, not {article(iterable.type)}",
                )
            elem = elem or ERROR
            chooser = ec.expr(s.chooser, scope, "side") if s.chooser is not None else None
            self.bind(scope, ctx, s.var, elem, s.span)
            ctx.bindings[f"_for_{s.var}"] = iterable.type
            ctx.loops += 1
            body = self.block(s.body, scope, ctx)
            ctx.loops -= 1
            return ir.ForEach(s.span, s.var, elem, iterable, chooser, body)
        if isinstance(s, ast.Repeat):
            test = ec.expr(s.test, scope, "bool") if s.test is not None else None
            ctx.loops += 1
            body = self.block(s.body, scope, ctx)
            ctx.loops -= 1
            return ir.Repeat(s.span, test, body)
        if isinstance(s, ast.Roll):
            return self.roll(s, scope, ctx)
        if isinstance(s, ast.Choose):
            options = ec.expr(s.options, scope)
            elem = ELEMENT_TYPES.get(options.type)
            if elem is None and options.type != ERROR:
                self.r.error(
                    s.options.span,
                    TYPE,
                    f"`choose` picks from a collection, not {article(options.type)}",
                )
            chooser = ec.expr(s.chooser, scope, "side")
            self.bind(scope, ctx, s.var, elem or ERROR, s.span)
            if s.mode == "secretly":
                ctx.secrets.add(s.var)
                ctx.bindings["_secret"] = "any"
            return ir.Choose(s.span, s.var, elem or ERROR, options, chooser, s.mode)
        if isinstance(s, ast.Ask):
            chooser = ec.expr(s.player, scope, "side")
            var = ec.temp("ask")
            ctx.bindings[var] = "bool"
            yes = self.block(s.yes, scope, ctx)
            no = self.block(s.no, scope, ctx)
            return ir.Ask(s.span, chooser, s.question, var, yes, no)
        if isinstance(s, ast.Apply):
            result = ec.expr(s.result, scope, "code")
            params = self.sym.result_params
            args = ec.arguments(s.span, "a result", params, s.args, s.keywords, scope)
            return ir.ApplyResult(s.span, result, tuple(args))
        if isinstance(s, ast.CallProc):
            return self.call_proc(s, scope, ctx)
        if isinstance(s, ast.SkipTo):
            if s.step not in ctx.steps:
                hint = did_you_mean(s.step, ctx.steps)
                self.r.error(
                    s.span,
                    UNKNOWN_NAME,
                    f"{ctx.owner} has no step {s.step!r}",
                    *hint_note(hint),
                )
            return ir.SkipTo(s.span, s.step)
        if isinstance(s, ast.Return):
            return ir.Return(s.span)
        if isinstance(s, ast.End):
            return ir.EndPhase(s.span) if s.what == "phase" else ir.EndGame(s.span)
        if isinstance(s, ast.Effect):
            return self.effect(s, scope)
        raise AssertionError(f"unhandled statement {s!r}")

    def set(self, s: ast.Set, scope: Scope, ctx: Context) -> ir.TStmt:
        target = s.target
        if isinstance(target, ast.Index | ast.Attr):
            place = self.ec.expr(target, scope)
            if not isinstance(place, ir.VarAt):
                if place.type != ERROR:
                    self.r.error(target.span, TYPE, "only variables can be set")
                return ir.SetVar(s.span, "", ir.Const(ERROR))
            value = self.ec.expr(s.value, scope, place.type)
            return ir.SetVarAt(s.span, place.name, place.index, value)
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
            value = self.ec.expr(s.value, scope, typ)
            return ir.SetVar(s.span, name, value)
        var = self.sym.variables.get(name)
        if var is not None:
            if var.scope:
                self.r.error(
                    target.span, TYPE, f"{name!r} has one value per {var.scope}: set it at an index"
                )
            value = self.ec.expr(s.value, scope, var.type)
            return ir.SetVar(s.span, name, value)
        hint = did_you_mean(name, set(scope.bindings) | set(VARIABLES) | set(self.sym.variables))
        self.r.error(
            target.span,
            UNKNOWN_NAME,
            f"cannot set {name!r}: not a binding or a state variable",
            *hint_note(hint),
        )
        return ir.SetVar(s.span, name, ir.Const(ERROR))

    def roll(self, s: ast.Roll, scope: Scope, ctx: Context) -> ir.TStmt:
        ec = self.ec
        if s.table == "die":
            if s.column is not None:
                self.r.error(s.span, TYPE, "a die roll on no table has no column")
            if s.modifiers is not None:
                self.check_modifier_scope(s, scope)
            self.bind(scope, ctx, s.into, "int", s.span)
            return ir.Roll(s.span, "", None, s.modifiers, s.into)
        if s.table not in self.sym.tables:
            hint = did_you_mean(s.table, set(self.sym.tables) | {"die"})
            self.r.error(
                s.span,
                UNKNOWN_NAME,
                f"unknown table {s.table!r}",
                *hint_note(hint),
            )
        table = self.sym.tables.get(s.table)
        column = None
        if s.column is not None:
            column = ec.expr(s.column, scope)
            if table is not None and column.type not in ("column", ERROR):
                want = {"odds": "odds", "number": "int", "name": "str"}.get(table.column_kind)
                if want is None:
                    self.r.error(
                        s.column.span, TYPE, f"table {s.table!r} has one column: drop `at`"
                    )
                else:
                    column = ec.expect(column, want, "the column")
        elif table is not None and table.column_kind != "none":
            self.r.error(s.span, TYPE, f"table {s.table!r} has columns: say which with `at`")
        if table is not None and table.row_key != "die":
            self.r.error(
                s.span,
                TYPE,
                f"table {s.table!r} is looked up by {table.row_key}, not rolled: use lookup()",
            )
        if s.modifiers is not None:
            self.check_modifier_scope(s, scope)
            if table is not None and table.row_kind == "range":
                self.check_open_ends(s, table)
        self.bind(scope, ctx, s.into, cell_type(table) if table else ERROR, s.span)
        if s.total is not None:
            self.bind(scope, ctx, s.total, "int", s.span)
        return ir.Roll(s.span, s.table, column, s.modifiers, s.into, s.total)

    def check_open_ends(self, s: ast.Roll, table: ir.Table) -> None:
        """Modifiers take a roll past the die's faces: a table rolled with them
        must have a row for every modified roll, its first row open below and
        its last open above (`..N`, `N..`)."""
        if not table.rows:
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

    def effect(self, s: ast.Effect, scope: Scope) -> ir.TStmt:
        sig = self.sym.vocabulary.get(s.func)
        if sig is None or sig.kind == "query":
            known = {n for n, g in self.sym.vocabulary.items() if g.kind != "query"}
            hint = did_you_mean(s.func, known)
            what = "a value, not an action" if sig is not None else "not an effect or primitive"
            self.r.error(
                s.span,
                UNKNOWN_NAME,
                f"{s.func!r} is {what}",
                *hint_note(hint),
            )
            return ir.Effect(s.span, s.func, ())
        args = self.ec.arguments(
            s.span, s.func, sig.params, s.args, s.keywords, scope, sig.optional
        )
        if sig.kind == "effect":
            return ir.Effect(s.span, s.func, tuple(a for _n, a in args))
        named = {n for n, _a in args}
        for option, needed in sig.needs:
            if option in named and needed not in named:
                self.r.error(
                    s.span, MISSING, f"{s.func}: `{option}` needs `{needed}` given as well"
                )
        lambdas = {n for n, t in sig.params if isinstance(t, Lambda)}
        return ir.CallPrim(
            s.span,
            s.func,
            tuple((n, a) for n, a in args if n not in lambdas),
            tuple((n, a) for n, a in args if n in lambdas),
        )
