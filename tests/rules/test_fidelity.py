"""docs/fidelity.md holds one row per numbered section `muster coverage` knows,
each with a verdict; and `muster coverage` shows per section what fired in a
soak and which tests name it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from muster.cli import main
from muster.coverage import cited_in_tests, sections
from tests.conftest import ROOT, rulebook

FIDELITY = ROOT / "docs" / "fidelity.md"
VERDICTS = {"faithful", "partial", "provisional", "not modelled"}
HEADINGS = {
    "## Series rules": "series",
    "## Monmouth Courthouse exclusive rules": "monmouth",
    "## Newtown exclusive rules": "newtown",
}


def rows() -> dict[str, list[list[str]]]:
    """document -> its table's rows, each as cells."""
    out: dict[str, list[list[str]]] = {}
    doc = None
    for line in FIDELITY.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            doc = next((d for h, d in HEADINGS.items() if line.startswith(h)), None)
            continue
        if doc and line.startswith("| ") and not line.startswith("| § ") and "---" not in line:
            out.setdefault(doc, []).append([c.strip() for c in line.strip("|").split(" | ")])
    return out


def texts() -> dict[str, list]:
    monmouth, newtown = rulebook("monmouth.txt"), rulebook("newtown.txt")
    if monmouth is None or newtown is None:
        pytest.skip("the rulebooks are not beside this checkout")
    series, battle = sections(monmouth.read_text(encoding="utf-8"))
    [newtown_secs] = sections(newtown.read_text(encoding="utf-8"))
    return {"series": series, "monmouth": battle, "newtown": newtown_secs}


def test_every_numbered_section_has_a_row_in_order():
    table = rows()
    for doc, secs in texts().items():
        assert [r[0] for r in table[doc]] == [s.number for s in secs], doc


def test_every_row_has_a_verdict_and_says_why_when_short_of_faithful():
    for doc, doc_rows in rows().items():
        for cells in doc_rows:
            number, _title, verdict, basis, _files, note = cells
            assert verdict in VERDICTS, (doc, number, verdict)
            assert basis in {"read", "test", "docs"}, (doc, number, basis)
            if verdict != "faithful":
                assert len(note) > 20, (doc, number, "no reason given")
            # A finding still being fixed is not faithful yet.
            if "being fixed" in note:
                assert verdict != "faithful", (doc, number)


def test_the_tally_counts_the_rows():
    """The page's Tally is the count of each verdict in each text's rows (it had
    drifted once, a row moved to faithful and the tally left as it was), and of
    each basis."""
    text = FIDELITY.read_text(encoding="utf-8")
    tally = {
        m.group(1): [int(n) for n in m.groups()[1:]]
        for m in re.finditer(r"^\| (\w+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", text, re.M)
    }
    order = ["faithful", "partial", "provisional", "not modelled"]
    counted = {
        doc: [sum(1 for r in doc_rows if r[2] == verdict) for verdict in order]
        for doc, doc_rows in rows().items()
    }
    assert tally == counted
    # The second table counts each text's rows by basis.
    by_basis = {
        m.group(1): [int(n) for n in m.groups()[1:]]
        for m in re.finditer(r"^\| (\w+) \| (\d+) \| (\d+) \| (\d+) \|$", text, re.M)
    }
    bases = ["test", "docs", "read"]
    assert by_basis == {
        doc: [sum(1 for r in doc_rows if r[3] == basis) for basis in bases]
        for doc, doc_rows in rows().items()
    }


def test_rows_based_on_a_test_have_a_test_naming_them():
    """Where the basis is a test, some test names the section (a `§ doc N`
    citation, in Python or in the rule language, or the section number in a
    Python test of that battle)."""
    tests = sorted((ROOT / "tests").rglob("test_*.py"))
    # The battles' tests, and the series' own on the examples battle.
    language_tests = sorted((ROOT / "rulesets").glob("*/tests/*.mst")) + sorted(
        (ROOT / "tests" / "data" / "examples" / "tests").glob("*.mst")
    )
    cited = cited_in_tests([p.read_text(encoding="utf-8") for p in tests + language_tests])
    numbers = {
        "monmouth": " ".join(p.read_text(encoding="utf-8") for p in tests if "monmouth" in p.name),
        "newtown": " ".join(p.read_text(encoding="utf-8") for p in tests if "newtown" in p.name),
        "series": " ".join(p.read_text(encoding="utf-8") for p in tests),
    }
    for doc, doc_rows in rows().items():
        for number, *_rest in (r for r in doc_rows if r[3] == "test"):
            named = any(s == number or s.startswith(number + ".") for s in cited.get(doc, {}))
            mentioned = re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", numbers[doc])
            assert named or mentioned, (doc, number)


@pytest.mark.slow
def test_coverage_shows_what_fired_and_what_is_tested(tmp_path, capsys):
    book = rulebook("monmouth.txt")
    if book is None:
        pytest.skip("the rulebooks are not beside this checkout")
    counts = tmp_path / "counts.json"
    soak = ["soak", "monmouth", "--games", "1", "--scenario", "holding_action", "--quiet"]
    report = str(tmp_path / "r.md")
    assert main([*soak, "--counts", str(counts), "--report", report]) in (0, 1)  # 1: problems
    capsys.readouterr()
    coverage = ["coverage", "monmouth", "--rulebook", str(book), "--soak", str(counts)]
    assert main([*coverage, "--all"]) == 0
    out = capsys.readouterr().out
    rows = re.finditer(r"^  (\S+)\s+(?:cited \d+×|via |UNCITED).*$", out, re.M)
    line = {m.group(1): m.group(0) for m in rows}
    assert re.search(r"\d+/\d+ fired \(\d+\)", line["5"])  # the sequence of play ran
    assert "tested" in line["10.4"].split("fired")[-1]  # tests/rules/test_rulebook_examples.py
    assert "untested" in line["2.1"]
    assert "no rule runs it" in line["2.1"]  # cited only by data


@pytest.mark.slow
def test_coverage_refuses_the_counts_of_another_battle(tmp_path, capsys):
    book = rulebook("monmouth.txt")
    if book is None:
        pytest.skip("the rulebooks are not beside this checkout")
    counts = tmp_path / "counts.json"
    counts.write_text('{"format": "muster.soak/1", "battle": "training", "counts": {}}')
    assert main(["coverage", "monmouth", "--rulebook", str(book), "--soak", str(counts)]) == 1
    assert "not the firing counts of a soak of monmouth" in capsys.readouterr().err


def test_citations_in_tests_read_the_rule_files_syntax():
    found = cited_in_tests(['"""§ series 12.23, 12.15 and § monmouth 4.7."""', "# § series 12.23"])
    assert found["series"] == {"12.23": 2, "12.15": 1}
    assert found["monmouth"] == {"4.7": 1}


def test_the_fidelity_page_is_in_the_docs():
    assert FIDELITY.is_file()
    assert Path(ROOT / "docs" / "soak").is_dir()
