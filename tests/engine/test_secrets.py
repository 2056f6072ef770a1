"""Secret decisions and secret values (issue 25 item 3): `ask secretly`, a
`secret` variable and markers placed face down, on every surface.

The battle is tests/data/designer/the_ambush: Red answers face down whether it
lays an ambush, writes its plan face down and places an Ambush or a Dummy
marker face down next to 0504; Blue may then probe the road, which reveals
all three. Blue's observation, account, table page and bot view must not hold
the secret before the probe, and must after it.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest

from compiler.build import import_shipped, load_game
from engine import chance
from engine.bots.registry import make_bot
from engine.bots.view import view_of
from engine.effects import set_var
from engine.information import HIDDEN
from engine.state import State
from muster.cli import main
from table.views import CONCEALED, FACE_DOWN, Markers, Redactor, phrase_pattern, view
from tests.compiler.test_diagnostics import with_extra
from tests.conftest import compiled

THE_AMBUSH = Path(__file__).parents[1] / "data" / "designer" / "the_ambush"
BLUE, RED = 0, 1
SECRET_WORDS = ("Dummy", "dummy", "Ambush.", "hold_the_road", "fall_back", "this turn? Yes")


@pytest.fixture(scope="module")
def game():
    return load_game(THE_AMBUSH)


def _to_the_question(game) -> tuple[State, list[str]]:
    """Play (first legal action, first chance outcome) to Red's face-down question."""
    s = game.new_initial_state()
    account = s.take_messages()
    while not s.is_terminal():
        if not s.is_chance_node() and "Lay an ambush" in s.action_to_string(s.legal_actions()[0]):
            return s, account
        s.apply_action(s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[0])
        account += s.take_messages()
    raise AssertionError("Red was never asked")


def _act(s: State, text: str, account: list[str]) -> None:
    (action,) = [a for a in s.legal_actions() if text in s.action_to_string(a)]
    s.apply_action(action)
    account += s.take_messages()


def _page(s: State, viewer: int, account: list[str]) -> str:
    """Everything the viewer's table page is sent, as JSON text."""
    return json.dumps(view(s, Markers({}, {}), viewer, account), ensure_ascii=False)


def test_blues_page_holds_no_secret_until_the_probe(game):
    s, account = _to_the_question(game)
    _act(s, "Lay an ambush this turn? yes", account)
    _act(s, "0404", account)
    blue, red = _page(s, BLUE, account), _page(s, RED, account)
    for word in SECRET_WORDS:
        assert word not in blue, word
    assert "Lay an ambush this turn? Answered face down." in blue
    assert "Red sets Road marker (0404), face down." in blue
    assert "Road marker (0404): none → Ambush." in red and "hold_the_road" in red
    observation = s.observation(BLUE)
    assert observation["vars"]["road_marker"]["0404"] == HIDDEN
    assert observation["vars"]["road_marker"]["0604"] == ""  # no marker there: seen
    assert observation["vars"]["plan"] == HIDDEN
    assert HIDDEN in [f["bindings"].get("ambushing") for f in observation["stack"]]
    _act(s, "Probe the road? yes", account)
    blue = _page(s, BLUE, account)
    assert "Red reveals: Lay an ambush this turn? Yes." in blue
    assert "Road marker revealed: 0404 Ambush." in blue
    assert s.observation(BLUE)["vars"]["road_marker"]["0404"] == "ambush"
    assert s.observation(BLUE)["vars"]["plan"] == "hold_the_road"


def test_the_page_draws_a_face_down_marker_where_it_lies(game):
    """Blue's page draws a face-down Red marker on 0404, not which; Red's page and, after
    the probe, Blue's draw the Ambush itself."""
    s, account = _to_the_question(game)
    _act(s, "Lay an ambush this turn? yes", account)
    _act(s, "0404", account)

    def placed(viewer: int) -> list[dict]:
        return view(s, Markers({}, {}), viewer, account)["placed_markers"]

    face_down = {"hex": "0404", "title": "Road marker", "side": "red"}
    assert placed(BLUE) == [face_down | {"marker": None, "marker_title": None}]
    assert placed(RED) == [face_down | {"marker": "ambush", "marker_title": "Ambush"}]
    _act(s, "Probe the road? yes", account)
    assert placed(BLUE) == placed(RED)


def test_a_text_with_a_secret_value_is_read_whole_by_its_reader_only(tmp_path):
    """`say` of a secret variable and of a face-down answer: Red reads the values, Blue
    reads the line without them; the probe's reveal tells Blue the plan."""
    battle = tmp_path / "the_ambush"
    shutil.copytree(THE_AMBUSH, battle)
    ambush = battle / "ambush.mst"
    ambush.write_text(
        ambush.read_text().replace(
            "        choose h from hexes_around(0504) by side\n",
            "        choose h from hexes_around(0504) by side\n"
            '        say("The plan is {plan}, the answer {ambushing}.")\n',
        )
    )
    s, account = _to_the_question(load_game(battle))
    _act(s, "Lay an ambush this turn? yes", account)
    _act(s, "0404", account)
    assert "The plan is (hidden), the answer (hidden)." in _page(s, BLUE, account)
    assert "The plan is hold_the_road, the answer yes." in _page(s, RED, account)
    _act(s, "Probe the road? yes", account)
    blue = _page(s, BLUE, account)
    assert "The plan is (hidden), the answer (hidden)." in blue
    assert "revealed: hold_the_road." in blue


def test_a_secret_set_again_is_hidden_again(game):
    s, account = _to_the_question(game)
    _act(s, "Lay an ambush this turn? no", account)
    _act(s, "0404", account)
    _act(s, "Probe the road? yes", account)
    assert s.observation(BLUE)["vars"]["plan"] == "fall_back"
    set_var(s, "plan", "hold_the_road")
    assert s.observation(BLUE)["vars"]["plan"] == HIDDEN


def test_the_bots_view_never_holds_reds_secret(game):
    """Two positions that differ only in Red's face-down marker and answer give Blue's
    bot the same views, sample for sample: the view cannot depend on the secret."""
    real, _ = _to_the_question(game)
    dummy = real.clone()
    for s, answer in ((real, "yes"), (dummy, "no")):
        _act(s, f"Lay an ambush this turn? {answer}", [])
        _act(s, "0404", [])
    assert real.vars["road_marker"] != dummy.vars["road_marker"]
    seen = set()
    for seed in range(60):
        a = view_of(real, BLUE, random.Random(seed))[1]
        b = view_of(dummy, BLUE, random.Random(seed))[1]
        assert a.vars["road_marker"] == b.vars["road_marker"]
        assert a.vars["plan"] == b.vars["plan"]
        assert a.stack[-1].b.get("ambushing") == b.stack[-1].b.get("ambushing")
        seen.add(a.vars["road_marker"][game.hex_by_label["0404"]])
        assert a.vars["road_marker"][game.hex_by_label["0604"]] == ""
    assert len(seen) > 1  # sampled among the markers, not the truth


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('    step s: ask secretly side "Go?" { say("x") }', "needs a name to reveal it by"),
        ("    step s: reveal nothing_secret", "was not chosen or answered secretly"),
    ],
)
def test_secret_statements_are_checked(tmp_path, capsys, text, message):
    extra = tmp_path / "extra.mst"
    extra.write_text(f'procedure secretive(side: side) "Secretive" {{\n{text}\n}}\n')
    assert main(["check", str(with_extra(tmp_path, extra))]) == 1
    err = capsys.readouterr().err
    assert re.search(rf"extra\.mst:2:\d+: error: .*{message}", err), err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("type bool; secret", r"`secret` alone keeps each side's own value"),
        ("type bool; secret rde", r"unknown side 'rde'"),
        ("per side; type int; secret", r"a secret variable holds one of a list of values"),
        ("type bool; secret blue red", r"write `secret SIDE`"),
    ],
)
def test_secret_variables_are_checked(tmp_path, capsys, lines, message):
    extra = tmp_path / "extra.mst"
    extra.write_text(f'variable hush "Hush" {{ {lines} }}\n')
    assert main(["check", str(with_extra(tmp_path, extra))]) == 1
    err = capsys.readouterr().err
    assert re.search(rf"extra\.mst:1:\d+: error: {message}", err), err


# ------------------------------------------------------------------ the sanitiser

# A hidden phrase after a word that opens a noun phrase, or before a head noun.
GARBLED = re.compile(
    rf"\b(?i:the|this|that|a|an|his|its|their|each)\s+({FACE_DOWN}|{CONCEALED})"
    rf"|({FACE_DOWN}|{CONCEALED})\s+(marker|unit|card|counter|chit)s?\b"
)


HIDDEN_PHRASE = re.compile(f"{FACE_DOWN}|{CONCEALED}", re.IGNORECASE)


def test_a_hidden_name_is_replaced_with_its_whole_noun_phrase():
    """The name and the words around it that make it a noun phrase go together."""
    s = import_shipped("newtown").load_game().new_initial_state()
    r = Redactor(s, Markers({}, {}), None)
    r.words = {"Red Jacket": CONCEALED, "Parley": FACE_DOWN}
    r.pattern = phrase_pattern(r.words)
    assert r.text("Use this Red Jacket marker?") == "Use a concealed unit?"
    assert r.text("The Red Jacket moves 3119 → 3219.") == "A concealed unit moves 3119 → 3219."
    assert r.text("Play the Parley card.") == "Play a face-down marker."
    assert r.text("Indian Player chooses Red Jacket.") == "Indian Player chooses a concealed unit."


def _template(line: str, names: list[str]) -> str:
    """The line with each name (with the words of its noun phrase) read as one slot."""
    return phrase_pattern(names).sub("{}", line).lower() if names else line.lower()


@pytest.mark.parametrize("battle", ["newtown", "monmouth"])
def test_every_redacted_account_line_keeps_its_template(battle):
    """Seeded games by random bots: each account line each side is sent reads as the
    same sentence with the hidden phrase in the name's slot, never garbled."""
    game = import_shipped(battle).load_game()
    rules = game.rules
    ir_rules, _ = compiled(battle)
    markers = Markers(
        {m.name: m.side for m in ir_rules.markers}, {m.name: m.title for m in ir_rules.markers}
    )
    redacted = 0
    for seed in range(2):
        s = game.new_initial_state()
        bots = [make_bot("random", p, seed) for p in range(len(rules.sides))]
        for _ in range(1500):
            if s.is_terminal():
                break
            s.apply_action(
                chance.sample(s, seed) if s.is_chance_node() else bots[s.current_player()].step(s)
            )
            lines = s.take_messages()
            for viewer in range(len(rules.sides)):
                r = Redactor(s, markers, viewer)
                for line in lines:
                    out = r.text(line)
                    assert not GARBLED.search(out), (line, out)
                    if out != line:
                        redacted += 1
                        hidden = [w for w in r.words if w in line]
                        shown = HIDDEN_PHRASE.sub("{}", out).lower()
                        assert _template(line, hidden) == shown, (line, out)
    if battle == "newtown":
        assert redacted > 0
