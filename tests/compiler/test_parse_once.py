"""A file's text is parsed once a process: checks again read the tree kept."""

from __future__ import annotations

import shutil
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import pytest

from compiler import load as loading
from compiler.check import compile_ruleset
from dsl.diagnostics import CompileError, Reporter, render_all
from dsl.source import SourceFiles
from tests.conftest import RULESETS


def test_the_same_text_under_the_same_name_is_the_same_tree():
    text = 'ruleset alone "Alone" {\n    library\n}\n'
    first = loading._parse_once(text, "alone.mst", Reporter(SourceFiles()))
    reporter = Reporter(SourceFiles())
    again = loading._parse_once(text, "alone.mst", reporter)
    assert first is not None and again is first
    assert reporter.sources.line("alone.mst", 2) == "    library"  # for later passes' carets
    assert loading._parse_once(text, "other.mst", Reporter(SourceFiles())) is not first
    edited = loading._parse_once(text.replace("Alone", "Alone!"), "alone.mst", reporter)
    assert edited is not None and edited is not first


def test_a_syntax_error_is_reported_at_every_check():
    text = 'ruleset broken "Broken" {\n    library\n'
    for _ in range(2):
        reporter = Reporter(SourceFiles())
        assert loading._parse_once(text, "broken.mst", reporter) is None
        assert reporter.has_errors()


def test_a_second_check_reports_an_error_as_the_first_did(tmp_path):
    battle = tmp_path / "training"
    shutil.copytree(RULESETS / "training", battle)
    victory = battle / "battle.mst"
    victory.write_text(victory.read_text().replace("winner red", "winner nobody_at_all", 1))
    texts = []
    for _ in range(2):
        with pytest.raises(CompileError) as info:
            compile_ruleset(battle)
        texts.append(render_all(info.value.diagnostics, info.value.sources))
    assert "nobody_at_all" in texts[0] and "^" in texts[0]  # the line, and a caret under it
    assert texts[1] == texts[0]


def test_checks_on_several_threads_share_the_trees_kept(monkeypatch):
    """The language server checks on a thread of its own: trees are looked up, added
    and dropped (past the number kept) by several threads at once without a fault."""
    monkeypatch.setattr(loading, "_PARSED", OrderedDict())  # (the battles' trees stay kept)
    texts = [f'ruleset r{i} "R{i}" {{\n    library\n}}\n' for i in range(loading._PARSED_KEPT + 40)]

    def check_all(offset: int) -> list[bool]:
        found = []
        for i in range(len(texts)):
            text = texts[(i + offset) % len(texts)]
            found.append(loading._parse_once(text, "r.mst", Reporter(SourceFiles())) is not None)
        return found

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(check_all, range(0, 200, 50)))
    assert all(all(r) for r in results)
    assert len(loading._PARSED) <= loading._PARSED_KEPT
