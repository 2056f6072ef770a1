"""General constructs the Monmouth battle needed, each tried on a small scratch ruleset.

None of them names anything of a battle: a battle importing a library ruleset,
number arithmetic (victory points in halves), the names of declared groups read
as names (a table cell naming a brigade), units entering at the map's entry
hexes, `allowance (expr)` restrictions, one `order` per turn in a scenario, the
engine constants of rule, procedure and level names, and the run-time
vocabulary: `units_to_enter`, `entry_hexes`, `variable_entry`, `move_cost`,
`place`, `hold_back` and the reinforcement primitive's `entry_hexes` option.
"""

from __future__ import annotations

import shutil
import textwrap

import pytest

from compiler.backends.engine_codegen import generate
from compiler.build import load_game
from compiler.check import compile_ruleset
from dsl.diagnostics import CompileError
from engine import chance, effects, queries
from engine.state import NOT_ENTERED, ON_MAP
from tests.conftest import RULESETS

BATTLE = """
import series

ruleset scratch "Scratch battle" {{
    source none "a test of the rule language"
    die 0..9
    turns 1..3
}}

side crown "Crown" {{ friendly_edge east }}
side rebels "Rebels" {{ friendly_edge west }}

brigade first_brigade "First Brigade" {{ side rebels; letter F }}
brigade second_brigade "Second Brigade" {{ side rebels; letter S }}

unit line_foot "Line Foot" {{
    side rebels; brigade first_brigade; type infantry
    strength 3; morale 0; movement 4
    enters 2 at west_road
    back blank
}}

map "Scratch" {{
    columns 1..6
    rows 1..6
    shifted_columns odd
    default clear
    entry west_road "A" 0102 0103
}}

{extra}
"""


def scratch(tmp_path, extra: str = "", name: str = "scratch"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "ruleset.mst").write_text(
        BATTLE.format(extra=textwrap.dedent(extra)), encoding="utf-8"
    )
    return folder


def test_a_battle_builds_on_the_series_library(tmp_path):
    rules, _ = compile_ruleset(scratch(tmp_path))
    assert rules.name == "scratch" and not rules.library
    assert {"game", "close_combat", "retreat_unit"} <= {p.name for p in rules.procedures}
    # Its engine compiles: rule switches, procedures and victory levels are constants.
    files = generate(rules)
    compile(files["rules.py"], "rules.py", "exec")


def test_units_enter_at_the_maps_entry_hexes(tmp_path):
    rules, _ = compile_ruleset(scratch(tmp_path))
    foot = next(u for u in rules.units if u.name == "line_foot")
    assert foot.entry.turn == 2 and foot.entry.at == ("0102", "0103")


def test_numbers_add_up_in_halves(tmp_path):
    extra = """
    variable half_points "Halves" { per side; type number; initial 0 }
    define total(s: side) "Total" = vp(s) + half_points[s] + 1 / 2
    define ahead(s: side) "Ahead" = total(s) - total(enemy(s)) >= 1.5
    """
    rules, _ = compile_ruleset(scratch(tmp_path, extra))
    defines = {d.name: d for d in rules.defines}
    assert defines["total"].body.type == "number"
    assert queries.divide(1, 2) == queries.divide(2, 4) == 0.5


def test_a_table_cell_names_a_brigade(tmp_path):
    extra = """
    table picks "Picks" {
        roll die
        kind brigade
        ..3     first_brigade
        4..6    second_brigade
        7..     -
    }
    procedure pick(side: side) "Pick" {
        step roll: roll picks into picked
        step mark: for each u in units_of(side) where brigade == picked {
            lose_step(u)
        }
    }
    """
    rules, _ = compile_ruleset(scratch(tmp_path, extra))
    [table] = [t for t in rules.tables if t.name == "picks"]
    assert [row.cells[0][0] for row in table.rows] == ["first_brigade", "second_brigade", None]


def test_allowance_restrictions_take_an_expression(tmp_path):
    extra = """
    restriction slow "Slow" {
        allowance (unit.movement // 2)
        when unit.side == rebels
    }
    restriction short "Short" {
        max_hexes (1 + 1)
    }
    """
    rules, _ = compile_ruleset(scratch(tmp_path, extra))
    kinds = {r.name: (r.kind, r.value.type) for r in rules.restrictions if r.value is not None}
    assert kinds["slow"] == ("allowance", "int") and kinds["short"] == ("max_hexes", "int")


def test_a_scenario_orders_several_turns(tmp_path):
    extra = """
    scenario opening "Opening" {
        turns 1..3
        order 1 rebels
        order 2 rebels crown        § nowhere 1
        setup printed
    }
    """
    rules, _ = compile_ruleset(scratch(tmp_path, extra))
    [sc] = rules.scenarios
    assert sc.orders == {1: ("rebels",), 2: ("rebels", "crown")}
    assert [c.document for c in sc.provs["order 2"].cites] == ["nowhere"]


def test_two_orders_for_one_turn_are_an_error(tmp_path):
    extra = """
    scenario opening "Opening" {
        turns 1..3
        order 1 rebels crown
        order 1 crown rebels
        setup printed
    }
    """
    with pytest.raises(CompileError):
        compile_ruleset(scratch(tmp_path, extra))


# ---------------------------------------------------------------- the run-time vocabulary


@pytest.fixture
def night_march():
    return load_game(RULESETS / "training", {"scenario": "night_march"})


def test_units_waiting_to_enter_and_their_entry(night_march):
    game = night_march
    s = game.new_initial_state()
    red, guns = game.side_by_name["red"], game.unit_by_name["red_guns"]
    assert queries.units_to_enter(s, red) == (guns,)
    assert queries.units_to_enter(s, game.side_by_name["blue"]) == ()
    assert queries.entry_hexes(s, guns) == (game.hex_by_label["0301"],)
    assert queries.entry_hexes(s, game.unit_by_name["red_guard"]) == ()
    assert queries.variable_entry(s, guns) is False


def test_move_cost_reads_the_terrain_effects_chart(night_march):
    game = night_march
    s = game.new_initial_state()
    h = game.hex_by_label
    guard = game.unit_by_name["red_guard"]
    assert queries.move_cost(s, guard, h["0403"], h["0303"]) == 2  # into woods
    assert queries.move_cost(s, guard, h["0904"], h["0905"]) == 1  # clear
    assert queries.move_cost(s, guard, h["0906"], h["0907"]) == -1  # marsh: prohibited
    assert queries.move_cost(s, guard, h["0403"], h["0808"]) == -1  # not adjacent


def test_place_and_hold_back(night_march):
    game = night_march
    s = game.new_initial_state()
    guns, h = game.unit_by_name["red_guns"], game.hex_by_label["0301"]
    effects.place(s, guns, h)
    assert s.unit_status[guns] == ON_MAP and s.unit_hex[guns] == h
    effects.hold_back(s, guns)
    assert s.unit_status[guns] == NOT_ENTERED and s.unit_hex[guns] == -1
    assert queries.units_to_enter(s, game.side_by_name["red"]) == (guns,)


def test_the_rules_choose_where_a_reinforcement_enters(tmp_path):
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    battle = folder / "battle.mst"
    text = battle.read_text(encoding="utf-8")
    old = "step reinforcements: enter_reinforcements(side)"
    assert text.count(old) == 1
    new = "step reinforcements: enter_reinforcements(side, entry_hexes: hexes_around(0301))"
    battle.write_text(text.replace(old, new), encoding="utf-8")
    game = load_game(folder, {"scenario": "night_march"})
    s = game.new_initial_state()
    guns = game.unit_by_name["red_guns"]
    for _move in range(2000):
        top = s.stack[-1] if s.stack else None
        if top is not None and top.prim and top.proc == "enter_reinforcements":
            break
        if s.is_chance_node():
            s.apply_action(chance.sample(s, 7))
        else:
            s.apply_action(s.legal_actions()[0])
    else:
        pytest.fail("the reinforcements were never placed")
    board = game.rules.board
    around = {board.labels[n] for n in board.neighbors[game.hex_by_label["0301"]] if n >= 0}
    offered = {board.labels[a - game.actions.hex0] for a in s.legal_actions()}
    assert offered == around and "0301" not in offered
    s.apply_action(s.legal_actions()[0])
    assert s.unit_status[guns] == ON_MAP and board.labels[s.unit_hex[guns]] in around


def test_a_definition_cited_before_and_marked_after_its_value_keeps_both(tmp_path):
    extra = """
    define per_turn() "Points a turn" § nowhere 2 = 1 provisional "printed as xx"
    """
    rules, _ = compile_ruleset(scratch(tmp_path, extra))
    d = next(d for d in rules.defines if d.name == "per_turn")
    assert [c.section for c in d.prov.cites] == ["2"] and d.prov.provisional == "printed as xx"
