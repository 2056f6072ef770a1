"""A rule that fails at play time names its rule file, line and text."""

from __future__ import annotations

import traceback

import pytest

from muster.cli import main
from tests.rules.test_rule_edits import edited

STACKING = "stacking: stack_ok(units)"
BROKEN = "stacking: count(units) / (count(units) - count(units)) > 0"


def test_an_error_inside_a_rule_names_the_rule_file_and_line(tmp_path):
    game = edited(tmp_path, STACKING, BROKEN)
    rule_file = tmp_path / "training" / "battle.mst"
    line = next(
        i
        for i, text in enumerate(rule_file.read_text(encoding="utf-8").splitlines(), 1)
        if BROKEN in text
    )
    with pytest.raises(ZeroDivisionError) as info:
        game.new_initial_state().legal_actions()  # the first movement decision
    text = "".join(traceback.format_exception(info.value))
    assert f"{rule_file}:{line}" in text
    assert BROKEN in text  # the rule's own words, read from the rule file
    assert "primitive move_units called from procedure movement_phase" in text
    # The generated code compiled in memory shows its own lines too (linecache).
    assert "q.divide(len(b['units'])" in text


def test_dump_code_shows_instructions_with_their_rule_lines(capsys):
    assert main(["dump", "training", "--code", "movement_phase"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "phase movement_phase 'Movement Phase' (side)"
    call = next(line for line in lines if "prim(primitive='move_units'" in line)
    assert call.endswith("# rulesets/training/battle.mst:352:16")  # where the call starts
    assert "| step move: move_units(side, stacking: stack_ok(units)" in out
    assert main(["dump", "training", "--code", "no_such_procedure"]) == 2
    assert "movement_phase" in capsys.readouterr().err  # the known procedures, listed


def test_dump_code_shows_labels_and_the_label_each_jump_names(capsys):
    assert main(["dump", "training", "--code", "close_combat"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  step roll:" in lines
    top = lines.index("   for_u_1_top:")
    assert "jump_if_empty(rest='_for_u', end=10 (for_u_1_end))" in lines[top + 1]
    back = next(line for line in lines if "jump(target=" in line and "for_u_1_top" in line)
    assert back.split("jump(target=")[1].startswith(f"{lines[top + 1].split()[0]} (for_u_1_top)")
