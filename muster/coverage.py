"""`muster coverage`: every numbered section of a rulebook against the rules that cite it.

The rulebook is plain text, the designer's own. Its numbered sections are
the lines that start with a section number — `12.23 COMBAT SEQUENCE`,
`6.1.7 "Full Measure"`, `2. Components` — or a part's Roman numeral
(`II. Victory Conditions`). A text may hold several documents one after the
other (a battle's rulebook may hold the series rules, then the battle's): a
new document begins where the numbering starts over or a part I begins, and
`--documents` names them in order. A section counts as cited when a declaration cites it
or one of its subsections.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import BadInput
from muster.user_files import user_json, user_text

NUMBERED = re.compile(r"^(\d+(?:\.\d+)+|\d+\.)\s+\S")
ROMAN = re.compile(r"^((?:X{0,3})(?:IX|IV|V?I{0,3}))\.\s+\S")


@dataclass(frozen=True, slots=True)
class Section:
    number: str  # "12.23", "2", "II"
    title: str
    line: int


def _key(number: str) -> tuple[int, ...]:
    return tuple(int(p) for p in number.split("."))


def sections(text: str) -> list[list[Section]]:
    """The numbered sections of each document in the text, in order."""
    documents: list[list[Section]] = [[]]
    last_top = 0
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        m = NUMBERED.match(line)
        if m:
            number = m.group(1).rstrip(".")
            top = _key(number)[0]
            if top < last_top:  # the numbering starts over: a new document
                documents.append([])
            last_top = top
            documents[-1].append(Section(number, line[len(m.group(1)) :].strip(), n))
            continue
        m = ROMAN.match(line)
        if m and m.group(1):
            if m.group(1) == "I" and documents[-1]:  # a first part: a new document
                documents.append([])
                last_top = 0
            documents[-1].append(Section(m.group(1), line[len(m.group(1)) + 1 :].strip(), n))
    return [d for d in documents if d]


def covered(section: str, cited: set[str]) -> str | None:
    """The cited section that covers this one (itself or a subsection), or None."""
    if section in cited:
        return section
    for c in sorted(cited):
        if c.startswith(section + "."):
            return c
    return None


@dataclass(frozen=True, slots=True)
class Coverage:
    document: str
    rows: list[tuple[Section, str | None, int]]  # section, covering citation, times cited

    @property
    def uncited(self) -> list[Section]:
        return [s for s, via, _n in self.rows if via is None]


def coverage(text: str, names: list[str], cites: dict[str, dict[str, list]]) -> list[Coverage]:
    """Coverage of each named document of the text by the citations."""
    docs = sections(text)
    out = []
    for name, secs in zip(names, docs, strict=False):
        cited = cites.get(name, {})
        rows = []
        for sec in secs:
            via = covered(sec.number, set(cited))
            rows.append((sec, via, len(cited.get(sec.number, []))))
        out.append(Coverage(name, rows))
    return out


# A citation as rule files write it, found in a test's docstring or comment:
# `§ series 12.23, 12.15` names those sections as tested on a hand-made position.
_SECTION = r"[0-9IVX]+(?:\.[0-9]+)*"
TEST_CITATION = re.compile(rf"§\s*([a-z_][a-z0-9_]*)\s+({_SECTION}(?:\s*,\s*{_SECTION})*)")


def cited_in_tests(texts: list[str]) -> dict[str, Counter[str]]:
    """document -> section -> how many test files' citations name it."""
    out: dict[str, Counter[str]] = {}
    for text in texts:
        for m in TEST_CITATION.finditer(text):
            for section in re.split(r"\s*,\s*", m.group(2)):
                out.setdefault(m.group(1), Counter())[section] += 1
    return out


def under(section: str, cited: str) -> bool:
    """Whether a citation of `cited` speaks for `section` (itself or a subsection)."""
    return cited == section or cited.startswith(section + ".")


def executed(
    document: str, section: str, fired: list[tuple[tuple[tuple[str, str], ...], int]]
) -> tuple[int, int, int]:
    """(declarations citing the section or a subsection, how many fired, total firings)
    from each firing declaration's cites as (document, section) pairs and its count."""
    decls = hits = total = 0
    for cites, n in fired:
        if any(doc == document and under(section, sec) for doc, sec in cites):
            decls += 1
            hits += n > 0
            total += n
    return decls, hits, total


def cmd_coverage(args: argparse.Namespace) -> int:
    from compiler.check import compile_loaded
    from compiler.load import load, resolve_ruleset
    from compiler.provenance import citations
    from dsl.diagnostics import Reporter
    from dsl.source import SourceFiles
    from muster.language_tests import test_files

    reporter = Reporter(SourceFiles())
    loaded = load(resolve_ruleset(args.ruleset), reporter)
    reporter.check()
    rules = compile_loaded(loaded, reporter)
    text = user_text(args.rulebook, "rulebook")
    cites = citations(loaded.files)
    names = (
        args.documents.split(",") if args.documents else _document_names(text, rules.name, cites)
    )
    if names is None:
        print(
            f"muster: {args.rulebook} holds {len(sections(text))} documents: "
            "name them in order with --documents a,b",
            file=sys.stderr,
        )
        return 2
    fired = _fired_declarations(rules, args.soak) if args.soak else None
    # The Python tests of the folder, and the battle's tests in the rule language.
    tests = sorted(Path(args.tests).glob("**/*.py")) if args.tests else []
    tests += test_files(resolve_ruleset(args.ruleset))
    tested = cited_in_tests([p.read_text(encoding="utf-8") for p in tests])
    uncited = 0
    for cov in coverage(text, names, cites):
        print(f"§ {cov.document}: {len(cov.rows)} numbered sections")
        silent = untested = 0
        for sec, via, times in cov.rows:
            if via is None:
                mark = "UNCITED"
            elif via == sec.number:
                mark = f"cited {times}×"
            else:
                mark = f"via {via}"
            ran = ""
            if fired is not None:
                decls, hits, total = executed(cov.document, sec.number, fired)
                ran = f"{hits}/{decls} fired ({total})" if decls else "no rule runs it"
                silent += decls > 0 and hits == 0
            names_it = sum(
                n for s, n in tested.get(cov.document, {}).items() if under(sec.number, s)
            )
            untested += names_it == 0
            columns = f"{mark:<12}"
            if fired is not None:
                columns += f" {ran:<22}"
            if args.tests:
                columns += f" {'tested ' + str(names_it) if names_it else 'untested':<10}"
            if args.all or via is None:
                print(f"  {sec.number:<8} {columns} {sec.title[:60]}")
        uncited += len(cov.uncited)
        print(f"  {len(cov.uncited)} uncited")
        if fired is not None:
            print(f"  {silent} cited only by declarations that never fired in the soak")
        if args.tests:
            print(f"  {untested} named by no test")
    return 1 if uncited and args.strict else 0


def _fired_declarations(rules: Any, path: str) -> list[tuple[tuple[tuple[str, str], ...], int]]:
    """Each firing declaration of the rules as (its cites, times it fired in the soak)."""
    from muster.soak import declarations

    data = user_json(path, "soak's firing counts")
    if not isinstance(data, dict) or not isinstance(counts := data.get("counts"), dict):
        raise BadInput(f"{path}: not the firing counts of a soak of {rules.name}")
    if data.get("format") != "muster.soak/1" or data.get("battle") != rules.name:
        raise BadInput(f"{path}: not the firing counts of a soak of {rules.name}")
    return [
        (tuple((c.document, c.section) for c in d.cites), counts.get(f"{d.kind}:{d.name}", 0))
        for d in declarations(rules, engine_rules(rules))
    ]


def engine_rules(rules: Any) -> Any:
    """The battle's compiled engine rules: what a soak counts branches of."""
    from compiler.backends.engine_codegen import generate
    from compiler.build import load_generated

    return load_generated(generate(rules), rules.name).load_game().rules


def _document_names(text: str, battle: str, cites: dict) -> list[str] | None:
    """The documents a rulebook text holds, when the citations tell: a battle's
    rulebook that starts with the series rules is ["series", battle]; a ruleset
    citing only itself (the series) is the text's first document."""

    count = len(sections(text))
    if count <= 1 or set(cites) <= {battle}:
        return [battle]  # the first document is the ruleset's own
    others = sorted(set(cites) - {battle})
    return [*others, battle] if len(others) == count - 1 else None
