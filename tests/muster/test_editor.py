"""What the editor is told, without the protocol: names in scope, hover, definition."""

from __future__ import annotations

from muster.editor import Editor
from tests.compiler.test_diagnostics import with_extra
from tests.conftest import RULESETS


def line_of(text: str, needle: str) -> tuple[int, int]:
    for n, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return n, line.index(needle) + 1
    raise AssertionError(needle)


def test_parameters_come_first_and_hover_tells_kind_type_and_citation(tmp_path):
    extra = tmp_path / "x.mst"
    extra.write_text(
        'define near_mill(spot: hex) "Near the mill" § training 1.1 provisional "a guess" =\n'
        "    distance(spot, mill) <= 2\n",
        encoding="utf-8",
    )
    folder = with_extra(tmp_path, extra)
    path = folder / "extra.mst"
    editor = Editor()
    text = path.read_text()
    analysis = editor.update(path, text)
    assert analysis is not None and analysis.report.rules is not None
    line, col = line_of(text, "spot, mill")
    names = [s.name for s in editor.completion(path, line, col)]
    assert names[0] == "spot" and "mill" in names and "units_at" in names
    assert "**parameter** `spot`" in (editor.hover(path, line, col + 1) or "")
    line, col = line_of(text, "mill)")
    place = editor.hover(path, line, col + 1) or ""
    assert "**place** `mill`" in place and "type: `hex`" in place
    assert editor.definition(path, line, col + 1).file.endswith("battle.mst")
    # The define itself, from another file: its type, citation and provisional reason.
    battle = folder / "battle.mst"
    editor.update(battle, battle.read_text())
    symbol = editor.analysis(battle).symbols["near_mill"]
    assert (symbol.kind, symbol.type, symbol.citation) == ("define", "bool", "§ training 1.1")
    assert "provisional: a guess" in symbol.hover()


def test_an_unsaved_mistake_is_a_diagnostic_of_its_file(tmp_path):
    folder = with_extra(tmp_path, RULESETS / "training" / "battle.mst")
    path = folder / "extra.mst"
    editor = Editor()
    analysis = editor.update(path, "define broken = turn == nowhere\n")
    assert analysis is not None
    found = analysis.diagnostics_of(path)
    assert [d.code.code for d in found] == ["unknown-name"]
    assert analysis.diagnostics_of(folder / "battle.mst") == []
