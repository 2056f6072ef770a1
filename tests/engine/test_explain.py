"""engine/explain.py: why an action is refused, in the rules' words with their citations,
agreeing with `legal_actions()` everywhere; and the odds and DRMs of a roll before it is made."""

from __future__ import annotations

import random
import re

import pytest

from engine import bots, chance, explain
from engine.instructions import Choose
from engine.play import Log, ReplayError, certify, play_game
from engine.primitives.movement import Refused
from engine.queries import units_in
from engine.save import from_json
from tests.conftest import RULESETS, hand_written_combat


@pytest.fixture(scope="module")
def holding_action(monmouth_package):
    return monmouth_package.load_game({"scenario": "holding_action"})


def american_movement(game):
    """The first American Movement Phase of the scenario, everyone passing."""
    s = game.new_initial_state()
    american = game.side_by_name["american"]
    while True:
        if s.is_chance_node():
            s.apply_action(chance.sample(s, 1))
            continue
        frame = explain._moving(s)
        if frame is not None and frame.b["side"] == american:
            return s
        s.apply_action(s.legal_actions()[0])


@pytest.mark.slow
def test_explanations_agree_with_the_legal_actions_everywhere(holding_action):
    """Over a seeded game: a step is explained away exactly when it is not legal, and
    every refusal has words; at any node every action outside the legal set gets a reason."""
    game = holding_action
    s, rng = game.new_initial_state(), random.Random(5)
    refused = 0
    for _ in range(160):
        if s.is_terminal():
            break
        if s.is_chance_node():
            s.apply_action(chance.sample(s, 5))
            continue
        legal = set(s.legal_actions())
        if explain._moving(s) is not None:
            for u, spec in enumerate(game.rules.units):
                if spec.side != s.current_player() or s.unit_hex[u] < 0:
                    continue
                for d, h in enumerate(game.rules.board.neighbors[s.unit_hex[u]]):
                    if h < 0:
                        continue
                    reason = explain.why_not_move(s, u, h)
                    assert (reason is None) == (game.actions.step(u, d) in legal)
                    if reason is not None:
                        refused += 1
                        assert reason.text
        for a in rng.sample(range(game.num_distinct_actions()), 30):
            reason = explain.why_not(s, a)
            assert (reason is None) == (a in legal), (a, reason)
        moving = [a for a in legal if a != 0]
        s.apply_action(rng.choice(moving) if moving and rng.random() < 0.9 else min(legal))
    assert refused > 100


def test_every_refusal_of_the_step_test_has_words():
    """`why_not_move` puts each refusal of the movement primitive's step test
    (`MoveUnits._refusal`, which the legal steps are worked out with) in words."""
    assert set(explain._REFUSALS) == set(Refused)


def test_a_restriction_refuses_with_its_title_and_citation(holding_action):
    """Monmouth 6.292: American units on the hedgerow line may not move until it is attacked."""
    s = american_movement(holding_action)
    u = holding_action.unit_by_name["whites_light_horse"]
    h = holding_action.rules.board.neighbors[s.unit_hex[u]][0]
    reason = explain.why_not_move(s, u, h)
    assert reason.text == "White's Light Horse may not move."
    assert reason.title == "The hedgerow holds until attacked"
    assert reason.cite == "§ monmouth 6.292"
    text = (RULESETS / "monmouth" / "scenarios.mst").read_text()
    assert 'restriction hold_the_hedgerow "The hedgerow holds until attacked" § monmouth 6.292' in (
        text
    )


def test_an_enemy_hex_is_refused_by_the_movement_rules(holding_action):
    s = american_movement(holding_action)
    u = holding_action.unit_by_name["stewart"]
    enemy = next(
        h
        for h in holding_action.rules.board.neighbors[s.unit_hex[u]]
        if h >= 0
        and any(
            holding_action.rules.units[o].side != holding_action.rules.units[u].side
            and holding_action.rules.units[o].kind == "unit"
            for o in s.units_by_hex().get(h, ())
        )
    )
    reason = explain.why_not_move(s, u, enemy)
    assert "holds enemy units" in reason.text
    assert reason.cite.startswith("§ series 9, 9.1")


def test_the_roll_preview_is_what_the_roll_then_does(training):
    """The column and itemised DRMs shown before a roll are those the roll applies."""
    s = from_json(training, hand_written_combat())
    s.take_messages()
    preview = explain.roll_preview(s)
    assert preview is not None and preview.table == "Combat Results Table"
    s.apply_action(4)
    line = next(m for m in s.take_messages() if "rolled" in m)
    match = re.search(r"rolled 4(.*) = (-?\d+) at (\S+) →", line)
    assert match and match.group(3) == preview.column
    assert int(match.group(2)) == 4 + sum(m.amount for m in preview.modifiers)
    for m in preview.modifiers:
        assert f"{m.amount:+d} {m.label}" in match.group(1)


def test_a_log_with_an_illegal_action_names_the_rule(training):
    record = play_game(training, ["random", "random"], 4)
    moves = [dict(m) for m in record.moves]
    first = next(i for i, m in enumerate(moves) if m["text"].startswith("move "))
    mover = training.rules.side_index(moves[first]["player"])
    enemy = next(u for u, spec in enumerate(training.rules.units) if spec.side != mover)
    moves[first]["action"] = training.actions.step(enemy, 0)  # the other side's unit
    log = Log("game.jsonl", record.header, moves, None, list(range(2, len(moves) + 2)))
    with pytest.raises(ReplayError, match=r"is not legal here: .+ only the phasing side moves"):
        certify(training, log)


def test_a_bot_that_plays_an_illegal_move_is_stopped_with_the_rule(training, monkeypatch):
    """`muster play` reports a bot's illegal action with the reason, not a traceback."""

    class Stubborn:
        name = "stubborn"

        def __init__(self, player, rng):
            self.player = player

        def step(self, s):
            enemy = next(
                u for u, spec in enumerate(training.rules.units) if spec.side != self.player
            )
            return training.actions.step(enemy, 0)  # always the other side's unit

    monkeypatch.setitem(bots.BOTS, "stubborn", Stubborn)
    with pytest.raises(ValueError, match=r"bot 'stubborn' chose .+ only the phasing side moves"):
        play_game(training, ["stubborn", "stubborn"], 1)


def test_a_unit_not_among_the_choices_is_refused_by_the_define_that_lists_them(holding_action):
    """A `choose … from DEFINE(…)`: the refusal quotes that define's title and citation."""
    game = holding_action
    s, rng = game.new_initial_state(), random.Random(3)
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance.sample(s, 3))
            continue
        frame = s.stack[-1]
        instr = None if frame.prim else game.rules.procedures[frame.proc].code[frame.pc]
        if isinstance(instr, Choose) and instr.kind == "unit":
            break
        legal = s.legal_actions()
        moving = [a for a in legal if a != 0]
        s.apply_action(rng.choice(moving) if moving and rng.random() < 0.9 else legal[0])
    legal = s.legal_actions()
    other = next(u for u in range(len(game.rules.units)) if game.actions.unit(u) not in legal)
    reason = explain.why_not(s, game.actions.unit(other))
    series = "".join(p.read_text() for p in (RULESETS / "series").glob("*.mst"))
    assert f'"{reason.title}" {reason.cite}' in series  # a define's title and citation
    assert reason.text.startswith(f"{game.rules.units[other].title} is not among the choices")
    assert explain.why_not(s, legal[0]) is None


def test_a_hex_no_close_combat_can_attack_is_explained(holding_action):
    """At designations of a seeded game: a hex is explained away exactly when no legal
    designation attacks it, and an enemy out of reach is refused for being out of reach."""
    game = holding_action
    s, rng = game.new_initial_state(), random.Random(3)
    board, space = game.rules.board, game.actions
    checked = far = 0
    while not s.is_terminal() and checked < 3:
        if s.is_chance_node():
            s.apply_action(chance.sample(s, 3))
            continue
        legal = s.legal_actions()
        designations = [a for a in legal if space.kind_of(a) == "designate"]
        if designations and explain._designating(s):
            checked += 1
            attackable = {h for a in designations for h in explain._designated_hexes(s, a)[1]}
            side = s.stack[-1].b["side"]
            for h in range(len(board.labels)):
                reason = explain.why_not_attacked(s, h)
                assert (reason is None) == (h in attackable), (board.labels[h], reason)
                units = game.rules.units
                enemy = any(
                    units[u].side != side and units[u].kind == "unit" for u in units_in(s, h)
                )
                lonely = not any(
                    game.rules.units[u].side == side
                    for n in board.neighbors[h]
                    if n >= 0
                    for u in units_in(s, n)
                )
                if enemy and lonely:
                    far += 1
                    assert reason.text.startswith("No unit of ") and reason.cite, reason
        moving = [a for a in legal if a != 0]
        s.apply_action(rng.choice(moving) if moving and rng.random() < 0.9 else min(legal))
    assert checked == 3 and far > 0
