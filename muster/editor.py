"""What an editor asks of a rule file: diagnostics, hover, definition, completion.

The language server (`muster.language_server`, `muster lsp`) answers from
here; nothing here depends on the protocol, so it is tested directly too.
Each ruleset an open file belongs to (the folder holding `ruleset.mst`, or
the battle a `tests/` file tests) gets a `Watcher`, so a keystroke re-parses
only the edited file, with the editor's unsaved texts read in place of the
disk. Names are indexed from the syntax trees of every file the ruleset
reads — the series too — so hover and go-to-definition reach across imports.
Positions are 1-based lines and columns, as in diagnostics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from compiler import ir
from compiler.check.contexts import CONTEXTS
from compiler.load import ENTRY
from dsl import ast
from dsl.diagnostics import Diagnostic
from dsl.source import Span
from engine.registered import load as load_vocabulary
from engine.vocabulary import EVENTS, UNIT_ATTRIBUTES, VARIABLES
from muster.watch import Report, Watcher

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Symbol:
    """A declared name: what it is, where, and what the rulebook says of it."""

    name: str
    kind: str  # "unit", "terrain", "define", "procedure", "query", "parameter", …
    type: str  # the expression type, or "" when it is not a value
    title: str
    span: Span | None  # None for the engine's vocabulary
    citation: str
    provisional: str | None

    def hover(self) -> str:
        head = f"**{self.kind}** `{self.name}`" + (f" — {self.title}" if self.title else "")
        lines = [head]
        if self.type:
            lines.append(f"type: `{self.type}`")
        if self.citation:
            lines.append(self.citation)
        if self.provisional:
            lines.append(f"provisional: {self.provisional}")
        return "\n\n".join(lines)


@dataclass
class Analysis:
    """One check of a ruleset, and its names."""

    report: Report
    symbols: dict[str, Symbol] = field(default_factory=dict)
    files: dict[Path, ast.File] = field(default_factory=dict)

    def diagnostics_of(self, path: Path) -> list[Diagnostic]:
        return [d for d in self.report.diagnostics if _same(d.span.file, path)]

    def files_reported(self) -> set[Path]:
        return {Path(d.span.file).resolve() for d in self.report.diagnostics}


def _same(file: str, path: Path) -> bool:
    return Path(file).resolve() == path.resolve()


def entry_of(path: Path) -> Path | None:
    """The `ruleset.mst` a file belongs to: in its folder or above (a battle's
    `tests/` folder belongs to the battle)."""
    for folder in [path.parent, *path.parent.parents]:
        if (folder / ENTRY).is_file():
            return (folder / ENTRY).resolve()
    return None


class Editor:
    """The analyses of the rulesets whose files are open."""

    def __init__(self) -> None:
        self.watchers: dict[Path, Watcher] = {}
        self.analyses: dict[Path, Analysis] = {}
        self.open: dict[Path, str] = {}  # unsaved texts, by resolved path

    def update(self, path: Path, text: str | None) -> Analysis | None:
        """A file opened or changed (`text`), or closed (None): check its ruleset again."""
        path = path.resolve()
        if text is None:
            self.open.pop(path, None)
        else:
            self.open[path] = text
        entry = self.entry(path)
        if entry is None:
            return None
        watcher = self.watchers.setdefault(entry, Watcher(entry))
        report = watcher.check(dict(self.open))
        analysis = Analysis(report, files={p: f for p, (_t, f) in watcher.cache.items()})
        analysis.symbols = index(analysis.files.values(), report.rules)
        self.analyses[entry] = analysis
        return analysis

    def entry(self, path: Path) -> Path | None:
        """The ruleset a file belongs to; an unsaved buffer that no file holds
        is a ruleset of its own (it may import the series by name)."""
        if path in self.open and not path.exists():
            return path
        return entry_of(path)

    def analysis(self, path: Path) -> Analysis | None:
        entry = self.entry(path.resolve())
        if entry is None:
            return None
        return self.analyses.get(entry) or self.update(path, self.open.get(path.resolve()))

    def text(self, path: Path) -> str:
        """The file's text as the editor has it; a file neither open nor readable
        (removed, not UTF-8) has no words to answer about."""
        path = path.resolve()
        if path in self.open:
            return self.open[path]
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def word_at(self, path: Path, line: int, column: int) -> str | None:
        lines = self.text(path).splitlines()
        if not 0 < line <= len(lines):
            return None
        for m in WORD.finditer(lines[line - 1]):
            if m.start() < column <= m.end() + 1:
                return m.group()
        return None

    def hover(self, path: Path, line: int, column: int) -> str | None:
        symbol = self.symbol_at(path, line, column)
        return symbol.hover() if symbol else None

    def definition(self, path: Path, line: int, column: int) -> Span | None:
        symbol = self.symbol_at(path, line, column)
        return symbol.span if symbol else None

    def symbol_at(self, path: Path, line: int, column: int) -> Symbol | None:
        word = self.word_at(path, line, column)
        analysis = self.analysis(path)
        if word is None or analysis is None:
            return None
        local = {s.name: s for s in self.locals_at(analysis, path, line)}
        return local.get(word) or analysis.symbols.get(word)

    def completion(self, path: Path, line: int, column: int) -> list[Symbol]:
        """Names that may be written here, those bound here first, filtered by
        the part of a word before the cursor."""
        analysis = self.analysis(path)
        if analysis is None:
            return []
        lines = self.text(path).splitlines()
        before = lines[line - 1][: column - 1] if 0 < line <= len(lines) else ""
        m = re.search(r"[A-Za-z_][A-Za-z0-9_]*$", before)
        prefix = m.group() if m else ""
        local = self.locals_at(analysis, path, line)
        seen = {s.name for s in local}
        names = [*local, *(s for n, s in sorted(analysis.symbols.items()) if n not in seen)]
        return [s for s in names if s.name.startswith(prefix)]

    def locals_at(self, analysis: Analysis, path: Path, line: int) -> list[Symbol]:
        """The names bound where `line` is: the parameters of the definition or
        procedure around it, a trigger's event names, a condition's own names."""
        parsed = next((f for p, f in analysis.files.items() if p == path.resolve()), None)
        if parsed is None:
            return []
        for decl in _all_decls(parsed.decls):
            span = decl.span
            if not span.line <= line <= span.end_line:
                continue
            if isinstance(decl, ast.Define | ast.Procedure):
                return [_param(p, decl.name) for p in decl.params]
            if isinstance(decl, ast.Entity):
                return _entity_locals(decl)
        return []


def _entity_locals(decl: ast.Entity) -> list[Symbol]:
    bindings: tuple[tuple[str, str], ...] = ()
    if decl.kind == "trigger":
        lines = [ln for ln in decl.body.lines if isinstance(ln, ast.Line)]
        on = next((ln for ln in lines if ln.key == "on"), None)
        if on is not None and len(on.values) > 1 and isinstance(on.values[1], ast.Name):
            bindings = EVENTS.get(on.values[1].id, ())
    elif decl.kind in ("restriction", "conceal", "impossible", "victory"):
        bindings = CONTEXTS[decl.kind].bindings
    elif decl.kind == "scenario":
        bindings = CONTEXTS["setup_choice"].bindings
    return [Symbol(n, "bound name", t, "", None, "", None) for n, t in bindings]


def _param(p: ast.Param, owner: str) -> Symbol:
    return Symbol(p.name, "parameter", p.type, f"of {owner}", p.span, "", None)


def _all_decls(decls: tuple[ast.Decl, ...]) -> list[ast.Decl]:
    out: list[ast.Decl] = []
    for d in decls:
        out.append(d)
        if isinstance(d, ast.Rule):
            out += _all_decls(d.decls)
    return out


def _cites(prov: ast.Provenance) -> str:
    return " ".join(f"§ {c.document} {', '.join(c.sections)}" for c in prov.citations)


def index(files, rules: ir.Ruleset | None) -> dict[str, Symbol]:
    """Every name the ruleset declares (in the files' syntax trees, later files
    standing over earlier ones), typed from the checked rules where they exist,
    with the engine's queries, variables and unit attributes."""
    out: dict[str, Symbol] = {}
    for name, sig in load_vocabulary().items():
        params = ", ".join(f"{n}: {t}" for n, t in sig.params if isinstance(t, str))
        returns = sig.returns if sig.kind == "query" else ""
        out[name] = Symbol(name, sig.kind, returns, f"{name}({params})", None, sig.doc, None)
    for name, (typ, _settable) in VARIABLES.items():
        out[name] = Symbol(name, "game variable", typ, "", None, "", None)
    for name, typ in UNIT_ATTRIBUTES.items():
        out.setdefault(name, Symbol(name, "unit attribute", typ, "", None, "", None))
    types = _types(rules)
    for parsed in files:
        for decl in _all_decls(parsed.decls):
            if isinstance(decl, ast.Entity) and decl.kind == "map":
                out.update(_map_names(decl))
            elif isinstance(decl, ast.Entity) and decl.name:
                out[decl.name] = Symbol(
                    decl.name,
                    decl.kind,
                    types.get(decl.name, ""),
                    decl.title or "",
                    decl.name_span,
                    _cites(decl.prov),
                    decl.prov.provisional,
                )
            elif isinstance(decl, ast.Define | ast.Procedure | ast.Rule):
                kind = decl.kind if isinstance(decl, ast.Procedure) else type(decl).__name__.lower()
                out[decl.name] = Symbol(
                    decl.name,
                    kind,
                    types.get(decl.name, ""),
                    decl.title or "",
                    decl.span,
                    _cites(decl.prov),
                    decl.prov.provisional,
                )
    return out


def _map_names(decl: ast.Entity) -> dict[str, Symbol]:
    """Places, zones and entries declared inside a map."""
    out = {}
    kinds = ("place", "zone", "entry", "line")
    for line in decl.body.lines:
        if not (isinstance(line, ast.Line) and line.key in kinds and len(line.values) > 1):
            continue
        first = line.values[1]
        if isinstance(first, ast.Name):
            title = next((v.value for v in line.values if isinstance(v, ast.String)), "")
            typ = "hex" if line.key == "place" else "hexes"
            out[first.id] = Symbol(
                first.id, line.key, typ, title, line.span, _cites(line.prov), line.prov.provisional
            )
    return out


def _types(rules: ir.Ruleset | None) -> dict[str, str]:
    """The expression type of each declared name, from the checked rules."""
    if rules is None:
        return {}
    out: dict[str, str] = {}
    out |= {u.name: f"unit of {u.side}" for u in rules.units}
    out |= {s.name: "side" for s in rules.sides}
    out |= {t.name: "terrain" for t in rules.terrain}
    out |= {f.name: "hexside" for f in rules.hexside_features}
    out |= {d.name: d.body.type for d in rules.defines}
    out |= {v.name: (f"{v.type} per {v.scope}" if v.scope else v.type) for v in rules.variables}
    out |= {t.name: "table" for t in rules.tables}
    return out
