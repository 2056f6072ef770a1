"""The command line's error contract: 1 for bad input, 2 for bad command use,
3 only for a bug, each with one line on stderr and no traceback."""

from __future__ import annotations

import os

import pytest

from muster import check
from muster.cli import main
from tests.conftest import training_failing_in_combat


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

    monkeypatch.setattr(check, "cmd_check", broken)
    assert main(["check", "training"]) == 3
    assert "internal error (KeyError" in one_line(capsys)


def test_the_map_commands_import_without_a_cycle():
    """`muster map`, `los` and `path` import the map renderer first: it once
    reached the print-and-play package (for its fonts) whose start imports the
    renderer, an internal error for every call. A fresh interpreter shows it."""
    import subprocess
    import sys

    for module in ("muster.map_commands", "compiler.backends.map_render"):
        done = subprocess.run(
            [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "training", "--games", "0"],
        ["simulate", "training", "--games", "-1"],
        ["simulate", "training", "--jobs", "-3"],
        ["soak", "training", "--games", "0"],
        ["map", "training", "--dpi", "0"],
        ["table", "training", "--port", "99999"],
        ["build", "training", "--out", ""],
        ["simulate", "training", "--out", " "],
    ],
)
def test_counts_ports_and_folders_out_of_range_are_bad_command_use(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument" in err and "Traceback" not in err


def test_files_the_user_names_that_are_no_text_are_one_line(capsys, tmp_path):
    utf16 = tmp_path / "rulebook.txt"
    utf16.write_bytes("§ 1.0 words".encode("utf-16"))
    counts = tmp_path / "counts.json"
    counts.write_text("[1]", encoding="utf-8")
    cases = [
        (["--rulebook", "/dev/zero"], "/dev/zero: the rulebook is not a regular file"),
        (["--rulebook", str(tmp_path)], "the rulebook is not a regular file"),
        (["--rulebook", str(utf16)], "rulebook.txt: the rulebook is not UTF-8 text (byte 1)"),
    ]
    rulebook = tmp_path / "book.txt"
    rulebook.write_text("§ 1.0 Words\n", encoding="utf-8")
    cases.append(
        (
            ["--rulebook", str(rulebook), "--documents", "series", "--soak", str(counts)],
            "counts.json: not the firing counts of a soak of training",
        )
    )
    for args, words in cases:
        assert main(["coverage", "training", *args]) == 1, args
        assert words in one_line(capsys)


def test_a_log_that_cannot_be_written_names_its_file(capsys, tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    assert main(["play", "training", "--quiet", "--log", "/dev/full"]) == 1
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith("muster: /dev/full: cannot write the log"), err


def test_a_report_folder_that_is_a_file_is_refused_before_playing(capsys, tmp_path):
    taken = tmp_path / "report"
    taken.write_text("mine", encoding="utf-8")
    assert main(["simulate", "training", "--games", "1", "--quiet", "--out", str(taken)]) == 1
    assert "the report's folder is an existing file" in one_line(capsys)
    assert taken.read_text(encoding="utf-8") == "mine"


def test_an_endless_search_budget_is_refused(capsys):
    assert main(["play", "training", "--bots", "mcts:1e999s,random", "--quiet"]) == 2
    assert "mcts budget '1e999s'" in one_line(capsys)


@pytest.mark.slow
def test_a_table_save_or_log_that_is_no_save_is_one_line_naming_it(capsys, tmp_path, training):
    pytest.importorskip("starlette")  # the `table` extra
    import json

    from engine.save import to_json

    save = to_json(training.new_initial_state())
    bad = {
        "a list": [1],
        "no format": {},
        "humans not a list": {**save, "table": {"humans": "red"}},
        "a side past the last": {**save, "table": {"humans": [7]}},
        "a seed that is text": {**save, "table": {"seed": "7"}},
    }
    for what, doc in bad.items():
        path = tmp_path / "save.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        assert main(["table", "training", "--load", str(path), "--port", "0"]) == 1, what
        assert str(path) in one_line(capsys), what
    log = tmp_path / "log.jsonl"
    log.write_bytes('{"type": "header"}'.encode("utf-16"))
    assert main(["table", "training", "--replay", str(log), "--port", "0"]) == 1
    assert f"{log}: not UTF-8 text (byte 1)" in one_line(capsys)


def test_a_table_save_too_deep_or_too_long_is_bad_input_naming_it(capsys, tmp_path, training):
    pytest.importorskip("starlette")  # the `table` extra
    import json

    from engine.save import to_json

    save = json.dumps(to_json(training.new_initial_state()))
    cases = {
        "nested 5,000 deep": ("[" * 5000 + "]" * 5000, "not JSON (nested too deeply)"),
        "nested 900 deep in a variable": (
            save.replace('"turn": 1', '"turn": ' + "[" * 900 + "1" + "]" * 900),
            "$.vars.turn[0]",
        ),
        "a 5,000-digit number": (save.replace('"turn": 1', '"turn": ' + "9" * 5000), "not JSON"),
        "a 4,000-digit seed": (
            save[:-1] + ', "table": {"seed": ' + "9" * 4000 + "}}",
            "its humans or seed are malformed",
        ),
    }
    for what, (text, words) in cases.items():
        assert '"turn": 1' in save
        path = tmp_path / "save.json"
        path.write_text(text, encoding="utf-8")
        assert main(["table", "training", "--load", str(path), "--port", "0"]) == 1, what
        err = one_line(capsys)
        assert f"muster: {path}" in err and words in err, (what, err)
    log = tmp_path / "log.jsonl"
    log.write_text('{"type": "header"}\n' + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    assert main(["table", "training", "--replay", str(log), "--port", "0"]) == 1
    assert f"muster: {log}:2: not JSON (nested too deeply)" in one_line(capsys)


@pytest.mark.parametrize(
    "fault, words",
    [
        (ValueError("a bug"), "internal error (ValueError: a bug)"),
        (OSError(2, "No such file or directory", "/usr/share/muster/x"), "internal error (FileN"),
        (PermissionError(13, "Permission denied", "generated/training/rules.py"), "internal e"),
        (OSError("no file at all"), "internal error (OSError"),
    ],
)
def test_a_value_or_os_error_that_is_no_bad_input_is_a_bug(capsys, monkeypatch, fault, words):
    """Only a `BadInput`, or an OSError about a file the user named, is status 1:
    anything else (Muster's own files, an internal ValueError) is status 3."""

    def broken(args):
        raise fault

    monkeypatch.setattr(check, "cmd_check", broken)
    assert main(["check", "training"]) == 3
    assert words in one_line(capsys)


def test_an_os_error_about_a_file_the_user_named_is_bad_input(capsys, monkeypatch, tmp_path):
    named = tmp_path / "mine"
    for failed in (named, named / "inside" / "x.mst", tmp_path / ".mine.build-1234"):

        def broken(args, failed=failed):
            raise PermissionError(13, "Permission denied", str(failed))

        monkeypatch.setattr(check, "cmd_check", broken)
        assert main(["check", str(named)]) == 1
        assert one_line(capsys) == f"muster: {failed}: Permission denied\n"
    assert main(["map", "training", "-o", "/proc/x.png"]) == 1
    assert "muster: /proc/.x.png." in one_line(capsys)


def test_every_error_that_means_bad_input_is_a_bad_input():
    from engine.bots import BotSpecError
    from engine.errors import BadInput
    from engine.game import ParamsError, SetupError
    from engine.play import ReplayError
    from engine.save import SaveError
    from muster.journal import JournalError
    from muster.scaffold import ScaffoldError

    for error in (BotSpecError, ParamsError, SetupError, ReplayError, SaveError, JournalError):
        assert issubclass(error, BadInput), error
    assert issubclass(ScaffoldError, BadInput)


def test_a_soak_count_file_that_is_not_json_names_its_place(capsys, tmp_path):
    counts = tmp_path / "counts.json"
    for text, words in (
        ("{\n oops", f"{counts}:2:2: the soak's firing counts is not JSON"),
        ("[" * 5000 + "]" * 5000, "not JSON (nested too deeply)"),
        ('{"n": ' + "9" * 5000 + "}", "not JSON (Exceeds the limit"),
    ):
        counts.write_text(text, encoding="utf-8")
        book = tmp_path / "book.txt"
        book.write_text("1. Rules\n", encoding="utf-8")
        assert main(["coverage", "training", "--rulebook", str(book), "--soak", str(counts)]) == 1
        assert words in one_line(capsys)


def failing_rule_place(folder, statement: str) -> str:
    """Where the statement planted in the training battle stands: its
    file:line:column, as an error of the rules names it."""
    lines = (folder / "battle.mst").read_text(encoding="utf-8").splitlines()
    line, text = next((n, t) for n, t in enumerate(lines, 1) if statement in t)
    return f"battle.mst:{line}:{text.index(statement) + 1}"


@pytest.mark.parametrize("command", [["play", "--seed", "1"], ["simulate", "--games", "3"]])
@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("let b = lookup(bonus, 5)", "table 'bonus' has no row for 5"),
        ("let b = 1 / (turn - turn)", "division by zero: 1 / 0"),
    ],
)
def test_a_rule_that_fails_in_play_is_bad_input_at_its_line(
    capsys, tmp_path, command, statement, message
):
    """A lookup off a table or a division by zero at run time is the rules'
    fault: exit 1 with the rule's file:line:column and text (it said "internal
    error", exit 3)."""
    folder = training_failing_in_combat(
        tmp_path,
        statement,
        'table bonus "Bonus" {\n    rows strength\n    kind number\n    1..2    1\n}\n',
    )
    assert main([command[0], str(folder), *command[1:]]) == 1
    err = capsys.readouterr().err
    assert f"muster: the rules fail in play: {message}" in err
    assert f"procedure close_combat at {folder / failing_rule_place(folder, statement)}:" in err
    assert f"step bonus: {statement}" in err
    assert "internal error" not in err


def test_a_rule_that_fails_in_a_soak_is_recorded_at_its_line(capsys, tmp_path):
    statement = "let b = 1 / (turn - turn)"
    folder = training_failing_in_combat(tmp_path, statement)
    report = tmp_path / "soak.md"
    assert main(["soak", str(folder), "--games", "1", "--quiet", "--report", str(report)]) == 1
    text = report.read_text(encoding="utf-8")
    assert "| exception | ZeroDivisionError" in text
    assert f"(procedure close_combat at {folder / failing_rule_place(folder, statement)})" in text
    assert "internal error" not in capsys.readouterr().err
