"""Shared fixtures: games of the training battle and helpers to drive them."""

from __future__ import annotations

import functools
import random
import shutil
import types
from pathlib import Path

import pytest

from compiler import ir
from compiler.backends.engine_codegen import generate
from compiler.build import load_game, load_generated, shipped_battles, with_local_charts
from compiler.check import compile_ruleset
from dsl.source import SourceFiles
from engine import chance, incremental
from engine.game import Game
from engine.save import from_json, to_json
from engine.state import State
from engine.terrain_state import CHANGED_TERRAIN

# Every legal-move question the engine answers from memory is checked against a
# full recomputation, at every decision of every test (engine/incremental.py).
incremental.CHECK = True

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ROOT / "rulesets"
# The litmus battle: the series on a small hand-made map, for series rules
# played on positions written by hand.
LITMUS = ROOT / "tests" / "data" / "litmus" / "base.mst"
# The training battle with a unit of three steps: a face for each on every output.
STEPS = ROOT / "tests" / "data" / "steps"
# The shipped battles (not the series, a library), read once for the tests
# parametrized by them.
SHIPPED_BATTLES = tuple(shipped_battles())


def shared_file(*parts: str) -> Path | None:
    """`shared/<parts…>` beside the checkout (or beside a folder above it, as
    for a git worktree); None where a clone has no `shared/`."""
    for base in ROOT.parents:
        path = base.joinpath("shared", *parts)
        if path.is_file():
            return path
    return None


def rulebook(name: str) -> Path | None:
    """`shared/rulebooks/<name>`, or None where a clone has no `shared/`."""
    return shared_file("rulebooks", name)


@pytest.fixture(scope="session")
def training() -> Game:
    """The training battle compiled fresh from its rule files."""
    return load_game(RULESETS / "training")


@pytest.fixture(scope="session")
def litmus() -> Game:
    """The litmus battle compiled once for the tests that set up its positions."""
    return load_game(LITMUS)


@functools.cache
def compiled(battle: str) -> tuple[ir.Ruleset, SourceFiles]:
    """A shipped battle's rules as its rule files now stand, checked once per test
    session (in each worker) for every test that reads them."""
    return compile_ruleset(battle)


@functools.cache
def package(battle: str) -> types.ModuleType:
    """A shipped battle's engine package generated from its rule files as they now
    stand (as `muster play` does), once per test session."""
    rules, _sources = compiled(battle)
    return load_generated(generate(rules), rules.name)


def fresh_game(battle: str, params: dict | None = None) -> Game:
    """`compiler.build.load_game(battle, params)`: a new `Game` of a shipped battle's
    rule files as they now stand, with its local charts, compiled once (`package`)."""
    return with_local_charts(package(battle), params)


@pytest.fixture(scope="session")
def monmouth_compiled() -> tuple[ir.Ruleset, SourceFiles]:
    """Monmouth's rules, checked once for the tests that share them."""
    return compiled("monmouth")


@pytest.fixture(scope="session")
def monmouth_package() -> types.ModuleType:
    """Monmouth's engine package generated from the current rule files (as `muster play`)."""
    return package("monmouth")


@pytest.fixture(scope="session")
def monmouth_table(tmp_path_factory, monmouth_compiled):
    """The table of Monmouth (Lee's Advance, the American side), drawn once for the
    table's tests; its saves go to a temporary folder."""
    pytest.importorskip("starlette")  # the `table` extra
    from table.server import open_table  # lazy: only with the optional extra

    saves = tmp_path_factory.mktemp("saves")
    # The random bot: the table's tests drive the game's opening moves as it plays them.
    return open_table(
        "monmouth",
        "lees_advance",
        "american",
        bot="random",
        seed=1,
        saves=saves,
        compiled=monmouth_compiled,
    )


def eager_action(s: State, rng: random.Random) -> int:
    """A random legal action that rarely passes, so that units meet and fight."""
    actions = s.legal_actions()
    if len(actions) > 1 and 0 in actions and rng.random() < 0.9:
        actions = [a for a in actions if a != 0]
    return rng.choice(actions)


def play_out(s: State, seed: int, eager: bool = True) -> State:
    """Play a state to the end with random choices; chance from the seed."""
    rng = random.Random(seed)
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance.sample(s, seed))
        else:
            s.apply_action(eager_action(s, rng) if eager else rng.choice(s.legal_actions()))
    return s


def hand_written_combat() -> dict:
    """Red's last combat of the game, half-way: odds known, the die about to be rolled.

    Frames name their step: a frame resumes at the start of that step, so the
    outer frames name the step after the one that called the inner frame.
    """
    return {
        "format": "muster.state/1",
        "ruleset": "training",
        "vars": {"turn": 2, "phasing": "red", "vp": {"red": 0, "blue": 0}},
        "units": {
            "red_guard": {"hex": "0504"},
            "red_general": {"hex": "0504"},
            "red_line": {"hex": "0505"},
            "blue_foot": {"hex": "0604"},
            "blue_rifles": {"hex": "0807"},
            "blue_militia": {"hex": "0903"},
        },
        "combats": [
            {
                "side": "red",
                "attackers": ["red_guard", "red_line"],
                "defenders": ["blue_foot"],
                "attack_hexes": ["0504", "0505"],
                "defense_hexes": ["0604"],
            }
        ],
        "stack": [
            {"procedure": "game", "step": "victory"},
            {"procedure": "close_combat", "step": "roll", "bindings": {"combat": 0, "odds": 3}},
        ],
    }


def first_movement(game: Game, changed: tuple[str, ...] = (), **hexes: str) -> State:
    """The first movement phase of a game (every decision before it its first choice),
    with these units put in these hexes and these terrain changes made: a hand-made
    position for a movement rule."""
    s = game.new_initial_state()
    while not (s.stack and s.stack[-1].prim and s.stack[-1].proc == "move_units"):
        s.apply_action(s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[0])
    data = {k: v for k, v in to_json(s).items() if k != "check"}
    for name, h in hexes.items():
        data["units"][name] = {"hex": h}
    if changed:
        data["vars"][CHANGED_TERRAIN] = list(changed)
    return from_json(game, data)


def training_failing_in_combat(tmp_path: Path, statement: str, more: str = "") -> Path:
    """The training battle with a step before each close combat's roll that
    runs `statement` (and `more` declarations): a rule that fails in play."""
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    battle = folder / "battle.mst"
    battle.write_text(
        battle.read_text(encoding="utf-8").replace(
            "    step roll: roll combat_table",
            f"    step bonus: {statement}\n    step roll: roll combat_table",
        )
        + more,
        encoding="utf-8",
    )
    return folder
