"""The command line's error contract: 1 for bad input, 2 for bad command use,
3 only for a bug, each with one line on stderr and no traceback."""

from __future__ import annotations

import pytest

from compiler import cli
from compiler.cli import main


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("muster: ") and "Traceback" not in err, err
    return err


def test_bad_command_use_is_status_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["replay"])  # argparse: the log is missing
    assert e.value.code == 2
    capsys.readouterr()  # argparse's usage and its error
    assert main(["check", "no/such/ruleset"]) == 2
    assert "no ruleset at" in one_line(capsys)
    assert main(["play", "training", "--bots", "random", "--quiet"]) == 2
    assert "--bots needs 2 bots" in one_line(capsys)


def test_bad_argument_values_are_status_1(capsys, tmp_path):
    assert main(["play", "training", "--scenario", "nonsense", "--quiet"]) == 1
    assert "unknown scenario 'nonsense'" in one_line(capsys)
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 1
    assert "missing.jsonl: cannot read the log" in one_line(capsys)
    assert main(["replay", str(tmp_path)]) == 1  # a folder, not a log
    one_line(capsys)


def test_only_a_bug_is_an_internal_error(capsys, monkeypatch):
    def broken(args):
        raise KeyError("a bug")

    monkeypatch.setattr(cli, "cmd_check", broken)
    assert main(["check", "training"]) == 3
    assert "internal error (KeyError" in one_line(capsys)
