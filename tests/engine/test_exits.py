"""Leaving the map on purpose (`exit`), on the Escape test battle
(tests/data/designer/the_escape): a refused exit is explained citing the exit,
an exited unit saves and loads, is seen by both sides, counts for victory and
has its box on the VASSAL tracks board; bad `exit` declarations are errors
with their place."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from compiler.backends.vassal.tracks import layout
from compiler.build import load_game
from compiler.check import check_ruleset
from engine import effects
from engine.explain import why_not
from engine.save import from_json, to_json
from engine.state import EXITED, State
from muster.cli import main
from tests.conftest import first_movement

THE_ESCAPE = Path(__file__).parents[1] / "data" / "designer" / "the_escape"
TRAINING = Path(__file__).parents[2] / "rulesets" / "training"


@pytest.fixture(scope="module")
def game():
    return load_game(THE_ESCAPE)


def _act(s: State, text: str) -> None:
    (action,) = [a for a in s.legal_actions() if text in s.action_to_string(a)]
    s.apply_action(action)


def _exit_of(s: State, name: str) -> int:
    return s.game.actions.exit(s.game.rules.unit_index(name))


def test_an_exit_refused_for_its_cost_cites_the_exit(game):
    s = first_movement(game, blue_second="0504", blue_first="0102", blue_general="0102")
    for step in ("0504 → 0604", "0604 → 0704", "0704 → 0804", "0804 → 0904"):
        _act(s, step)
    reason = why_not(s, _exit_of(s, "blue_second"))
    assert reason is not None
    assert reason.text == (
        "Leaving the map at 0904 costs 1 MP; 2nd Blue Foot has spent 4 of its 4 MP."
    )
    assert (reason.title, reason.cite) == ("Off the map by the east road", "§ the_escape 3.2, 3.4")


def test_an_exit_refused_by_its_condition_cites_the_exit(game):
    s = first_movement(game, blue_general="0904")
    reason = why_not(s, _exit_of(s, "blue_general"))
    assert reason is not None
    assert reason.text.startswith("General B. may not leave the map at 0904")
    assert reason.cite == "§ the_escape 3.2, 3.4"
    s = first_movement(game, blue_first="0504")
    assert str(why_not(s, _exit_of(s, "blue_first"))).startswith(
        "No exit of the rules leaves the map from 0504"
    )


def test_an_exited_unit_saves_loads_and_is_seen_by_both_sides(game):
    s = first_movement(game, blue_first="0904")
    _act(s, "1st Blue Foot exits the map at 0904")
    assert "1st Blue Foot exits the map at 0904." in s.take_messages()
    u = game.rules.unit_index("blue_first")
    assert s.unit_status[u] == EXITED and s.unit_hex[u] == -1
    data = to_json(s)
    assert data["units"]["blue_first"]["status"] == "exited"
    loaded = from_json(game, data)
    assert loaded == s and to_json(loaded) == data
    for side in range(2):
        assert s.observation(side)["units"]["blue_first"]["status"] == "exited"


def test_strength_points_off_the_map_win_at_the_end(game):
    s = first_movement(game, blue_first="0904")
    _act(s, "1st Blue Foot exits the map at 0904")
    effects.determine_victory(s)
    assert (s.winner, s.level) == (game.rules.side_index("blue"), "marginal")


def test_a_column_making_for_the_road_escapes_and_wins_at_once(game):
    """Played from the scenario's opening (the remembered answers checked against
    recomputation in the tests): each Blue unit steps east and exits when it may."""
    s = game.new_initial_state()
    space = game.actions
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(s.chance_outcomes()[0][0])
            continue
        legal = s.legal_actions()
        exits = [a for a in legal if space.kind_of(a) == "exit"]
        east = [a for a in legal if space.kind_of(a) == "step" and "→ 0" in s.action_to_string(a)]
        east = [a for a in east if s.action_to_string(a).endswith(("04", "0904"))]
        s.apply_action((exits or east or legal)[0])
    assert (s.winner, s.level) == (game.rules.side_index("blue"), "decisive")
    assert [
        game.rules.units[u].name for u in range(len(game.rules.units)) if s.unit_status[u] == EXITED
    ] == ["blue_first", "blue_second"]


def test_the_tracks_board_has_exited_boxes_only_where_units_may_exit():
    escape, _sources, _warnings = check_ruleset(THE_ESCAPE)
    names = {b.name for b in layout(escape).boxes}
    assert {"Blue: Exited", "Red: Exited"} <= names
    training, _sources, _warnings = check_ruleset(TRAINING)
    assert not any(b.name.endswith(": Exited") for b in layout(training).boxes)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("through east_road", "through 1204", r"map\.mst:13:13: error: hex 1204 is not on the map"),
        ("through east_road", "through east_raod", r"no place or zone 'east_raod'"),
        ("cost 1", "cost two", r"map\.mst:14:5: error: .*the cost is a number of MP"),
        ("edge east", "edge eats", r"a map edge is one of west, east, north, south"),
    ],
)
def test_a_bad_exit_is_an_error_with_its_place(tmp_path, capsys, old, new, message):
    folder = tmp_path / "the_escape"
    shutil.copytree(THE_ESCAPE, folder)
    path = folder / "map.mst"
    path.write_text(path.read_text().replace(old, new, 1), encoding="utf-8")
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert re.search(message, err), err
    assert "Traceback" not in err


def test_an_exit_in_a_battle_without_a_map_is_an_error(tmp_path, capsys):
    folder = tmp_path / "the_escape"
    shutil.copytree(THE_ESCAPE, folder)
    path = folder / "map.mst"
    text = path.read_text()
    path.write_text(text[text.index("exit by_the_road") :], encoding="utf-8")
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert re.search(
        r"map\.mst:1:6: error: exit 'by_the_road' leaves a map, and this battle has none", err
    ), err
