"""`impossible`: positions no play of the rules reaches, refused when loaded.

Series 9.2 ("A unit may never enter an enemy occupied hex") is declared so in
`rulesets/series/stacking.mst`; here the construct itself, on the training
battle with one declaration added."""

from __future__ import annotations

import re

import pytest

from compiler.build import load_game
from engine.invariants import impossible_positions
from engine.save import SaveError, from_json, to_json
from muster.cli import main
from tests.compiler.test_diagnostics import with_extra

GUARDED = (
    'impossible guard_meets_foot "The Red Guard in the Blue Foot\'s hex" § series 9.2 {\n'
    "    when red_guard.on_map and hex_of(red_guard) == hex_of(blue_foot)\n"
    "}\n"
)


def test_a_loaded_position_where_it_holds_is_refused_naming_it(tmp_path):
    extra = tmp_path / "extra.mst"
    extra.write_text(GUARDED, encoding="utf-8")
    game = load_game(with_extra(tmp_path, extra))
    s = game.new_initial_state()
    assert impossible_positions(s) == []
    data = {k: v for k, v in to_json(s).items() if k != "check"}
    assert from_json(game, data) == s
    data["units"]["red_guard"] = {"hex": data["units"]["blue_foot"]["hex"]}
    with pytest.raises(SaveError) as e:
        from_json(game, data)
    assert e.value.reason.endswith("The Red Guard in the Blue Foot's hex (§ series 9.2)")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("", r"impossible 'nothing' needs `when condition`"),
        ("    when turn\n", r"should be a condition \(true or false\)"),
    ],
)
def test_an_impossible_needs_a_true_or_false_condition(tmp_path, capsys, body, message):
    extra = tmp_path / "extra.mst"
    extra.write_text(f'impossible nothing "Nothing" {{\n{body}}}\n', encoding="utf-8")
    assert main(["check", str(with_extra(tmp_path, extra))]) == 1
    err = capsys.readouterr().err
    assert re.search(rf"extra\.mst:\d+:\d+: error: .*{message}", err), err
    assert "Traceback" not in err
