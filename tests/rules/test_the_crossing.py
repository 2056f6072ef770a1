"""The Crossing (tests/data/designer/the_crossing), a battle written from its
brief as a new designer would: it checks, builds, plays each scenario and
passes its language tests; the run-time error planted behind its optional
rule stops `muster play` with exit 1 and the rule's file and line; the
American plan and the stack in the woods are kept from the British on every
surface until the rules reveal them. And no
`muster` command ends in exit 3 (an internal error) on any rule file or
battle in tests/data."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from compiler.build import load_game
from engine import chance, incremental
from engine.information import HIDDEN
from muster.cli import main
from muster.language_tests import run_tests
from table.views import Markers, view
from tests.backends.test_vassal import build_module, saved

DATA = Path(__file__).parent.parent / "data"
CROSSING = DATA / "designer" / "the_crossing"
PLANTED = CROSSING / "planted_error.mst"
BRITISH = 0  # the first side the rules declare
PLANTED_RULE = "choose reserve from units_of(british) where strength > 9 by british"


@pytest.fixture
def as_the_command_plays(monkeypatch):
    """Play as `muster` does, without the suite's check of every remembered
    list of legal actions against a full recomputation (tests/conftest.py), which
    doubles a game's time; test_the_jagers_forced_move_under_the_incremental_check
    keeps the check where it matters (6.1's `no_end … can_reach_any`)."""
    monkeypatch.setattr(incremental, "CHECK", False)


def test_it_checks_clean(capsys):
    assert main(["check", str(CROSSING)]) == 0
    out = capsys.readouterr()
    assert "The Crossing (the_crossing): ok" in out.out
    assert "warning" not in out.out + out.err


def test_its_language_tests_pass(as_the_command_plays):
    tests, run = run_tests(CROSSING)
    names = {t.name for t in tests}
    assert names >= {
        "lay_the_pontoon",
        "upper_ford_open",
        "a_natural_zero",
        "the_plan_is_face_down",
        "markers_face_down",
        "the_plan_is_discovered",
        "jagers_must_close",
        "the_road_is_open",
        "three_steps",
        "guards_enter_in_the_crossing",
        "morning_attack_marylanders",
    }
    assert not run.failed, [o.failure for o in run.failed]


def test_muster_test_succeeds(capsys, as_the_command_plays):
    assert main(["test", str(CROSSING)]) == 0
    assert " failed" not in capsys.readouterr().out


@pytest.mark.slow  # a whole game of each scenario, by the command
@pytest.mark.parametrize("scenario", ["crossing", "morning_attack"])
@pytest.mark.parametrize("seed", [1])
def test_each_scenario_plays_to_the_end(capsys, scenario, seed, as_the_command_plays):
    code = main(["play", str(CROSSING), "--scenario", scenario, "--seed", str(seed), "--quiet"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "Game over" in out.out


def planted_place() -> str:
    """The planted rule's file:line:column."""
    lines = PLANTED.read_text(encoding="utf-8").splitlines()
    line, text = next((n, t) for n, t in enumerate(lines, 1) if PLANTED_RULE in t)
    return (
        f"tests/data/designer/the_crossing/planted_error.mst:{line}:{text.index(PLANTED_RULE) + 1}"
    )


@pytest.mark.parametrize(
    "command", [["play", "--seed", "1", "--quiet"], ["simulate", "--games", "2"]]
)
def test_the_planted_error_names_its_rule(capsys, as_the_command_plays, command):
    """Brief 8.1: with the switch on, the muster of the British reserve finds
    nobody to choose; play stops with exit 1 and the rule's file, line, column
    and text, not as an internal error."""
    code = main([command[0], str(CROSSING), "--rule", "planted_error=on", *command[1:]])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "internal error" not in err
    assert "the rules fail in play: nothing to choose from for 'reserve'" in err
    assert f"in the rules, procedure player_turn at {planted_place()}:" in err
    assert PLANTED_RULE in err


def test_the_planted_error_fails_a_language_test_at_its_rule(tmp_path, capsys):
    """`muster test`: a test whose position plays into the planted error fails,
    naming the rule's file:line:column; the other tests still run."""
    battle = tmp_path / "the_crossing"
    shutil.copytree(CROSSING, battle)
    (battle / "tests" / "planted.mst").write_text(
        'test planted "The muster of the reserve finds nobody" {\n'
        "    rule planted_error on\n"
        "    set turn 2\n"
        "    at 0303 british_grenadiers\n"
        "    during player_turn begin side british\n"
        "}\n",
        encoding="utf-8",
    )
    assert main(["test", str(battle), "-k", "plan"]) == 1
    printed = capsys.readouterr()
    place = planted_place().replace("tests/data/designer/the_crossing", str(battle))
    assert "planted.mst::planted FAILED" in printed.out
    assert "nothing to choose from for 'reserve'" in printed.out
    assert f"in the rules, procedure player_turn at {place})" in printed.out
    assert "3 passed, 1 failed" in printed.out
    assert "internal error" not in printed.out + printed.err


def test_the_jagers_forced_move_under_the_incremental_check():
    """The forced move asks `can_reach_any` inside the movement's own legality: the
    legal steps remembered between decisions agree with those worked out afresh
    (the suite's check, tests/conftest.py)."""
    assert incremental.CHECK
    _tests, run = run_tests(CROSSING)
    assert not run.failed, [o.failure for o in run.failed]


@pytest.mark.slow
def test_it_builds_everything(tmp_path, capsys):
    out = tmp_path / "the_crossing"
    assert main(["build", str(CROSSING), "--out", str(out)]) == 0, capsys.readouterr().err
    assert (out / "rules.py").is_file()
    assert (out / "the_crossing.vmod").is_file()
    assert any((out / "print").iterdir())


# ---------------------------------------------------------------------------
# No command ends in exit 3 on anything in tests/data: exit 0, or 1 for the
# diagnostics files and battles that are meant to fail.

RULE_FILES = sorted(DATA.rglob("*.mst"))
BATTLES = sorted(
    {p.parent for p in DATA.rglob("ruleset.mst")}
    | {p.parent.parent for p in DATA.rglob("tests/*.mst")}
)


def _status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse's own refusals
        return int(e.code or 0)


def test_the_sweep_finds_the_battles():
    names = {b.name for b in BATTLES}
    assert {"the_crossing", "mill_creek", "the_ambush", "the_escape", "steps", "examples"} <= names
    assert "designer" not in names and "data" not in names
    assert len(RULE_FILES) > 50


@pytest.mark.slow
def test_check_never_ends_in_an_internal_error(capsys):
    statuses = {}
    for path in RULE_FILES:
        statuses[path.relative_to(DATA)] = _status(["check", str(path)])
        capsys.readouterr()
    internal = {p: s for p, s in statuses.items() if s not in (0, 1)}
    assert internal == {}


@pytest.mark.slow
@pytest.mark.parametrize("battle", BATTLES, ids=lambda p: str(p.relative_to(DATA)))
def test_test_and_build_never_end_in_an_internal_error(battle, tmp_path, capsys):
    assert _status(["check", str(battle)]) in (0, 1), capsys.readouterr().err
    assert _status(["test", str(battle)]) in (0, 1), capsys.readouterr().err
    out = tmp_path / "engine"
    assert _status(["build", str(battle), "--only", "engine", "--out", str(out)]) in (0, 1), (
        capsys.readouterr().err
    )


# ---------------------------------------------------------------------------
# Brief 5 and 3.5: what the British may not see, on every surface.


def _british_view(s, account: list[str]) -> str:
    """Everything the British seat's table page is sent, as JSON text."""
    return json.dumps(view(s, Markers({}, {}), BRITISH, account), ensure_ascii=False)


@pytest.mark.slow  # builds the module for its .vsav
def test_the_plan_and_the_woods_stack_are_kept_from_the_british(as_the_command_plays):
    """After the American plan (an ambush, its marker and a dummy face down), the British
    observation, account and table page hold neither the plan, nor which marker is
    which, nor the units of the stack in the woods; the module's set-up masks that stack
    by the American side. A seeded game that brings a British unit near the woods shows
    them the plan and the markers."""
    game = load_game(CROSSING, {"scenario": "crossing"})
    s = game.new_initial_state()
    account = list(s.take_messages())
    for text in ("Lay an ambush in the woods? yes", "0805", "0905"):
        (action,) = [a for a in s.legal_actions() if s.action_to_string(a).endswith(text)]
        s.apply_action(action)
        account += s.take_messages()
    hidden = [game.rules.units[u].name for u in s.concealed_from(BRITISH)]
    assert hidden, "the stack in the woods is concealed"
    seen = s.observation(BRITISH)
    assert seen["vars"]["plan"] == HIDDEN
    assert {h: v for h, v in seen["vars"]["woods_marker"].items() if v} == {
        "0805": HIDDEN,
        "0905": HIDDEN,
    }
    assert not set(hidden) & set(seen["units"])
    page = _british_view(s, account)
    for secret in ("ambush_in_the_woods", "Ambush", *hidden):
        assert secret not in page, secret
    _rules, vmod = build_module(CROSSING)
    masked = {
        title: piece.trait("obs")[0].state.split(";")[0]
        for title, (_place, piece) in saved(vmod, "crossing").items()
        if piece.trait("obs")
    }
    titles = {u.name: u.title for u in _rules.units}
    assert {masked.get(titles[name]) for name in hidden} == {"American"}

    for seed in range(40):
        s, rng = game.new_initial_state(), random.Random(seed)
        while not s.is_terminal() and not s.vars["plan_revealed"]:
            s.apply_action(
                chance.sample(s, seed) if s.is_chance_node() else rng.choice(s.legal_actions())
            )
        if s.vars["plan_revealed"]:
            break
    seen = s.observation(BRITISH)
    assert seen["vars"]["plan"] == s.vars["plan"] != HIDDEN
    assert HIDDEN not in seen["vars"]["woods_marker"].values()
