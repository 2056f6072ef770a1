"""A hex restriction's condition asked in two parts, the unit's and the hex's
(compiler/restriction_parts.py, engine/restrictions.py `may_bind`): the split
keeps every condition and its order, and movement answers as it does with the
whole condition asked at every hex."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from compiler import ir
from compiler.build import import_shipped, load_game
from compiler.check import compile_ruleset
from compiler.restriction_parts import conjuncts, reads_a_hex, split
from engine import chance
from engine.game import Game
from engine.restrictions import may_bind, may_end, may_enter
from engine.save import from_json, to_json
from tests.conftest import LITMUS

RESTRICTIONS = """
restriction unit_then_hex "Pinned units keep away from withdrawn enemies" § series 13.1 {
    no_entry
    when unit.pinned and count(enemies_adjacent(hex, side(unit))) > 0 and unit.withdrawn
}

restriction hex_first "Nobody ends next to the enemy while pinned" § series 9.2 {
    no_end
    when count(enemies_adjacent(hex, side(unit))) > 0 and unit.pinned
}

restriction unit_only "Withdrawn units keep to the north" § series 12.4 {
    confined_to rear_guard_area
    when unit.withdrawn
}

restriction from_where "No step out of the north while pinned" § series 9.2 {
    no_entry
    when unit.pinned and from in rear_guard_area
}
"""


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("parts") / "parts.mst"
    path.write_text(f'import "{LITMUS}"\n{RESTRICTIONS}', encoding="utf-8")
    return path


def _restrictions(path: Path) -> dict[str, ir.Restriction]:
    rules, _ = compile_ruleset(path)
    return {r.name: r for r in rules.restrictions}


def _names(e: ir.TExpr | None) -> list[str]:
    """What each condition of an `and` chain is about, by the names it reads."""
    if e is None:
        return []
    return [type(part).__name__ + (":hex" if reads_a_hex(part) else "") for part in conjuncts(e)]


def test_the_unit_part_is_the_leading_conditions_that_read_no_hex(scratch):
    declared = _restrictions(scratch)
    first = declared["unit_then_hex"]
    unit_part, hex_part = split(first.condition)
    # `unit.withdrawn` comes after a condition on the hex: it stays in the hex's part,
    # so that the parts ask what the whole asks, in its order.
    assert _names(unit_part) == ["VarAt"]
    assert _names(hex_part) == ["Binary:hex", "VarAt"]
    assert conjuncts(first.condition) == [*conjuncts(unit_part), *conjuncts(hex_part)]


def test_a_condition_starting_on_the_hex_or_never_reading_one_stays_whole(scratch):
    declared = _restrictions(scratch)
    hex_first = declared["hex_first"].condition
    assert split(hex_first) == (None, hex_first)
    unit_only = declared["unit_only"].condition
    assert split(unit_only) == (unit_only, None)
    # The step's `from` is the hex's part as `hex` is.
    from_where = declared["from_where"].condition
    unit_part, hex_part = split(from_where)
    assert _names(unit_part) == ["VarAt"] and _names(hex_part) == ["Binary:hex"]


def _whole(game: Game) -> Game:
    """The same game with every restriction's condition asked whole at each hex."""
    rules = game.rules
    plain = tuple(replace(r, unit_part=None, hex_part=None) for r in rules.restrictions)
    return Game(replace(rules, restrictions=plain), game.params, game.rules_hash)


def test_the_parts_answer_as_the_whole_condition_at_every_hex(scratch):
    """On positions of the litmus battle with the restrictions above, one unit pinned
    and one withdrawn (each restriction's unit part holding for some units and
    not others), `may_enter` and `may_end` give for every unit and hex what the
    whole conditions give; `may_bind` keeps a restriction for a unit only
    while its unit's part holds."""
    game = load_game(scratch)
    whole = _whole(game)
    names = {u.name: i for i, u in enumerate(game.rules.units)}
    s = game.new_initial_state()
    saved = to_json(s)
    saved["vars"]["pinned"] = {name: name == "nj_1" for name in names}
    saved["vars"]["withdrawn"] = {name: name in ("nj_1", "dragoons") for name in names}
    split_state, whole_state = from_json(game, saved), from_json(whole, saved)
    by_name = {r.name: r for r in game.rules.restrictions}
    kept = {
        u: {test[3] for kind in may_bind(split_state, i) for test in kind} for u, i in names.items()
    }
    assert kept["nj_1"] >= {"unit_then_hex", "hex_first", "unit_only", "from_where"}
    assert "unit_then_hex" not in kept["nj_2"] and "unit_only" not in kept["nj_2"]
    assert "hex_first" in kept["nj_2"]  # (no unit's part: kept for every unit)
    assert by_name["unit_then_hex"].unit_part is not None
    refused = 0
    for u in names.values():
        for h in range(len(game.rules.board.labels)):
            for origin in (None, 0):
                assert may_enter(split_state, u, h, origin) == may_enter(whole_state, u, h, origin)
            assert may_end(split_state, u, h) == may_end(whole_state, u, h)
            refused += not may_enter(whole_state, u, h) or not may_end(whole_state, u, h)
    assert refused > 0  # (the restrictions bind somewhere: the comparison can fail)


@pytest.mark.parametrize(("battle", "scenario"), [("monmouth", "lees_advance"), ("newtown", "")])
def test_shipped_games_play_the_same_with_the_conditions_whole(battle, scenario):
    """Seeded random games of shipped battles, whose series and battle restrictions
    are split, play the same actions to the same end as with the whole conditions."""
    game = import_shipped(battle).load_game({"scenario": scenario} if scenario else {})
    whole = _whole(game)
    for seed in (1, 2):
        ends = []
        for g in (game, whole):
            s, rng, actions = g.new_initial_state(), random.Random(seed), []
            while not s.is_terminal() and len(actions) < 600:
                action = (
                    chance.sample(s, seed) if s.is_chance_node() else rng.choice(s.legal_actions())
                )
                s.apply_action(action)
                actions.append(action)
            ends.append((actions, to_json(s)["units"], s.winner))
        assert ends[0] == ends[1]
