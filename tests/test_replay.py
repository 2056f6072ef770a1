"""Logs replay to the same final state, in any process, and catch tampering."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from compiler.cli import main
from tests.conftest import ROOT


def play_logged(tmp_path, first_seed: int) -> str:
    """The log of the first game from `first_seed` on in which a die is rolled."""
    log = tmp_path / "game.jsonl"
    for seed in range(first_seed, first_seed + 50):
        assert main(["play", "training", "--seed", str(seed), "--log", str(log), "--quiet"]) == 0
        if any(line.get("player") == "chance" for line in read_lines(log)):
            return str(log)
    raise AssertionError("no game with a die roll")


def read_lines(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(x) for x in f]


def run_replay(log: str, hashseed: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    return subprocess.run(
        [sys.executable, "-m", "compiler.cli", "replay", log],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )


def test_log_format(tmp_path):
    log = play_logged(tmp_path, 5)
    lines = read_lines(log)
    header, moves, end = lines[0], lines[1:-1], lines[-1]
    assert header["type"] == "header" and header["ruleset"] == "training"
    assert len(header["rules_hash"]) == 64
    assert end["type"] == "end" and end["moves"] == len(moves)
    assert all({"move", "player", "action", "text"} <= set(m) for m in moves)
    assert any(m["player"] == "chance" for m in moves)


def test_replay_in_another_process_with_another_hash_seed(tmp_path):
    log = play_logged(tmp_path, 11)
    for hashseed in ("0", "12345"):
        done = run_replay(log, hashseed)
        assert done.returncode == 0, done.stderr
        assert "final state matches" in done.stdout


def test_a_changed_die_fails_replay(tmp_path):
    log = play_logged(tmp_path, 11)
    lines = read_lines(log)
    for line in lines:
        if line.get("player") == "chance":
            line["action"] = (line["action"] + 5) % 10
            break
    else:
        raise AssertionError("the game rolled no die")
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    done = run_replay(str(tampered), "0")
    assert done.returncode == 1
    assert "replay failed" in done.stderr
