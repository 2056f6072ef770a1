"""The rule language's LALR parser: built from `muster.lark`, shipped as tables.

Building the LALR tables from the grammar takes about a second; loading them
takes a few milliseconds, which is what makes `muster check` and the editor
feel instant. The built tables ship inside the package (`muster.lark.pickle`,
beside the grammar), so no command reads or writes a cache in the user's
home. `python -m dsl.grammar` rebuilds them after the grammar changes
(`tests/muster/test_check_speed.py` fails while they are stale). Tables that do not
match the grammar or the installed Lark are not used: the parser is then
built from the grammar in memory, slower but the same.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from functools import cache
from pathlib import Path

import lark
from lark import Lark

GRAMMAR = Path(__file__).with_name("muster.lark")
TABLES = Path(__file__).with_name("muster.lark.pickle")


class Continuation:
    """Join lines that are not finished: inside brackets, or after an operator or comma.

    `designate_combats(side,` on one line and `must_attack: …)` on the next are
    one call; `a <= 6 and` followed by `count(…) <= 1` is one condition.
    """

    always_accept = ("_NL",)
    OPEN = frozenset({"LPAR", "LSQB"})
    CLOSE = frozenset({"RPAR", "RSQB"})
    # Tokens after which a line cannot end. (A line beginning with `then`,
    # `else`, `and`, `or` or `where` continues the one before: the grammar's
    # _CONTINUE terminal swallows that newline.)
    CONTINUES = frozenset(
        {
            "COMMA",
            "EQUAL",
            "AND",
            "OR",
            "NOT",
            "ADD_OP",
            "MUL_OP",
            "COMP_OP",
            "WHERE",
            "THEN",
            "ELSE",
            "IN",
            "COLON",
        }
    )

    def process(self, stream):
        depth = 0
        last = None
        for tok in stream:
            if tok.type == "_NL" and (depth > 0 or last in self.CONTINUES):
                continue
            if tok.type in self.OPEN:
                depth += 1
            elif tok.type in self.CLOSE:
                depth = max(depth - 1, 0)
            last = tok.type
            yield tok


def tables_header(grammar: str) -> dict[str, str]:
    """What the tables were built from: the grammar's SHA-256 and Lark's version."""
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()
    return {"grammar_sha256": digest, "lark": lark.__version__}


def build(grammar: str) -> Lark:
    """The parser built from the grammar's text (about a second)."""
    return Lark(
        grammar,
        parser="lalr",
        strict=True,
        propagate_positions=True,
        maybe_placeholders=True,
        postlex=Continuation(),
    )


def load_tables(path: Path, grammar: str) -> Lark | None:
    """The parser from tables written by `write_tables`, or None when the file
    is missing, unreadable or was built from another grammar or Lark."""
    try:
        with path.open("rb") as f:
            if json.loads(f.readline()) != tables_header(grammar):
                return None
            return Lark.load(f)
    except (OSError, ValueError, EOFError, AttributeError, ImportError, pickle.UnpicklingError):
        return None


def write_tables(path: Path = TABLES) -> None:
    """Build the parser from the grammar and save its tables (a JSON header
    line, then Lark's own pickle of the parser)."""
    grammar = GRAMMAR.read_text(encoding="utf-8")
    with path.open("wb") as f:
        f.write(json.dumps(tables_header(grammar)).encode("utf-8") + b"\n")
        build(grammar).save(f)


@cache
def parser() -> Lark:
    """The parser of rule files: from the shipped tables when they are current."""
    grammar = GRAMMAR.read_text(encoding="utf-8")
    return load_tables(TABLES, grammar) or build(grammar)


if __name__ == "__main__":
    # Run as a script this module is `__main__`: build through its importable
    # name, so the pickle refers to `dsl.grammar.Continuation`.
    from dsl import grammar

    grammar.write_tables()
    print(f"wrote {grammar.TABLES}")
