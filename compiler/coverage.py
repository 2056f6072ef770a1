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

import re
from collections import Counter
from dataclasses import dataclass

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
