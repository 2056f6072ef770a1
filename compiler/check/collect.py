"""Pass 1: collect every declaration of every file, in file order.

Each declaration is noted with the rule switch it sits in ("" for none).
`override` puts a declaration in place of the earlier one of that name;
`extend KIND NAME { lines }` appends lines to one. Names are claimed as they
are met, so a duplicate is reported where it is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from compiler.check.names import KINDS, Names
from dsl import ast
from dsl.diagnostics import (
    BAD_VALUE,
    DUPLICATE,
    MISSING,
    UNKNOWN_NAME,
    Reporter,
    did_you_mean,
    hint_note,
)
from dsl.source import Span

RULE_FLAGS = {"optional", "advanced", "play_balance", "scenario"}
NO_FILE = Span("<ruleset>", 0, 0, 0, 0)
_BodyLine = ast.Line | ast.WhenLine | ast.DoLine


@dataclass
class Declarations:
    """Declarations of every file, in file order, each with its rule switch."""

    entities: dict[str, list[tuple[ast.Entity, str]]] = field(default_factory=dict)
    defines: list[tuple[ast.Define, str]] = field(default_factory=list)
    procedures: list[tuple[ast.Procedure, str]] = field(default_factory=list)
    extends: list[tuple[ast.Extend, str]] = field(default_factory=list)
    list_extends: list[tuple[ast.ExtendList, str]] = field(default_factory=list)
    rules: list[ast.Rule] = field(default_factory=list)

    def switched(self, kind: str) -> list[tuple[ast.Entity, str]]:
        """The declarations of a kind, each with its rule switch."""
        return self.entities.get(kind, [])

    def of(self, kind: str) -> list[ast.Entity]:
        """The declarations of a kind."""
        return [d for d, _rule in self.switched(kind)]

    def single(self, kind: str, reporter: Reporter, required: bool) -> ast.Entity | None:
        """The one declaration of a kind a ruleset may have (a map, a turn track)."""
        items = self.of(kind)
        if len(items) > 1:
            reporter.error(items[1].span, DUPLICATE, f"only one {kind} declaration is allowed")
        if not items:
            if required:
                reporter.error(NO_FILE, MISSING, f"the ruleset has no {kind} declaration")
            return None
        return items[0]


def collect(files: tuple[ast.File, ...], reporter: Reporter, names: Names) -> Declarations:
    """Every declaration of the files, overrides in place and extensions appended."""
    collector = _Collector(reporter, names)
    for f in files:
        collector.visit(f.decls, "")
    extend_lists(collector.out, reporter)
    return collector.out


class _Collector:
    """Walks the files' declarations into `Declarations`, claiming names."""

    def __init__(self, reporter: Reporter, names: Names) -> None:
        self.r = reporter
        self.names = names
        self.out = Declarations()
        # name -> (the list it sits in, its index there, its kind), for `override`
        self.declared: dict[str, tuple[list, int, str]] = {}

    def visit(self, decls: tuple[ast.Decl, ...], rule: str) -> None:
        for d in decls:
            visit = self._VISITS.get(type(d))
            if visit is not None:
                visit(self, d, rule)

    def entity(self, d: ast.Entity, rule: str) -> None:
        if d.kind not in KINDS:
            hint = did_you_mean(d.kind, KINDS)
            self.r.error(
                d.span, UNKNOWN_NAME, f"unknown kind of declaration {d.kind!r}", *hint_note(hint)
            )
            return
        # Attributes are read as `unit.name`: they have a namespace of their own.
        name = d.name if d.kind != "attribute" else None
        items = self.out.entities.setdefault(d.kind, [])
        self.add(items, (d, rule), name, d.kind, d.name_span, d)

    def define(self, d: ast.Define, rule: str) -> None:
        self.add(self.out.defines, (d, rule), d.name, "define", d.span, d)

    def procedure(self, d: ast.Procedure, rule: str) -> None:
        self.add(self.out.procedures, (d, rule), d.name, "procedure", d.span, d)

    def extend(self, d: ast.Extend, rule: str) -> None:
        self.out.extends.append((d, rule))

    def extend_list(self, d: ast.ExtendList, rule: str) -> None:
        self.out.list_extends.append((d, rule))

    def rule_switch(self, d: ast.Rule, rule: str) -> None:
        if rule:
            self.r.error(d.span, BAD_VALUE, "a rule cannot sit inside another rule")
        self.out.rules.append(d)
        self.names.register(d.name, d.span, "rule")
        for flag in d.flags:
            if flag not in RULE_FLAGS:
                self.r.error(
                    d.span,
                    BAD_VALUE,
                    f"unknown rule flag {flag!r}",
                    f"flags: {', '.join(sorted(RULE_FLAGS))}",
                )
        self.visit(d.decls, d.name)

    _VISITS: ClassVar[dict[type, Callable[..., None]]] = {
        ast.Entity: entity,
        ast.Define: define,
        ast.Procedure: procedure,
        ast.Extend: extend,
        ast.ExtendList: extend_list,
        ast.Rule: rule_switch,
    }

    def add(
        self, items: list, item: tuple, name: str | None, kind: str, span: Span, d: ast.Decl
    ) -> None:
        """Append a declaration, or (`override`) put it in place of an earlier one."""
        if d.override:
            self.override(item, name, kind, d)
            return
        items.append(item)
        if name is not None:
            self.declared[name] = (items, len(items) - 1, kind)
            self.names.register(name, span, kind)

    def override(self, item: tuple, name: str | None, kind: str, d: ast.Decl) -> None:
        if name is None or name not in self.declared:
            self.r.error(d.span, UNKNOWN_NAME, f"nothing named {name!r} to override")
            return
        if item[1]:
            self.r.error(
                d.span, BAD_VALUE, "an override applies always; it cannot sit inside a rule"
            )
            return
        where, index, old_kind = self.declared[name]
        if old_kind != kind:
            self.r.error(
                d.span, BAD_VALUE, f"{name!r} is a {old_kind}; an override must be one too"
            )
            return
        old = where[index][0]
        if signature(old) != signature(d):
            # Kept as first declared, so that its callers check against it: the
            # one error is the override's, not one at every call.
            self.r.error(
                d.span,
                BAD_VALUE,
                f"override {name!r} changes what it replaces: `{signature(d)}`",
                f"{old_kind} {name!r} is `{signature(old)}`, declared at {old.span}",
                "an override keeps the parameters (and the result) of what it replaces; "
                "follow a new series version by writing its signature, or give a new "
                "function another name",
            )
            return
        where[index] = item


def signature(d: ast.Decl) -> str | None:
    """How a define or procedure is called, `name(a: unit, b: int) -> passed: bool`
    (None for other declarations, whose overrides need not match)."""
    if not isinstance(d, ast.Define | ast.Procedure):
        return None
    params = ", ".join(f"{p.name}: {p.type}" for p in d.params)
    result = getattr(d, "result", None)
    returns = f" -> {result.name}: {result.type}" if result is not None else ""
    return f"{d.name}({params}){returns}"


def extend_lists(decls: Declarations, reporter: Reporter) -> None:
    """Append each `extend KIND NAME { lines }` to its declaration.

    Inside a rule switch only modifier lines may be added; each then holds
    only while the rule is on.
    """
    for ext, rule in decls.list_extends:
        items = decls.switched(ext.kind)
        index = _extended(ext, items, reporter)
        if index is None:
            continue
        if rule and ext.kind != "modifiers":
            reporter.error(
                ext.span,
                BAD_VALUE,
                f"inside a rule only modifiers can be extended, not a {ext.kind}",
            )
            continue
        old, old_rule = items[index]
        added = [_extension_line(line, ext, rule) for line in ext.body.lines]
        body = dataclasses.replace(old.body, lines=(*old.body.lines, *added))
        items[index] = (dataclasses.replace(old, body=body), old_rule)


def _extended(
    ext: ast.ExtendList, items: list[tuple[ast.Entity, str]], reporter: Reporter
) -> int | None:
    """Where the declaration `extend` names sits among those of its kind."""
    index = next((i for i, (d, _r) in enumerate(items) if d.name == ext.name), None)
    if index is None:
        hint = did_you_mean(ext.name, {d.name for d, _r in items if d.name})
        reporter.error(
            ext.span, UNKNOWN_NAME, f"no {ext.kind} {ext.name!r} to extend", *hint_note(hint)
        )
    return index


def _extension_line(line: _BodyLine, ext: ast.ExtendList, rule: str) -> _BodyLine:
    """A line added by `extend`: its source is the extension's unless it names
    its own; inside a rule switch it holds only while the rule is on."""
    if not isinstance(line, ast.Line):
        return line
    if line.prov.empty:
        line = dataclasses.replace(line, prov=ext.prov)
    if not rule:
        return line
    switch = ast.Call(span=line.span, func="rule_on", args=(ast.Name(span=line.span, id=rule),))
    test = (
        switch
        if line.when is None
        else ast.Binary(span=line.span, op="and", left=switch, right=line.when)
    )
    return dataclasses.replace(line, when=test)
