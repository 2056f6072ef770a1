"""Parse rule files into the syntax tree of `dsl.ast`, with friendly errors.

The transformer only reshapes Lark's tree and converts tokens; every check
of meaning happens later in `compiler.check`, so that errors raised here are
only syntax errors, reported with file:line:col and what was expected.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import fields, is_dataclass
from typing import Any

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from dsl import ast
from dsl.diagnostics import SYNTAX, Reporter
from dsl.grammar import parser
from dsl.source import Span

# Names of terminals as a designer would say them, for "expected ..." messages.
_FRIENDLY = {
    "_NL": "end of line",
    "SEMICOLON": "';'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "COLON": "':'",
    "EQUAL": "'='",
    "SLASH": "'/'",
    "NAME": "a name",
    "INT": "a number",
    "SIGNED_INT": "a signed number such as +1",
    "DECIMAL": "a decimal number",
    "STRING": 'a "quoted string"',
    "ODDS": "odds such as 3:1",
    "RANGE": "a range such as 1..3",
    "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*' or '/'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "$END": "end of file",
}


def _friendly(term: str) -> str:
    if term in _FRIENDLY:
        return _FRIENDLY[term]
    p = parser()
    pattern = p.get_terminal(term).pattern if term in {t.name for t in p.terminals} else None
    if pattern is not None and pattern.type == "str":
        return f"'{pattern.value}'"
    return term.lower()


def _expected(allowed: set[str]) -> str:
    names = sorted({_friendly(t) for t in allowed})
    if len(names) > 8:
        names = [*names[:8], "…"]
    return ", ".join(names)


# Expressions nest at most this deep (a chain `a + b + …` counts each
# operator): deeper ones are refused with their place rather than
# overflowing the checker's recursion or the generated Python's parser.
MAX_NESTING = 100
# Longest whole number a rule file may write: a game's numbers stay within
# ±10⁹ (what a save holds, docs/reliability.md), so a longer one is a typo;
# each value's own range (a map's rows, a die's faces) is checked later.
MAX_DIGITS = 9


def decode_source(data: bytes, filename: str, reporter: Reporter) -> str | None:
    """A rule file's bytes as text; a file that is not UTF-8 is reported at
    the first bad byte and gives None."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        before = data[: e.start]
        line = before.count(b"\n") + 1
        column = e.start - (before.rfind(b"\n") + 1) + 1
        reporter.error(
            Span(filename, line, column, line, column + 1),
            SYNTAX,
            f"the file is not UTF-8 text (byte 0x{data[e.start]:02x} here)",
            "save the rule file as UTF-8",
        )
        return None


def parse_text(text: str, filename: str, reporter: Reporter) -> ast.File | None:
    """Parse one file; on a syntax error report it and return None."""
    reporter.sources.add(filename, text)
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = parser().parse(text)
    except UnexpectedInput as e:
        _report_syntax(e, filename, text, reporter)
        return None
    deep = _too_deep(tree, lambda node: node.children if isinstance(node, Tree) else ())
    if deep is not None:
        _report_nesting(reporter, _span(filename, deep.meta))
        return None
    before = len(reporter.diagnostics)
    parsed = _ToAst(filename, reporter).transform(tree)
    deep = _too_deep(parsed, _expression_parts, ast.Expr)
    if deep is not None:
        _report_nesting(reporter, deep.span)
    return None if len(reporter.diagnostics) > before else parsed


def _report_nesting(reporter: Reporter, span: Span) -> None:
    reporter.error(
        span,
        SYNTAX,
        f"an expression nested more than {MAX_NESTING} deep",
        "split it into smaller `define`s",
    )


def _expression_parts(node: Any) -> Iterable[Any]:
    """The child nodes of a syntax-tree node (its fields that hold nodes)."""
    if isinstance(node, tuple | list):
        return node
    if not is_dataclass(node):
        return ()
    return [getattr(node, f.name) for f in fields(node) if f.name != "span"]


def _too_deep(root: Any, children: Callable[[Any], Iterable[Any]], counted: type = object) -> Any:
    """The first node more than MAX_NESTING `counted` nodes deep, or None
    (walked with a stack of its own: the tree may be deeper than Python's)."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, counted) and not isinstance(node, tuple | list):
            depth += 1
            if depth > MAX_NESTING:
                return node
        stack.extend((child, depth) for child in children(node))
    return None


def _report_syntax(e: UnexpectedInput, filename: str, text: str, reporter: Reporter) -> None:
    line, column = max(e.line, 1), max(e.column, 1)
    if isinstance(e, UnexpectedToken) and e.token.type == "$END":
        line = text.count("\n")
        column = 1
    width = 1
    msg, allowed = "syntax error", set()  # Lark has no other kinds than those below
    for kind, read in _UNEXPECTED:
        if isinstance(e, kind):
            msg, allowed, width = read(e, text)
            break
    span = Span(filename, line, column, line, column + width)
    hint = _hint(text, line, column)
    notes = [f"expected {_expected(set(allowed))}"] if allowed else []
    if hint:
        notes.append(hint)
    reporter.error(span, SYNTAX, msg, *notes)


# What each kind of syntax error reports: the message, the terminals that were
# allowed there, and how many characters the error's span covers.
_Unexpected = tuple[str, set[str], int]


def _unexpected_character(e: UnexpectedCharacters, text: str) -> _Unexpected:
    char = text[e.pos_in_stream] if e.pos_in_stream < len(text) else "?"
    return f"unexpected character {char!r}", e.allowed or set(), 1


def _unexpected_token(e: UnexpectedToken, text: str) -> _Unexpected:
    """A token out of place, spanned whole; the end of a line or file, as that."""
    tok = e.token
    allowed = e.expected or set()
    if tok.type == "$END":
        return "unexpected end of file", allowed, 1
    if tok.type == "_NL":
        return "unexpected end of line", allowed, 1
    return f"unexpected {str(tok)!r}", allowed, len(str(tok))


def _unexpected_eof(e: UnexpectedEOF, text: str) -> _Unexpected:
    return "unexpected end of file", set(e.expected or ()), 1


_UNEXPECTED: tuple[tuple[type[UnexpectedInput], Callable[..., _Unexpected]], ...] = (
    (UnexpectedCharacters, _unexpected_character),
    (UnexpectedToken, _unexpected_token),
    (UnexpectedEOF, _unexpected_eof),
)


# Operators of other languages, and what the rule language writes instead.
_FOREIGN = (
    ("&&", "write `and`"),
    ("||", "write `or`"),
    ("=>", "write `>=` for 'at least'"),
    ("=<", "write `<=` for 'at most'"),
    (":=", "write `=`"),
    ("!", "write `not x` (and `!=` for 'is not')"),
)
_FOREIGN_WORDS = {
    "elif": "write `else if`",
    "elsif": "write `else if`",
    "null": "write `none`",
    "None": "write `none`",
    "def": "a definition is `define name(param: type) = expression`",
    "function": "a definition is `define name(param: type) = expression`",
}


def _hint(text: str, line: int, column: int) -> str | None:
    """Common mistakes, recognised from the text around the error: what to write instead."""
    lines = text.splitlines()
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    here = src[max(column - 1, 0) :]
    for hint in _HINTS:
        found = hint(src, here)
        if found:
            return found
    return None


def _single_quotes(src: str, here: str) -> str | None:
    if "'" in src and '"' not in src:
        return "strings are written in double quotes"
    return None


def _foreign_operator(src: str, here: str) -> str | None:
    for op, advice in _FOREIGN:
        if here.startswith(op) and not (op == "!" and here.startswith("!=")):
            return f"`{op}` is not an operator of the rule language: {advice}"
    return None


def _foreign_word(src: str, here: str) -> str | None:
    word = here.split(" ", 1)[0].rstrip("(:")
    if word in _FOREIGN_WORDS:
        return f"`{word}` is not a word of the rule language: {_FOREIGN_WORDS[word]}"
    return None


def _range_as_value(src: str, here: str) -> str | None:
    if ".." in here.split(" ", 1)[0] and src.lstrip().startswith(("when", "if", "define")):
        return "a range is not a value: test a value with `in`, as in `turn in 1..2`"
    return None


def _step_without_body(src: str, here: str) -> str | None:
    stripped = src.strip()
    if stripped.startswith("step ") and ":" not in stripped and "{" not in stripped:
        return "a step is `step name: statement` or `step name { statements }`"
    return None


def _single_equals(src: str, here: str) -> str | None:
    if "=" in src and "==" not in src and src.strip().split(" ")[0] in {"when", "if"}:
        return "comparisons use `==`; a single `=` assigns"
    return None


def _choose_when_first(src: str, here: str) -> str | None:
    if src.strip().startswith("choose when "):
        return "a set-up choice names its units first: `choose UNITS… when CONDITION`"
    return None


# The mistakes `_hint` recognises, tried in order on the error's line (`src`)
# and the text from the error on (`here`).
_HINTS: tuple[Callable[[str, str], str | None], ...] = (
    _single_quotes,
    _foreign_operator,
    _foreign_word,
    _range_as_value,
    _step_without_body,
    _single_equals,
    _choose_when_first,
)


def _is_when(item: object) -> bool:
    """Whether a line's item is its `when` clause (see `_ToAst.when_clause`)."""
    return isinstance(item, tuple) and bool(item) and item[0] == "when"


def _computed_key(values: list[ast.Expr]) -> tuple[ast.Expr, ...]:
    """`allowance (expr)` lexes as a call; a line's key is a name, so read it as
    the key followed by a computed value."""
    first = values[0] if values else None
    if not isinstance(first, ast.Call) or len(first.args) != 1 or first.keywords:
        return tuple(values)
    s = first.span
    key_span = Span(s.file, s.line, s.column, s.line, s.column + len(first.func))
    key = ast.Name(span=key_span, id=first.func)
    return (key, ast.Paren(span=first.span, expr=first.args[0]), *values[1:])


def _span(filename: str, meta) -> Span:
    if getattr(meta, "empty", True):
        return Span(filename, 0, 0, 0, 0)
    return Span(filename, meta.line, meta.column, meta.end_line, meta.end_column)


def _tok_span(filename: str, tok: Token) -> Span:
    return Span(filename, tok.line, tok.column, tok.end_line, tok.end_column)


ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


def _unquote(token: Token, filename: str, reporter: Reporter) -> str:
    """A string literal's text: the escapes are \\" \\\\ \\n and \\t, and no
    control character may be written into the file as it is."""
    body = str(token)[1:-1]
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        column = token.column + 1 + i
        if ch == "\\":
            nxt = body[i + 1]  # the grammar ends no string on a lone backslash
            if nxt not in ESCAPES:
                reporter.error(
                    Span(filename, token.line, column, token.line, column + 2),
                    SYNTAX,
                    f"unknown escape \\{nxt} in a string",
                    'the escapes are \\" \\\\ \\n and \\t (write \\\\ for a backslash)',
                )
            out.append(ESCAPES.get(nxt, nxt))
            i += 2
            continue
        if unicodedata.category(ch) in ("Cc", "Cs") and ch != "\t":
            reporter.error(
                Span(filename, token.line, column, token.line, column + 1),
                SYNTAX,
                f"a control character (U+{ord(ch):04X}) in a string",
                "write \\n or \\t, or remove it",
            )
        out.append(ch)
        i += 1
    return "".join(out)


@v_args(meta=True)
class _ToAst(Transformer):
    """Reshape Lark's tree into `dsl.ast` nodes; no checking happens here."""

    def __init__(self, filename: str, reporter: Reporter) -> None:
        super().__init__()
        self.f = filename
        self.reporter = reporter

    def q(self, tok: Token) -> str:
        return _unquote(tok, self.f, self.reporter)

    def _digits(self, tok: Token) -> bool:
        """Report each whole number of the token (a range or odds have two) longer
        than MAX_DIGITS; whether all are short enough."""
        lengths = [len(digits) for digits in re.findall(r"[0-9]+", str(tok))]
        for digits in lengths:
            if digits > MAX_DIGITS:
                self.reporter.error(
                    _tok_span(self.f, tok),
                    SYNTAX,
                    f"a number of {digits} digits",
                    f"whole numbers in rule files have at most {MAX_DIGITS} digits",
                )
        return max(lengths, default=0) <= MAX_DIGITS

    def s(self, meta) -> Span:
        return _span(self.f, meta)

    # --- file and declarations
    def start(self, meta, items):
        return ast.File(self.f, tuple(i for i in items if isinstance(i, ast.Decl)))

    def import_decl(self, meta, items):
        target, prov = items
        is_path = target.type == "STRING"
        value = self.q(target) if is_path else str(target)
        return ast.Import(span=self.s(meta), target=value, is_path=is_path, prov=prov)

    def entity_decl(self, meta, items):
        kind, name, params, title, prov, body = items
        return ast.Entity(
            span=self.s(meta),
            kind=str(kind),
            name=str(name) if name is not None else None,
            params=params or (),
            title=self.q(title) if title is not None else None,
            prov=prov,
            body=body,
            name_span=_tok_span(self.f, name) if name is not None else self.s(meta),
        )

    def define_decl(self, meta, items):
        name, params, title, prov, expr, prov2 = items
        if prov.empty:
            prov = prov2
        elif not prov2.empty:  # cited before `=`, marked after the value: keep both
            prov = ast.Provenance(
                citations=prov.citations + prov2.citations,
                provisional=prov2.provisional
                if prov2.provisional is not None
                else prov.provisional,
                span=prov.span,
            )
        return ast.Define(
            span=self.s(meta),
            name=str(name),
            params=params or (),
            title=self.q(title) if title is not None else None,
            prov=prov,
            expr=expr,
        )

    def proc_kind(self, meta, items):
        return str(items[0])

    def procedure_decl(self, meta, items):
        kind, name, params, result, title, prov, *steps = items
        return ast.Procedure(
            span=self.s(meta),
            kind=kind,
            name=str(name),
            params=params or (),
            result=result,
            title=self.q(title) if title is not None else None,
            prov=prov,
            steps=tuple(steps),
        )

    def params(self, meta, items):
        return tuple(p for p in items if p is not None)

    def result(self, meta, items):
        name, typ = items
        return ast.Param(str(name), str(typ), self.s(meta))

    def override_decl(self, meta, items):
        import dataclasses

        return dataclasses.replace(items[0], override=True)

    def param(self, meta, items):
        name, typ = items
        return ast.Param(str(name), str(typ), self.s(meta))

    def step(self, meta, items):
        name, title, prov, body = items
        if isinstance(body, ast.Stmt):
            body = (body,)
        return ast.Step(
            str(name), self.q(title) if title is not None else None, prov, body, self.s(meta)
        )

    def extend_decl(self, meta, items):
        name, prov, *patches = items
        return ast.Extend(span=self.s(meta), procedure=str(name), prov=prov, patches=tuple(patches))

    def extend_list_decl(self, meta, items):
        kind, name, prov, body = items
        return ast.ExtendList(
            span=self.s(meta), kind=str(kind), name=str(name), prov=prov, body=body
        )

    def position(self, meta, items):
        return str(items[0])

    def insert_patch(self, meta, items):
        position, target, prov, step = items
        return ast.Patch(f"insert {position}", str(target), step, prov, self.s(meta))

    def replace_patch(self, meta, items):
        target, prov, step = items
        return ast.Patch("replace", str(target), step, prov, self.s(meta))

    def disable_patch(self, meta, items):
        target, prov = items
        return ast.Patch("disable", str(target), None, prov, self.s(meta))

    def rule_decl(self, meta, items):
        name, title, *rest = items
        decls = tuple(i for i in rest if isinstance(i, ast.Decl))
        prov = next(i for i in rest if isinstance(i, ast.Provenance))
        flags = tuple(str(i) for i in rest if isinstance(i, Token))
        relations = [i for i in rest if isinstance(i, tuple)]
        part_of = next((r[1] for r in relations if r[0] == "part_of"), None)
        excludes = next((r[1] for r in relations if r[0] == "excludes"), ())
        return ast.Rule(
            span=self.s(meta),
            name=str(name),
            title=self.q(title) if title is not None else None,
            flags=flags,
            prov=prov,
            decls=decls,
            part_of=part_of,
            excludes=excludes,
        )

    def rule_part_of(self, meta, items):
        (name,) = items
        return ("part_of", (str(name), _tok_span(self.f, name)))

    def rule_excludes(self, meta, items):
        return ("excludes", tuple((str(n), _tok_span(self.f, n)) for n in items))

    # --- generic blocks
    def block(self, meta, items):
        return ast.Block(tuple(i for i in items if i is not None), self.s(meta))

    def line(self, meta, items):
        values = []
        when = None
        prov = ast.Provenance()
        block = None
        for item in items:
            if isinstance(item, ast.Provenance):
                prov = item
            elif isinstance(item, ast.Block):
                block = item
            elif _is_when(item):
                when = item[1]
            elif item is not None:
                values.append(item)
        return ast.Line(_computed_key(values), when, prov, block, self.s(meta))

    def paren(self, meta, items):
        return ast.Paren(span=self.s(meta), expr=items[0])

    def when_clause(self, meta, items):
        return ("when", items[0])

    def when_line(self, meta, items):
        return ast.WhenLine(items[0], items[1], self.s(meta))

    def do_line(self, meta, items):
        return ast.DoLine(items[0], items[1], self.s(meta))

    def slash(self, meta, items):
        return ast.Slash(span=self.s(meta), parts=tuple(items))

    def range(self, meta, items):
        self._digits(items[0])
        text = str(items[0])
        low, _, high = text.partition("..")
        return ast.Range(span=self.s(meta), low=low or None, high=high or None)

    def list(self, meta, items):
        return ast.ValueList(span=self.s(meta), items=tuple(i for i in items if i is not None))

    def dash(self, meta, items):
        return ast.Dash(span=self.s(meta))

    def star(self, meta, items):
        return ast.Star(span=self.s(meta))

    # --- provenance
    def prov(self, meta, items):
        cites = tuple(i for i in items if isinstance(i, ast.Citation))
        provisional = next((i for i in items if isinstance(i, str)), None)
        return ast.Provenance(cites, provisional, self.s(meta))

    def citation(self, meta, items):
        doc, *sections = items
        return ast.Citation(str(doc), tuple(str(s) for s in sections), self.s(meta))

    def provisional(self, meta, items):
        return self.q(items[0])

    # --- statements
    def stmt_block(self, meta, items):
        return tuple(i for i in items if i is not None)

    def let_stmt(self, meta, items):
        return ast.Let(span=self.s(meta), name=str(items[0]), value=items[1])

    def set_stmt(self, meta, items):
        return ast.Set(span=self.s(meta), target=items[0], value=items[1])

    def target_name(self, meta, items):
        return ast.Name(span=self.s(meta), id=str(items[0]))

    def target_index(self, meta, items):
        name = ast.Name(span=_tok_span(self.f, items[0]), id=str(items[0]))
        return ast.Index(span=self.s(meta), value=name, index=items[1])

    def target_attr(self, meta, items):
        name = ast.Name(span=_tok_span(self.f, items[0]), id=str(items[0]))
        return ast.Attr(span=self.s(meta), value=name, name=str(items[1]))

    def if_stmt(self, meta, items):
        test, body, orelse = items
        return ast.If(span=self.s(meta), test=test, body=body, orelse=orelse or ())

    def else_part(self, meta, items):
        (part,) = items
        return (part,) if isinstance(part, ast.Stmt) else part

    def for_stmt(self, meta, items):
        var, iterable, chooser, body = items
        return ast.ForEach(
            span=self.s(meta), var=str(var), iterable=iterable, chooser=chooser, body=body
        )

    def chosen_by(self, meta, items):
        return items[0]

    def repeat_stmt(self, meta, items):
        test, body = items
        return ast.Repeat(span=self.s(meta), test=test, body=body)

    def roll_stmt(self, meta, items):
        table, column, modifiers, into, total, natural = items
        return ast.Roll(
            span=self.s(meta),
            table=str(table),
            column=column,
            modifiers=str(modifiers) if modifiers is not None else None,
            into=str(into),
            total=str(total) if total is not None else None,
            natural=str(natural) if natural is not None else None,
        )

    def choose_mode(self, meta, items):
        return str(items[0])

    def choose_stmt(self, meta, items):
        mode, var, options, chooser = items
        return ast.Choose(
            span=self.s(meta), var=str(var), options=options, chooser=chooser, mode=mode or ""
        )

    def reveal_stmt(self, meta, items):
        return ast.Reveal(span=self.s(meta), names=tuple(str(i) for i in items))

    def draw_stmt(self, meta, items):
        return ast.Draw(span=self.s(meta), bag=str(items[0]), into=str(items[1]))

    def break_stmt(self, meta, items):
        return ast.Break(span=self.s(meta))

    def ask_mode(self, meta, items):
        return str(items[0])

    def ask_stmt(self, meta, items):
        mode, player, question, into, yes, no = items
        return ast.Ask(
            span=self.s(meta),
            player=player,
            question=self.q(question),
            yes=yes,
            no=no or (),
            mode=mode or "",
            into=str(into) if into is not None else "",
        )

    def apply_stmt(self, meta, items):
        result, args = items
        pos, kw = args or ((), ())
        return ast.Apply(span=self.s(meta), result=result, args=pos, keywords=kw)

    def call_stmt(self, meta, items):
        name, args, into = items
        pos, kw = args or ((), ())
        return ast.CallProc(
            span=self.s(meta),
            proc=str(name),
            args=pos,
            keywords=kw,
            into=str(into) if into is not None else None,
        )

    def skip_stmt(self, meta, items):
        return ast.SkipTo(span=self.s(meta), step=str(items[0]))

    def return_stmt(self, meta, items):
        return ast.Return(span=self.s(meta))

    def end_what(self, meta, items):
        return str(items[0])

    def end_stmt(self, meta, items):
        return ast.End(span=self.s(meta), what=items[0])

    def effect_stmt(self, meta, items):
        name, args = items
        pos, kw = args or ((), ())
        return ast.Effect(span=self.s(meta), func=str(name), args=pos, keywords=kw)

    # --- expressions
    def _binary_chain(self, meta, items, op=None):
        result = items[0]
        rest = items[1:]
        if op is not None:
            for right in rest:
                result = ast.Binary(span=self.s(meta), op=op, left=result, right=right)
            return result
        for op_tok, right in zip(rest[::2], rest[1::2], strict=True):
            result = ast.Binary(span=self.s(meta), op=str(op_tok), left=result, right=right)
        return result

    def or_expr(self, meta, items):
        return self._binary_chain(meta, items, "or")

    def and_expr(self, meta, items):
        return self._binary_chain(meta, items, "and")

    def sum(self, meta, items):
        return self._binary_chain(meta, items)

    def product(self, meta, items):
        return self._binary_chain(meta, items)

    def comparison(self, meta, items):
        return self._binary_chain(meta, items)

    def conditional(self, meta, items):
        return ast.Conditional(span=self.s(meta), test=items[0], then=items[1], orelse=items[2])

    def where(self, meta, items):
        return ast.Binary(span=self.s(meta), op="where", left=items[0], right=items[1])

    def member(self, meta, items):
        return ast.Binary(span=self.s(meta), op="in", left=items[0], right=items[1])

    def not_member(self, meta, items):
        return ast.Binary(span=self.s(meta), op="not in", left=items[0], right=items[1])

    def not_(self, meta, items):
        return ast.Unary(span=self.s(meta), op="not", operand=items[0])

    def neg(self, meta, items):
        return ast.Unary(span=self.s(meta), op="-", operand=items[0])

    def attr(self, meta, items):
        return ast.Attr(span=self.s(meta), value=items[0], name=str(items[1]))

    def index(self, meta, items):
        return ast.Index(span=self.s(meta), value=items[0], index=items[1])

    def number(self, meta, items):
        self._digits(items[0])
        return ast.Number(span=self.s(meta), text=str(items[0]))

    def string(self, meta, items):
        return ast.String(span=self.s(meta), value=self.q(items[0]))

    def odds(self, meta, items):
        if not self._digits(items[0]):
            return ast.Odds(span=self.s(meta), attack=1, defend=1)  # reported: never checked
        a, d = str(items[0]).split(":")
        return ast.Odds(span=self.s(meta), attack=int(a), defend=int(d))

    def name(self, meta, items):
        return ast.Name(span=self.s(meta), id=str(items[0]))

    def keyword_name(self, meta, items):
        return ast.Name(span=self.s(meta), id=str(items[0]))

    def call(self, meta, items):
        name, args = items
        pos, kw = args or ((), ())
        return ast.Call(span=self.s(meta), func=str(name), args=pos, keywords=kw)

    def list_expr(self, meta, items):
        return ast.ListExpr(span=self.s(meta), items=tuple(i for i in items if i is not None))

    def args(self, meta, items):
        pos = tuple(i for i in items if not isinstance(i, tuple))
        kw = tuple(i for i in items if isinstance(i, tuple))
        return (pos, kw)

    def keyword_arg(self, meta, items):
        return (str(items[0]), items[1])
