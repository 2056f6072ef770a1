"""General constructs added for the Newtown battle, tested on hand-made rulesets.

None of this is Newtown's: a battle whose header stands over an imported
library's, pieces (counters that are neither combat units nor leaders),
per-hex variables, retreats that pass through closed hexes (running a
procedure of the rules in each) or leave the map through exit hexes, lists
of hex labels, bag contents, full strength, results applied with their own
parameters, several fixed turn orders, and leaders' command conditions that
call definitions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import load_game
from compiler.check import compile_ruleset
from dsl.diagnostics import CompileError
from engine import queries
from engine.save import from_json, to_json
from tests.conftest import ROOT

CONSTRUCTS = ROOT / "tests" / "data" / "newtown" / "constructs.mst"


@pytest.fixture(scope="module")
def played():
    """The constructs game: it runs to its end with no decision to make."""
    game = load_game(CONSTRUCTS)
    s = game.new_initial_state()
    return game, s, s.take_messages()


def test_a_retreat_passes_through_a_closed_hex_and_stops_beyond(played):
    _game, s, messages = played
    data = to_json(s)
    # 0401 holds six friendly SPs: the runner passes through and stops at 0301.
    assert "Runner retreats 0501 → 0401." in messages
    assert data["units"]["runner"]["hex"] == "0301"
    assert data["units"]["friends"]["hex"] == "0401"


def test_the_rules_procedure_runs_in_each_closed_hex_crossed(played):
    _game, s, _messages = played
    data = to_json(s)
    crossed = {h for h, v in data["vars"]["crossed"].items() if v}
    assert crossed == {"0401", "0701"}
    assert data["vars"]["crossings"] == 2
    # In the enemy ZOC (0701) the procedure took the one-step unit's step:
    # the retreat ends there.
    assert data["units"]["doomed"]["status"] == "eliminated"


def test_a_retreat_leaves_the_map_through_an_exit_hex(played):
    _game, s, messages = played
    data = to_json(s)
    assert "Straggler retreats off the map." in messages
    assert data["units"]["straggler"]["status"] == "out_of_play"
    assert data["vars"]["left"] == 1  # the left_map event


def test_bag_contents_full_strength_and_result_parameters(played):
    _game, s, _messages = played
    data = to_json(s)
    assert data["vars"]["tokens"] == 2  # two red tokens in the cup
    assert data["vars"]["losses"] == 2  # the runner, reduced from 4 to 2
    assert data["vars"]["hurt"] == 1  # result_applied saw `affected` and `side`


def test_per_hex_variables_save_and_load(played):
    game, s, _messages = played
    data = to_json(s)
    assert set(data["vars"]["crossed"]) == set(game.rules.board.labels)
    again = from_json(game, data)
    assert to_json(again) == data
    assert again.vars["crossed"][game.hex_by_label["0701"]] is True


def test_a_piece_is_neither_a_combat_unit_nor_a_leader(played):
    game, s, _messages = played
    wagon = game.unit_by_name["wagon"]
    assert game.rules.units[wagon].kind == "piece"
    assert not queries.is_combat_unit(s, wagon)
    near = game.hex_by_label["0801"]
    west = game.side_by_name["west_army"]
    assert wagon not in queries.enemies_adjacent(s, near, west)
    assert wagon not in queries.leaders_with(s, queries.units_at(s, near))


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


LIBRARY = """
ruleset lib "A library" {
    library
    die 0..9
}

define double(n: int) "Twice" = n * 2
"""

BATTLE = """
import lib

ruleset battle "A battle" {
    source none "a test"
    die 0..9
    turns 1..2
}

side west_army "West" {
    friendly_edge west
}

side east_army "East" {
    friendly_edge east
}

unit_type foot "Foot" {
    symbol infantry
}

terrain clear "Clear" {
    color "#e8e2b0"
    move 1
}

map "Field" {
    columns 1..4
    rows 1..4
    shifted_columns even
    default clear
}

attribute rank "Rank" {
    type int
}

leader chief "Chief" {
    side west_army
    movement 4
    rank 1
    commands when obeys(unit)
}

unit band "Band" {
    side west_army
    type foot
    strength 2
    movement 4
    back blank
}

define obeys(u: unit) "Obeys the chief" = u.side == west_army and trusted

variable trusted "Trusted" {
    type bool
    initial yes
}

procedure game "The game" {
    step one: set turn = double(turn)
}

scenario two_orders "Two orders" {
    turns 1..2
    order 1 west_army east_army
    order 2 east_army west_army
    setup printed
}
"""


def test_a_battle_header_stands_over_an_imported_librarys(tmp_path):
    write(tmp_path / "lib", "ruleset.mst", LIBRARY)
    write(tmp_path / "battle", "ruleset.mst", BATTLE)
    rules = compile_ruleset(tmp_path / "battle")[0]
    assert (rules.name, rules.library, rules.turns) == ("battle", False, (1, 2))
    assert [d.name for d in rules.defines if d.name == "double"] == ["double"]
    # Leaders' conditions may call definitions reading variables declared later.
    chief = next(u for u in rules.units if u.name == "chief")
    assert chief.commands is not None and chief.commands.type == "bool"
    # Several turns of fixed order.
    [sc] = rules.scenarios
    assert sc.orders == {1: ("west_army", "east_army"), 2: ("east_army", "west_army")}
    assert {"order 1", "order 2"} <= set(sc.provs)


def test_a_battle_imported_by_a_variant_yields_its_header(tmp_path):
    # A variant imports a whole battle: the header of the file compiled wins.
    write(tmp_path / "lib", "ruleset.mst", LIBRARY.replace("    library\n", ""))
    write(tmp_path / "battle", "ruleset.mst", BATTLE)
    rules = compile_ruleset(tmp_path / "battle")[0]
    assert (rules.name, rules.library) == ("battle", False)


def test_two_headers_in_one_file_are_an_error(tmp_path):
    write(tmp_path / "lib", "ruleset.mst", LIBRARY)
    header = 'ruleset {} "A battle" {{\n    source none "a test"\n    turns 1..2\n}}\n'
    write(tmp_path / "battle", "ruleset.mst", header.format("one") + header.format("two"))
    with pytest.raises(CompileError) as err:
        compile_ruleset(tmp_path / "battle")
    assert "one ruleset declaration per file" in str(err.value)


def test_hexes_in_a_list_are_labels_on_the_map(tmp_path):
    text = CONSTRUCTS.read_text(encoding="utf-8").replace("exits: [0101]", "exits: [0101, 9901]")
    path = write(tmp_path, "constructs.mst", text)
    with pytest.raises(CompileError) as err:
        compile_ruleset(path)
    assert "hex 9901 is not on the map" in str(err.value)


def test_a_per_hex_variable_is_set_at_a_hex(tmp_path):
    text = CONSTRUCTS.read_text(encoding="utf-8").replace(
        "set crossed[hex] = yes", "set crossed = yes"
    )
    path = write(tmp_path, "constructs.mst", text)
    with pytest.raises(CompileError) as err:
        compile_ruleset(path)
    assert "one value per hex" in str(err.value)


def test_the_american_player_sees_how_many_indians_stand_in_a_hex_not_which():
    """Newtown 3.4 with `conceal`: hidden until the hex is examined."""
    from generated.newtown import load_game

    game = load_game({"scenario": "historical"})
    s = game.new_initial_state()
    rules = game.rules
    american, indian = rules.side_index("american"), rules.side_index("indian")
    on_map = [u for u in range(len(rules.units)) if s.unit_status[u] == 0]
    indians = [u for u in on_map if rules.units[u].side == indian]
    assert indians
    theirs, ours = s.observation(american), s.observation(indian)
    assert all(rules.units[u].name in ours["units"] for u in on_map)
    assert not any(rules.units[u].name in theirs["units"] for u in indians)
    counted = {}
    for u in indians:
        label = rules.board.labels[s.unit_hex[u]]
        counted[label] = counted.get(label, 0) + 1
    assert theirs["concealed"] == counted
    # an examined hex shows its units
    h = s.unit_hex[indians[0]]
    examined = list(s.vars["examined"])
    examined[h] = True
    s.vars["examined"] = tuple(examined)
    shown = s.observation(american)
    assert rules.units[indians[0]].name in shown["units"]
    assert rules.board.labels[h] not in shown.get("concealed", {})
