"""Small language items: `true`/`false` beside `yes`/`no`, range membership, and
the `highest`/`lowest` aggregates."""

from __future__ import annotations

import re

from compiler import ir
from compiler.backends.engine_codegen import generate
from compiler.build import load_game, load_generated
from compiler.check import compile_ruleset
from engine import interpreter
from engine.effects import advance_to, set_var
from engine.queries import in_range
from muster.cli import main
from tests.compiler.test_diagnostics import with_extra


def test_range_membership_and_true_false(tmp_path):
    extra = tmp_path / "values.mst"
    extra.write_text(
        "define early = turn in 1..2 and true\n"
        "define late = turn in 2.. and not false\n"
        "define never = turn in ..0 or no\n",
        encoding="utf-8",
    )
    rules, _ = compile_ruleset(with_extra(tmp_path, extra))
    body = {d.name: d.body for d in rules.defines}
    early = body["early"]
    assert isinstance(early, ir.Binary) and early.op == "and"
    assert early.left.right == ir.Const("range", value=(1, 2))  # type: ignore[attr-defined]
    assert early.right == ir.Const("bool", value=True)
    assert body["late"].left.right.value == (2, None)  # type: ignore[attr-defined]
    assert body["never"].left.right.value == (None, 0)  # type: ignore[attr-defined]


def test_open_ranges_at_run_time():
    assert in_range(2, (1, 2)) and not in_range(3, (1, 2))
    assert in_range(9, (2, None)) and not in_range(1, (2, None))
    assert in_range(-5, (None, 0)) and not in_range(1, (None, 0))


def test_highest_and_lowest_pick_a_member(tmp_path):
    """`highest(c, v)` / `lowest(c, v)`: the member with the greatest / least value,
    the first of equals, none when the collection is empty (series 14.1's leader
    in command is written with them)."""
    extra = tmp_path / "ranked.mst"
    extra.write_text(
        'define strongest(h: hex) "Strongest unit in the hex" =\n'
        "    highest(units_at(h) where combat_unit, strength)\n"
        'define weakest(h: hex) "Weakest unit in the hex" =\n'
        "    lowest(units_at(h) where combat_unit, strength)\n",
        encoding="utf-8",
    )
    rules, _ = compile_ruleset(with_extra(tmp_path, extra))
    package = load_generated(generate(rules), rules.name)
    game = package.load_game()
    s = game.new_initial_state()
    unit = game.unit_by_name
    h = s.unit_hex[unit["red_guard"]]
    # 4, 2 and 2 SPs in one hex: the Guard is the strongest; of the two 2s the
    # first declared (Red Light) is the weakest.
    for name in ("blue_rifles", "red_light"):
        advance_to(s, unit[name], h)
    assert unit["red_light"] < unit["blue_rifles"]
    assert package.rules.define__strongest(s, h) == unit["red_guard"]
    assert package.rules.define__weakest(s, h) == unit["red_light"]
    empty = next(x for x in range(len(game.rules.board.labels)) if x not in set(s.unit_hex))
    assert package.rules.define__strongest(s, empty) == -1


def test_highest_needs_the_value_to_rank_by(tmp_path, capsys):
    extra = tmp_path / "ranked.mst"
    extra.write_text('define strongest "Strongest unit" = highest(all_units())\n', encoding="utf-8")
    assert main(["check", str(with_extra(tmp_path, extra))]) == 1
    err = capsys.readouterr().err
    assert re.search(r"extra\.mst:1:\d+: error: highest\(collection, value\) needs the value", err)
    assert "Traceback" not in err


def test_a_wrong_side_in_order_is_named_with_the_sides(tmp_path, capsys):
    """`order TURN SIDE SIDE` with a side misspelt says which word is no side,
    suggests the nearest and lists the sides (it said only how to write it)."""
    extra = tmp_path / "extra.mst"
    extra.write_text("", encoding="utf-8")
    folder = with_extra(tmp_path, extra)
    entry = folder / "ruleset.mst"
    entry.write_text(entry.read_text().replace("order 2 blue red", "order 2 blue rde"))
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"ruleset\.mst:\d+:18: error: unknown side 'rde'", err), err
    assert "did you mean 'red'?" in err and "the sides: blue, red" in err


def test_an_announced_variable_reads_yes_no_and_names(tmp_path):
    """The log tells an announced change in the players' words: "no → yes", a
    unit's name, "none" — never Python's "False → True" or an index."""
    extra = tmp_path / "extra.mst"
    extra.write_text(
        'variable flag_raised "The flag raised" { type bool; initial no; announce }\n'
        'variable hero "The hero" { type unit; initial none; announce }\n',
        encoding="utf-8",
    )
    game = load_game(with_extra(tmp_path, extra))
    s = game.new_initial_state()
    s.take_messages()
    set_var(s, "flag_raised", True)
    set_var(s, "hero", game.unit_by_name["red_guard"])
    set_var(s, "hero", -1)
    assert s.take_messages() == [
        "The flag raised: no → yes.",
        "The hero: none → Red Guard.",
        "The hero: Red Guard → none.",
    ]


def test_order_takes_a_range_of_turns(tmp_path):
    """`order 2..3 blue red` fixes both turns (it took one line per turn); a
    range running backwards is refused with how to write it."""
    extra = tmp_path / "extra.mst"
    extra.write_text("", encoding="utf-8")
    folder = with_extra(tmp_path, extra)
    entry = folder / "ruleset.mst"
    text = entry.read_text()
    entry.write_text(text.replace("order 2 blue red", "order 2..3 blue red"))
    rules, _ = compile_ruleset(folder)
    night = next(sc for sc in rules.scenarios if sc.name == "night_march")
    assert night.orders == {2: ("blue", "red"), 3: ("blue", "red")}
    entry.write_text(text.replace("order 2 blue red", "order 3..2 blue red"))
    assert main(["check", str(folder)]) == 1


def test_say_shows_values_in_the_players_words(tmp_path):
    """`say("{unit} enters {hex}")`: each value as a player reads it; `{{`
    is a brace; a placeholder that is no name is refused at its line."""
    extra = tmp_path / "extra.mst"
    extra.write_text(
        'trigger told "Told" {\n'
        "    on entered\n"
        '    do { say("{unit} ({unit.strength} SP) enters {hex} {{sic}}") }\n'
        "}\n",
        encoding="utf-8",
    )
    game = load_game(with_extra(tmp_path, extra))
    s = game.new_initial_state()
    s.take_messages()
    guard = game.unit_by_name["red_guard"]
    advance_to(s, guard, game.hex_by_label["0403"])
    interpreter.advance(s)
    assert "Red Guard (4 SP) enters 0403 {sic}" in s.take_messages()


def test_say_refuses_a_placeholder_that_is_no_name(tmp_path, capsys):
    extra = tmp_path / "extra.mst"
    extra.write_text(
        'trigger told "Told" {\n    on entered\n    do { say("{unit + 1} moves") }\n}\n',
        encoding="utf-8",
    )
    assert main(["check", str(with_extra(tmp_path, extra))]) == 1
    err = capsys.readouterr().err
    assert re.search(r"extra\.mst:3:\d+: error: '\{unit \+ 1\}' is no value to show", err), err


def test_a_die_roll_keeps_its_natural_face(tmp_path, capsys):
    """`roll die with DRMS into modified, natural`: the face before the
    modifiers, for a rule "on a natural 0" (the second name was ignored)."""
    extra = tmp_path / "extra.mst"
    extra.write_text(
        'modifiers steady_drm "Steadiness" {\n    +2 "Steady" when yes\n}\n'
        'procedure steadiness "Steadiness check" {\n'
        "    step roll: roll die with steady_drm into modified, natural\n"
        '    step tell: say("natural {natural}, modified {modified}")\n'
        "}\n",
        encoding="utf-8",
    )
    folder = with_extra(tmp_path, extra)
    (folder / "tests" / "natural.mst").write_text(
        'test natural "The natural face and the modified roll" {\n'
        "    during steadiness roll\n"
        "    dice 3\n"
        '    expect message "natural 3, modified 5"\n'
        "}\n",
        encoding="utf-8",
    )
    assert main(["test", str(folder)]) == 0, capsys.readouterr().out


def test_a_table_roll_keeps_its_natural_face(tmp_path, capsys):
    """`roll TABLE with DRMS into result, modified, natural`: the cell, the
    modified roll and the face, so "on a natural 0" needs no copy of the list."""
    extra = tmp_path / "extra.mst"
    extra.write_text(
        'table nerve_table "Nerve" {\n    roll die\n    kind name\n'
        "    ..4  shaken\n    5..  steady\n}\n"
        'modifiers steady_drm "Steadiness" {\n    +2 "Steady" when yes\n}\n'
        'procedure nerve "Nerve check" {\n'
        "    step roll: roll nerve_table with steady_drm into result, modified, natural\n"
        '    step tell: say("{result}: natural {natural}, modified {modified}")\n'
        "}\n",
        encoding="utf-8",
    )
    folder = with_extra(tmp_path, extra)
    (folder / "tests" / "natural.mst").write_text(
        'test natural "The cell, the modified roll and the natural face" {\n'
        "    during nerve roll\n"
        "    dice 3\n"
        '    expect message "steady: natural 3, modified 5"\n'
        "}\n",
        encoding="utf-8",
    )
    assert main(["test", str(folder)]) == 0, capsys.readouterr().out


def test_a_die_roll_takes_no_third_name(tmp_path, capsys):
    extra = tmp_path / "extra.mst"
    extra.write_text(
        'procedure steadiness "Steadiness check" {\n'
        "    step roll: roll die into modified, natural, other\n"
        "}\n",
        encoding="utf-8",
    )
    assert main(["check", str(with_extra(tmp_path, extra))]) == 1
    assert "write `into modified, natural`" in capsys.readouterr().err


def test_can_reach_asks_the_engines_own_movement(tmp_path, capsys):
    """`can_reach(u, h)` / `can_reach_any(u, hexes)`: the hexes the unit can get to
    this movement by legal steps; a `no_end` that asks it ("must end there if it
    can reach it") is left out of its own search instead of recursing."""
    extra = tmp_path / "extra.mst"
    extra.write_text(
        'define reaches(u: unit, h: hex) "Can get there this movement" = can_reach(u, h)\n'
        'define reaches_one(u: unit) "Can get to either hex" = can_reach_any(u, [0402, 1008])\n'
        'restriction make_for_0402 "The Guard ends at 0402 if it can reach it" {\n'
        "    no_end\n"
        "    when unit == red_guard and hex != 0402 and can_reach(unit, 0402)\n"
        "}\n",
        encoding="utf-8",
    )
    folder = with_extra(tmp_path, extra)
    (folder / "tests" / "reach.mst").write_text(
        'test reach "What the Red Guard can reach" {\n'
        "    scenario skirmish\n"
        "    at 0404 red_guard\n"
        "    during movement_phase move side red\n"
        "    expect reaches(red_guard, 0402) yes\n"
        "    expect reaches(red_guard, 0404) yes\n"
        "    expect reaches(red_guard, 1008) no\n"
        "    expect reaches_one(red_guard) yes\n"
        '    expect legal "move Red Guard 0404 → 0504"\n'
        "}\n",
        encoding="utf-8",
    )
    assert main(["test", str(folder)]) == 0, capsys.readouterr().out
