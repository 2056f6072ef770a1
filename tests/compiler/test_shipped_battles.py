"""Which shipped rulesets are battles: read from the entry file's ruleset declaration."""

from __future__ import annotations

import pytest

from compiler.build import _is_library, shipped_battles
from compiler.load import SHIPPED
from dsl.diagnostics import CompileError
from tests.conftest import compiled


@pytest.mark.parametrize(
    ("header", "library"),
    [("library", True), ("library yes", True), ("library no", False), ("turns 1-3", False)],
)
def test_the_entry_says_whether_it_is_a_library(tmp_path, header, library):
    entry = tmp_path / "ruleset.mst"
    entry.write_text(f'ruleset alone "Alone" {{\n    {header}\n}}\n', encoding="utf-8")
    assert _is_library(entry) is library


@pytest.mark.parametrize(("header", "library"), [("library", True), ("turns 1-3", False)])
def test_an_entry_that_declares_no_ruleset_has_an_imported_files(tmp_path, header, library):
    (tmp_path / "battle.mst").write_text(
        f'ruleset imported "Imported" {{\n    {header}\n}}\n', encoding="utf-8"
    )
    entry = tmp_path / "ruleset.mst"
    entry.write_text('import "battle.mst"\n', encoding="utf-8")
    assert _is_library(entry) is library


def test_an_entry_that_does_not_parse_reports_as_a_build_does(tmp_path):
    entry = tmp_path / "ruleset.mst"
    entry.write_text('ruleset broken "Broken" {\n    library\n', encoding="utf-8")
    with pytest.raises(CompileError):
        _is_library(entry)


def test_the_shipped_battles_are_the_rulesets_that_compile_to_no_library():
    rulesets = sorted(entry.parent.name for entry in SHIPPED.glob("*/ruleset.mst"))
    expected = [name for name in rulesets if not compiled(name)[0].library]
    assert shipped_battles() == expected
    assert 0 < len(expected) < len(rulesets)  # the series is a library
