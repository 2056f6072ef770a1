"""A player's local chart file replaces the provisional tables when a Game is made."""

from __future__ import annotations

import json

import pytest

from compiler.build import load_game
from compiler.local_charts import LOCAL_CHARTS
from dsl.diagnostics import CompileError
from engine.play import play_game
from tests.conftest import ROOT, RULESETS

# Every cell a defender's step loss: a table no one would mistake for the shipped one.
PRINTED = """\
import training

override table combat_table "Combat Results Table" {
    roll die
    columns 1:2 1:1 2:1 3:1 4:1
    cells attacker/defender
    ..4     -/1   -/1   -/1   -/1   -/1
    5..     -/1   -/1   -/1   -/1   -/1
}
"""


def write(tmp_path, text: str):
    path = tmp_path / LOCAL_CHARTS
    path.write_text(text, encoding="utf-8")
    return path


def table(game, name: str):
    return next(t for t in game.tables if t.name == name)


def test_the_local_table_replaces_the_shipped_one(tmp_path):
    shipped = load_game(RULESETS / "training")
    local = load_game(RULESETS / "training", {"local_charts": write(tmp_path, PRINTED)})
    ours, theirs = table(local, "combat_table"), table(shipped, "combat_table")
    assert len(ours.rows) == 2 and len(theirs.rows) == 5
    assert ours.columns == theirs.columns
    # the other tables are the shipped ones
    others = [t.name for t in shipped.tables if t.name != "combat_table"]
    assert all(table(local, n) is table(shipped, n) for n in others)
    # the charts are part of what a log must be replayed with
    assert local.rules_hash != shipped.rules_hash
    record = play_game(local, ["random", "random"], 3)
    json.dumps(record.header)
    assert "charts" not in record.header["params"]


def test_the_game_plays_by_the_local_table(tmp_path):
    local = load_game(RULESETS / "training", {"local_charts": write(tmp_path, PRINTED)})
    messages: list[str] = []
    for seed in range(20):
        play_game(local, ["random", "random"], seed, lambda _s, _m, said: messages.extend(said))
        rolls = [m for m in messages if m.startswith("Combat Results Table")]
        if rolls:
            assert all(m.endswith("→ defender Step loss (1).") for m in rolls), rolls
            return
    raise AssertionError("no close combat in 20 games")


def test_a_local_file_holds_only_table_overrides(tmp_path):
    path = write(tmp_path, PRINTED + '\nside green "Green" {\n    friendly_edge west\n}\n')
    with pytest.raises(CompileError) as err:
        load_game(RULESETS / "training", {"local_charts": path})
    message = str(err.value)
    assert f"{LOCAL_CHARTS}:11:1" in message
    assert "`override table` declarations only" in message


def test_a_mistake_in_the_local_file_is_reported_with_its_place(tmp_path):
    path = write(
        tmp_path, PRINTED.replace("-/1   -/1   -/1   -/1   -/1", "-/1   -/1   -/X   -/1   -/1")
    )
    with pytest.raises(CompileError) as err:
        load_game(RULESETS / "training", {"local_charts": path})
    assert f"{LOCAL_CHARTS}:7:27" in str(err.value)
    assert "no result has code 'X'" in str(err.value)


def test_local_chart_files_are_never_committed():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "rulesets/**/*.local.mst" in ignored
    assert LOCAL_CHARTS.endswith(".local.mst")
