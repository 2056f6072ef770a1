"""Logs certify a game: any edit is caught at the first line it touches, seeded dice
are drawn again from the seed, and replay reads no file the user did not name."""

from __future__ import annotations

import builtins
import json
import os
import pathlib
import subprocess
import sys

import pytest

from engine.play import PHYSICAL, ReplayError, certify, chained, play_game, read_log, write_log
from muster.cli import main
from tests.conftest import ROOT


@pytest.fixture(scope="session")
def logged(tmp_path_factory) -> tuple[str, list[dict]]:
    """A logged game of the training battle in which dice are rolled, and its lines."""
    folder = tmp_path_factory.mktemp("logs")
    log = folder / "game.jsonl"
    for seed in range(11, 60):
        assert main(["play", "training", "--seed", str(seed), "--log", str(log), "--quiet"]) == 0
        lines = read_lines(log)
        if sum(line.get("player") == "chance" for line in lines) >= 2:
            return str(log), lines
    raise AssertionError("no game with two die rolls")


def read_lines(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(x) for x in f]


def write(tmp_path, lines: list[dict], name: str = "edited.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return str(path)


def rechained(lines: list[dict]) -> list[dict]:
    """The lines with their running hashes recomputed, as a careful forger would."""
    return chained([{k: v for k, v in line.items() if k != "chain"} for line in lines])


def replay_error(training, path: str) -> str:
    with pytest.raises(ReplayError) as e:
        certify(training, read_log(path))
    return str(e.value)


def test_log_format(logged):
    _, lines = logged
    header, moves, end = lines[0], lines[1:-1], lines[-1]
    assert header["type"] == "header" and header["ruleset"] == "training"
    assert header["format"] == "muster.log/2"
    assert len(header["rules_hash"]) == 64
    assert not any("/" in str(v) for v in header["params"].values())  # no paths
    assert end["type"] == "end" and end["moves"] == len(moves)
    assert all({"move", "player", "action", "text", "chain"} <= set(m) for m in moves)
    assert all(m["source"] == "seed" for m in moves if m["player"] == "chance")
    assert all("source" not in m for m in moves if m["player"] != "chance")
    assert len({line["chain"] for line in lines}) == len(lines)


def test_an_untampered_log_certifies(training, logged):
    log, lines = logged
    done = certify(training, read_log(log))
    assert done.finished and done.seeded == sum(m.get("player") == "chance" for m in lines)
    assert done.state.state_hash() == lines[-1]["hash"]


@pytest.mark.slow
def test_replay_in_another_process_with_another_hash_seed(logged):
    log, _ = logged
    for hashseed in ("0", "12345"):
        done = subprocess.run(
            [sys.executable, "-m", "muster.cli", "replay", log],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": hashseed},
            cwd=ROOT,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "final state matches" in done.stdout and "re-derived from the seed" in done.stdout


def edits(lines: list[dict]):
    """Every single edit of the issue: each die, each action, a player, a text,
    the seed; as (file line, edited lines)."""
    for i, line in enumerate(lines):
        if line.get("type") != "move":
            continue
        if line["player"] == "chance":
            yield i + 1, "die", {**line, "action": line["action"] % 6 + 1}
        else:
            yield i + 1, "action", {**line, "action": line["action"] + 1}
    first_move = next(
        i for i, x in enumerate(lines) if x.get("type") == "move" and x["player"] != "chance"
    )
    yield first_move + 1, "player", {**lines[first_move], "player": "chance"}
    yield first_move + 1, "text", {**lines[first_move], "text": lines[first_move]["text"] + "!"}
    yield 1, "seed", {**lines[0], "seed": lines[0]["seed"] + 1}
    yield 1, "bots", {**lines[0], "bots": ["random", "heuristic"]}


def test_every_edit_fails_at_the_line_it_touches(training, logged, tmp_path):
    _, lines = logged
    tried = 0
    for n, what, line in edits(lines):
        if line == lines[n - 1]:
            continue  # the edit changed nothing (a die already at that face)
        edited = [*lines[: n - 1], line, *lines[n:]]
        message = replay_error(training, write(tmp_path, edited))
        assert f"edited.jsonl:{n}:" in message, (what, message)
        assert "running hash" in message, (what, message)
        tried += 1
    assert tried >= len(lines) - 2


def test_a_forger_who_recomputes_the_chain_is_caught_by_the_replay(training, logged, tmp_path):
    """With the running hashes made to match, the replay itself still fails at
    the first bad line: a die the seed does not give, an action that is not
    legal or does not read as its text, a player who does not decide there."""
    _, lines = logged
    first_chance = next(i for i, x in enumerate(lines) if x.get("player") == "chance")
    for n, what, line in edits(lines):
        if line == lines[n - 1] or what == "bots":
            continue  # the bots are the record of who played: any may play any game
        edited = rechained([*lines[: n - 1], line, *lines[n:]])
        message = replay_error(training, write(tmp_path, edited))
        # A changed seed shows at the first die it decides.
        bad = first_chance + 1 if what == "seed" else n
        assert f"edited.jsonl:{bad}:" in message, (what, message)


def test_a_removed_or_damaged_end_line_fails_and_partial_says_so(
    training, logged, tmp_path, capsys
):
    _, lines = logged
    cut = write(tmp_path, lines[:-1], "cut.jsonl")
    assert "no end line" in replay_error(training, cut)
    assert main(["replay", cut]) == 1
    assert "--partial" in capsys.readouterr().err
    half = write(tmp_path, lines[: len(lines) // 2], "half.jsonl")
    assert main(["replay", half, "--partial"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("partial:") and "a game in progress" in out
    for broken in ({"hash": None}, {"hash": 7}, {"hash": "abc"}):
        edited = rechained([*lines[:-1], {**lines[-1], **broken}])
        message = replay_error(training, write(tmp_path, edited))
        assert f":{len(lines)}:" in message and "final hash" in message
    no_hash = rechained([*lines[:-1], {k: v for k, v in lines[-1].items() if k != "hash"}])
    assert "no 'hash'" in replay_error(training, write(tmp_path, no_hash))


def test_physical_rolls_are_logged_as_such_and_taken_on_their_word(training, tmp_path):
    path = str(tmp_path / "physical.jsonl")
    for seed in range(11, 60):
        record = play_game(
            training, ["random", "random"], seed, roll=lambda s: s.legal_actions()[-1]
        )
        write_log(record, path)
        chance = [m for m in read_lines(path) if m.get("player") == "chance"]
        if chance:
            break
    assert chance and all(m["source"] == PHYSICAL for m in chance)
    done = certify(training, read_log(path))
    assert done.physical == len(chance) and done.seeded == 0


def test_a_header_naming_a_file_is_refused_without_reading_it(
    logged, tmp_path, capsys, monkeypatch
):
    _, lines = logged
    secret = tmp_path / "secret.mst"
    secret.write_text("not for replay\n", encoding="utf-8")
    opened: list[str] = []
    real_open, real_read = builtins.open, pathlib.Path.read_bytes

    def spy_open(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    def spy_read(self):
        opened.append(str(self))
        return real_read(self)

    for header in (
        {**lines[0], "params": {"local_charts": str(secret)}},
        {**lines[0], "ruleset": str(secret)},
        {**lines[0], "ruleset": "../../" + secret.stem},
        {**lines[0], "ruleset": "secret"},
    ):
        log = write(tmp_path, rechained([header, *lines[1:]]), "pointing.jsonl")
        monkeypatch.setattr(builtins, "open", spy_open)
        monkeypatch.setattr(pathlib.Path, "read_bytes", spy_read)
        status = main(["replay", log])
        monkeypatch.undo()
        assert status == 1
        err = capsys.readouterr().err
        assert "pointing.jsonl:1:" in err, err
        assert not [p for p in opened if "secret" in p], opened
        opened.clear()


MALFORMED = {
    "empty": b"",
    "whitespace only": b"  \n\t\n",
    "truncated": None,  # filled from the real log below
    "NUL-containing": b'{"type": "header"\x00}\n',
    "non-object": b"[1, 2, 3]\n",
    "a number": b"42\n",
    "deeply nested": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "not UTF-8": b'{"type": "\xff"}\n',
    "old format": b'{"type": "header", "format": "muster.log/1"}\n',
}


def test_malformed_logs_end_in_one_line_and_status_1(logged, tmp_path, capsys):
    log, lines = logged
    text = pathlib.Path(log).read_bytes()
    cases = dict(MALFORMED, truncated=text[: len(text) // 2])
    header = lines[0]
    move = next(x for x in lines if x.get("type") == "move")

    def doc(*edited: dict) -> bytes:
        return "".join(json.dumps(x) + "\n" for x in rechained(list(edited))).encode()

    cases.update(
        {
            "a move without action": doc(header, {k: v for k, v in move.items() if k != "action"}),
            "a float action": doc(header, {**move, "action": float(move["action"])}),
            "a bool action": doc(header, {**move, "action": True}),
            "params not an object": doc({**header, "params": ["rules"]}),
            "a seed that is text": doc({**header, "seed": "11"}),
            "an unknown field": doc({**header, "extra": 1}),
            "an unknown scenario": doc({**header, "params": {"scenario": "nonsense"}}),
            "an unknown rule switch": doc({**header, "params": {"rules": {"nonsense": True}}}),
            "a line after the end": text + b'{"type": "move"}\n',
        }
    )
    for what, data in cases.items():
        path = tmp_path / "bad.jsonl"
        path.write_bytes(data)
        assert main(["replay", str(path)]) == 1, what
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("muster: replay failed:"), (what, err)
        assert str(path) in err and "internal error" not in err, (what, err)


def test_an_endless_file_is_refused(capsys):
    assert main(["replay", "/dev/zero"]) == 1
    err = capsys.readouterr().err
    assert "/dev/zero:1:" in err and err.count("\n") == 1


def test_a_byte_order_mark_is_read_past(training, logged, tmp_path):
    log, _ = logged
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + pathlib.Path(log).read_bytes())
    assert certify(training, read_log(str(path))).finished


def test_a_header_names_known_bots_one_per_side(logged, tmp_path, capsys):
    """The bots are informational (a person's or a search's choice cannot be
    re-derived), but a header names a known bot or `human` for each side."""
    _, lines = logged
    for bots, says in (
        (["random", "nonsense"], "unknown bot 'nonsense'"),
        (["random"], "bots names 1 players; the game has 2 sides"),
        (["human", "random", "random"], "bots names 3 players"),
    ):
        path = write(tmp_path, rechained([{**lines[0], "bots": bots}, *lines[1:]]))
        assert main(["replay", path]) == 1
        err = capsys.readouterr().err
        assert f"{path}:1: " in err and says in err, err
    human = write(tmp_path, rechained([{**lines[0], "bots": ["human", "mcts:50"]}, *lines[1:]]))
    assert main(["replay", human]) == 0


def test_a_field_named_twice_is_refused(logged, tmp_path, capsys):
    """The chain covers the parsed line; a reader keeping the first of two
    values would see another die, so a field named twice is refused."""
    log, lines = logged
    n = next(i for i, x in enumerate(lines) if x.get("player") == "chance")
    text = pathlib.Path(log).read_text(encoding="utf-8").splitlines(keepends=True)
    other = (lines[n]["action"] + 1) % 6
    text[n] = text[n].replace('"action": ', f'"action": {other}, "action": ', 1)
    path = tmp_path / "twice.jsonl"
    path.write_text("".join(text), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert f'{path}:{n + 1}: the field "action" appears twice' in err, err
    nested = rechained([{**lines[0], "params": {}}, *lines[1:]])
    raw = json.dumps(nested[0]).replace('"params": {}', '"params": {"rules": {}, "rules": {}}')
    path.write_text(raw + "\n", encoding="utf-8")
    assert main(["replay", str(path), "--partial"]) == 1
    assert f'{path}:1: the field "rules" appears twice' in capsys.readouterr().err


def test_an_end_line_states_the_outcome(training, logged, tmp_path):
    _, lines = logged
    for key in ("returns", "winner", "level"):
        end = {k: v for k, v in lines[-1].items() if k != key}
        message = replay_error(training, write(tmp_path, rechained([*lines[:-1], end])))
        assert f"edited.jsonl:{len(lines)}: the line has no {key!r}" in message


def test_play_refuses_a_seed_replay_would_refuse(capsys):
    for seed in (str(2**63), str(-(2**63)), "1" * 5000):
        with pytest.raises(SystemExit) as e:
            main(["play", "training", "--seed", seed, "--quiet"])
        assert e.value.code == 2
        assert "expected a whole number between -2**63 and 2**63" in capsys.readouterr().err
