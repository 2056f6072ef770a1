"""docs/balance.md's search-bot part (benchmarks/balance.py): where a run's reports
go, and the table made of them, from a small hand-made report."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.balance import summarise

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def balance():
    spec = importlib.util.spec_from_file_location("balance", ROOT / "benchmarks" / "balance.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _game(index: int, winner: str | None, bots: dict[str, str]) -> dict:
    return {
        "index": index,
        "winner": winner,
        "level": "marginal" if winner else None,
        "bots": bots,
        "moves": 10,
        "turns": 2,
        "final": {},
        "by_turn": [],
        "decided_by": "6.28" if winner else "the last turn",
    }


def test_each_run_has_a_folder_of_its_own(balance):
    assert balance.run_folder("heuristic") == balance.OUT
    assert balance.run_folder("heuristic,heuristic") == balance.OUT
    assert balance.run_folder("mcts:0.8s") == balance.OUT / "mcts08s"
    assert balance.run_folder("mcts:0.8s,mcts:0.8s") == balance.OUT / "mcts08s"
    assert balance.run_folder("mcts:4,heuristic") == balance.OUT / "mcts4_v_heuristic"


def test_the_search_table_shows_each_sides_wins_and_what_is_missing(balance, tmp_path, monkeypatch):
    monkeypatch.setattr(balance, "OUT", tmp_path)
    monkeypatch.setattr(balance, "SEARCH_RUNS", ("mcts:0.8s",))
    bots = {"british": "mcts:0.8s", "american": "mcts:0.8s"}
    games = [_game(i, "british", bots) for i in range(6)]
    games += [_game(6, "american", bots), _game(7, None, bots)]
    meta = {
        "battle": "b",
        "scenario": "played",
        "bots_given": "mcts:0.8s,mcts:0.8s",
        "seed": 1,
        "swap": True,
        "rules_hash": "old",
    }
    report = summarise(games, meta, ["british", "american"], ["marginal"])
    folder = tmp_path / "mcts08s"
    folder.mkdir()
    (folder / "b_played.json").write_text(json.dumps(report), encoding="utf-8")
    played = SimpleNamespace(name="played", title="Played")
    unplayed = SimpleNamespace(name="unplayed", title="Unplayed")

    text = balance.search_section([("b", played, "new"), ("b", unplayed, "new")])

    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| ")}
    row = rows["| Played (earlier rules)"]  # made under another rules hash: said so
    assert "| 8 |" in row
    assert "british: 6 (75%, " in row and "american: 1 (12%, " in row
    assert row.endswith("| 1 (12%, 2%–47%) |")  # the draw, with its Wilson interval
    assert "not run yet" in rows["| Unplayed"]
    assert "decided by:" in text  # the report in full below the table


def test_a_run_against_the_heuristic_shows_the_first_bots_wins_as_each_side(
    balance, tmp_path, monkeypatch
):
    monkeypatch.setattr(balance, "OUT", tmp_path)
    monkeypatch.setattr(balance, "SEARCH_RUNS", ("mcts:4,heuristic",))
    search = {"british": "mcts:4", "american": "heuristic"}
    swapped = {"british": "heuristic", "american": "mcts:4"}
    games = [_game(i, "british", search) for i in range(3)]  # the search's British win 3
    games += [_game(3, "british", swapped), _game(4, "american", swapped)]  # and Americans 1
    meta = {"battle": "b", "scenario": "s", "bots_given": "mcts:4,heuristic", "seed": 1}
    meta |= {"swap": True, "rules_hash": "h"}
    report = summarise(games, meta, ["british", "american"], ["marginal"])
    folder = tmp_path / "mcts4_v_heuristic"
    folder.mkdir()
    (folder / "b_s.json").write_text(json.dumps(report), encoding="utf-8")

    text = balance.search_section([("b", SimpleNamespace(name="s", title="S"), "h")])

    assert "## mcts:4 against the heuristic" in text
    row = next(line for line in text.splitlines() if line.startswith("| S |"))
    assert "| 4 (80%, " in row  # the search bot's wins of the 5 games
    assert "british: 3 (100%, " in row and "american: 1 (50%, " in row
