"""`muster simulate`: seeds from the run and the index, identical tables on any scheduler."""

from __future__ import annotations

import json
import math

import pytest

from engine.balance import table, wilson
from engine.simulate import game_seed, run_local, task_at, tasks
from muster import simulation
from muster.cli import main
from muster.simulation import simulate

RUN = dict(games=6, bots="heuristic,random", seed=9, swap=True)


def test_wilson_intervals():
    low, high = wilson(5, 10)
    assert math.isclose(low, 0.2366, abs_tol=1e-4) and math.isclose(high, 0.7634, abs_tol=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and math.isclose(high, 0.2775, abs_tol=1e-4)
    low, high = wilson(80, 100)
    assert math.isclose(low, 0.7112, abs_tol=1e-4) and math.isclose(high, 0.8666, abs_tol=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_game_seeds_come_from_the_run_seed_and_the_index():
    a = tasks(9, 6, ("heuristic", "random"), swap=True)
    assert [t.seed for t in a] == [game_seed(9, i // 2) for i in range(6)]
    assert a[0].seed == a[1].seed and a[0].bots == ("heuristic", "random")
    assert a[1].bots == ("random", "heuristic") and a[1].swapped
    assert len({t.seed for t in a}) == 3
    assert game_seed(9, 0) != game_seed(10, 0)


@pytest.fixture(scope="module")
def on_one_process() -> dict:
    return simulate("training", {}, jobs=1, **RUN)


def test_a_report_counts_every_game(on_one_process):
    r = on_one_process
    assert r["games"] == 6
    assert sum(o["count"] for o in r["outcomes"].values()) == 6
    assert sum(r["decided_by"].values()) == 6
    assert set(r["bots"]) == {"heuristic", "random"}
    # Each bot as each side, among the games it played that side (seeds both ways).
    sides = r["bot_sides"]
    assert set(sides) == {f"{b} as {s}" for b in ("heuristic", "random") for s in ("blue", "red")}
    for b in ("heuristic", "random"):
        assert sum(sides[f"{b} as {s}"]["count"] for s in ("blue", "red")) == r["bots"][b]["count"]
    for s in ("blue", "red"):
        # A side's wins are its two bots' wins as that side, each out of its 3 games.
        as_s = [sides[f"{b} as {s}"] for b in ("heuristic", "random")]
        assert sum(o["count"] for o in as_s) == r["sides"][s]["count"]
        assert all(o["share"] == round(o["count"] / 3, 4) for o in as_s)
    assert "bot heuristic as red wins" in table(r)
    assert r["final"]["vp"]["red"]["min"] >= 0
    assert len(r["over_turns"]["vp"]["red"]) >= 2


def test_two_processes_give_the_same_table(on_one_process):
    two = simulate("training", {}, jobs=2, **RUN)
    assert table(two) == table(on_one_process)
    assert json.dumps(two, sort_keys=True) == json.dumps(on_one_process, sort_keys=True)


@pytest.mark.slow
def test_a_dask_cluster_gives_the_same_table(on_one_process):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        on_cluster = simulate("training", {}, cluster=cluster.scheduler_address, **RUN)
    assert table(on_cluster) == table(on_one_process)
    assert json.dumps(on_cluster, sort_keys=True) == json.dumps(on_one_process, sort_keys=True)


def test_the_command_writes_a_report_and_plots(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "report"
    code = main(
        [
            "simulate",
            "training",
            "--games",
            "2",
            "--bots",
            "random,heuristic",
            "--seed",
            "4",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "95 % interval" in text and "decided by:" in text
    report = json.loads((out / "training_skirmish.json").read_text(encoding="utf-8"))
    assert report["games"] == 2 and report["bots_given"] == "random,heuristic"
    for name in ("training_skirmish_outcomes.png", "training_skirmish_over_turns.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_bad_bot_is_a_usage_error(capsys):
    assert main(["simulate", "training", "--games", "1", "--bots", "random,clever"]) == 2
    assert "unknown bot 'clever'" in capsys.readouterr().err
    assert main(["play", "training", "--bots", "random"]) == 2
    assert "one per side" in capsys.readouterr().err


def test_a_run_cut_short_resumes_from_its_journal(on_one_process, tmp_path):
    journal = tmp_path / "run.jsonl"
    first = simulate("training", {}, jobs=1, **{**RUN, "games": 4}, journal=journal)
    assert first["games"] == 4
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 4 and json.loads(lines[0])["journal"]["seed"] == RUN["seed"]
    # The run was cut off while a fifth game was being written.
    with journal.open("a", encoding="utf-8") as f:
        f.write('{"index": 4, "seed"')
    resumed = simulate("training", {}, jobs=2, **RUN, journal=journal)
    assert json.dumps(resumed, sort_keys=True) == json.dumps(on_one_process, sort_keys=True)
    records = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()[1:]]
    assert sorted(r["index"] for r in records) == list(range(6))


def test_a_journal_plays_no_game_twice(tmp_path, monkeypatch):
    journal = tmp_path / "run.jsonl"
    simulate("training", {}, jobs=1, **RUN, journal=journal)
    played = []

    def run_local(factory, todo, jobs):
        played.extend(todo)
        return iter(())

    monkeypatch.setattr(simulation, "run_local", run_local)
    again = simulate("training", {}, jobs=1, **RUN, journal=journal)
    assert played == [] and again["games"] == 6


def test_a_journal_of_another_run_is_refused(tmp_path, capsys):
    journal = tmp_path / "run.jsonl"
    simulate("training", {}, jobs=1, **{**RUN, "games": 2}, journal=journal)
    before = journal.read_text(encoding="utf-8")
    argv = ["simulate", "training", "--games", "2", "--seed", "10", "--quiet"]
    assert main([*argv, "--journal", str(journal)]) == 1  # bad input, not bad use
    err = capsys.readouterr().err
    assert "the journal of another run" in err and "seed" in err and str(journal) in err
    assert journal.read_text(encoding="utf-8") == before
    journal.write_text("not json\n", encoding="utf-8")
    assert main([*argv, "--journal", str(journal)]) == 1
    assert f"{journal}:1: not a journal" in capsys.readouterr().err


def _damaged(lines: list[str], how: str) -> list[str]:
    """The journal's lines with its first game record damaged one way."""
    record = json.loads(lines[1])
    damages = {
        "negative index": lambda r: {**r, "index": -1},
        "index as a flag": lambda r: {**r, "index": True},
        "another seed": lambda r: {**r, "seed": r["seed"] + 1},
        "no winner field": lambda r: {k: v for k, v in r.items() if k != "winner"},
        "a field too many": lambda r: {**r, "cheat": 1},
        "winner not a side": lambda r: {**r, "winner": "martians"},
        "final not numbers": lambda r: {**r, "final": {"vp": "lots"}},
        "by_turn not a list": lambda r: {**r, "by_turn": 7},
        "a list for a record": lambda r: [r],
        "other bots": lambda r: {**r, "bots": {s: "mcts:1" for s in r["bots"]}},
    }
    return [lines[0], json.dumps(damages[how](record)), *lines[2:]]


@pytest.mark.parametrize(
    "how",
    [
        "negative index",
        "index as a flag",
        "another seed",
        "no winner field",
        "a field too many",
        "winner not a side",
        "final not numbers",
        "by_turn not a list",
        "a list for a record",
        "other bots",
    ],
)
def test_a_damaged_journal_is_refused_with_its_line(tmp_path, capsys, how):
    """A journal is input: a record that is not the game its index names is
    refused at its line with status 1, never summed into a report (status 3
    or a 301st game of 300 before)."""
    journal = tmp_path / "run.jsonl"
    simulate("training", {}, jobs=1, **{**RUN, "games": 2}, journal=journal)
    lines = journal.read_text(encoding="utf-8").splitlines()
    journal.write_text("\n".join([*_damaged(lines, how), ""]), encoding="utf-8")
    before = journal.read_bytes()
    argv = ["simulate", "training", "--games", "2", "--seed", "9", "--swap"]
    code = main([*argv, "--bots", "heuristic,random", "--quiet", "--journal", str(journal)])
    err = capsys.readouterr().err
    assert code == 1 and f"{journal}:2: " in err and "internal error" not in err, err
    assert journal.read_bytes() == before


def test_a_journal_that_is_not_utf8_is_named(tmp_path, capsys):
    journal = tmp_path / "run.jsonl"
    journal.write_bytes(b"\xff\xfe not text\n")
    argv = ["simulate", "training", "--games", "1", "--quiet", "--journal", str(journal)]
    assert main(argv) == 1
    assert f"{journal}: not UTF-8 text" in capsys.readouterr().err


def test_the_journal_rewrite_never_touches_a_users_file(tmp_path):
    """The rewrite goes through a file made for it alone: a user's file that
    happens to be called `<journal>.new` is neither overwritten nor removed."""
    journal = tmp_path / "run.jsonl"
    mine = tmp_path / "run.jsonl.new"
    mine.write_text("my notes\n", encoding="utf-8")
    simulate("training", {}, jobs=1, **{**RUN, "games": 2}, journal=journal)
    simulate("training", {}, jobs=1, **{**RUN, "games": 3}, journal=journal)
    assert mine.read_text(encoding="utf-8") == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl", "run.jsonl.new"]


def test_a_run_of_any_length_starts_small():
    """`--games 10**9` streams: the tasks are made as processes free up, so an
    endless run yields its first games (it built the whole task list first)."""
    import itertools

    factory = simulation.game_factory("training", {})
    endless = (task_at(9, i, ("random", "random"), False) for i in itertools.count())
    first = list(itertools.islice(run_local(factory, endless, 2), 3))
    assert len(first) == 3 and {g["index"] for g in first} <= set(range(4 + 3))


def test_a_run_compiles_the_ruleset_once(on_one_process, tmp_path, monkeypatch):
    """The parent compiles the ruleset once and ships the generated package's
    text; neither it nor the workers compile again (the count is kept in a
    file, which forked workers write to as well)."""
    import compiler.build
    import compiler.check

    count = tmp_path / "compilations"
    count.write_text("", encoding="utf-8")
    compile_ruleset = compiler.check.compile_ruleset

    def counted(*args, **kwargs):
        with count.open("a", encoding="utf-8") as f:
            f.write("compiled\n")
        return compile_ruleset(*args, **kwargs)

    for module in (simulation, compiler.build, compiler.check):
        monkeypatch.setattr(module, "compile_ruleset", counted)
    two = simulate("training", {}, jobs=2, **RUN)
    assert count.read_text(encoding="utf-8").splitlines() == ["compiled"]
    assert json.dumps(two, sort_keys=True) == json.dumps(on_one_process, sort_keys=True)
