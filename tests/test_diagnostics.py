"""Diagnostics: every error reported at its line with its code, no traceback.

Each file in data/diagnostics/ is added to the training battle; its lines
marked `# E: code` must each get an error of that code, and no other line may.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from compiler.check import compile_ruleset
from compiler.cli import main
from dsl.diagnostics import CompileError
from tests.conftest import RULESETS

DATA = Path(__file__).parent / "data" / "diagnostics"
MARK = re.compile(r"#\s*E:\s*([a-z-]+)\s*$")


def with_extra(tmp_path, extra: Path) -> Path:
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    shutil.copy(extra, folder / "extra.mst")
    entry = folder / "ruleset.mst"
    entry.write_text(entry.read_text() + '\nimport "extra.mst"\n')
    return folder


@pytest.mark.parametrize("case", sorted(DATA.glob("*.mst")), ids=lambda p: p.stem)
def test_expected_errors(tmp_path, case):
    expected = set()
    for n, line in enumerate(case.read_text().splitlines(), start=1):
        m = MARK.search(line)
        if m:
            expected.add((n, m.group(1)))
    assert expected, "a case file marks at least one error"
    with pytest.raises(CompileError) as info:
        compile_ruleset(with_extra(tmp_path, case))
    got = {
        (d.span.line, d.code.code)
        for d in info.value.diagnostics
        if d.span.file.endswith("extra.mst")
    }
    elsewhere = [d for d in info.value.diagnostics if not d.span.file.endswith("extra.mst")]
    assert not elsewhere, [d.message for d in elsewhere]
    assert got == expected


def test_messages_have_position_caret_and_suggestion(tmp_path, capsys):
    folder = with_extra(tmp_path, DATA / "names.mst")
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"extra\.mst:2:\d+: error: unknown function 'distence'  \[unknown-name\]", err)
    assert "did you mean 'distance'?" in err
    assert "did you mean 'entered'?" in err
    assert "^" in err
    assert "Traceback" not in err
    assert re.search(r"Found \d+ errors\.", err)


def test_missing_ruleset_is_a_clean_error(capsys):
    assert main(["check", "no/such/place"]) == 2
    assert "no ruleset" in capsys.readouterr().err
