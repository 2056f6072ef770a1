"""Rule files at the edges: bad bytes, bad escapes, huge numbers, deep nesting and
unprintable text each get a diagnostic with file:line:col, never an internal error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from muster.cli import main
from tests.conftest import RULESETS

BATTLE = (RULESETS / "training" / "battle.mst").read_bytes()


def edited(tmp_path, edit) -> str:
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    (folder / "battle.mst").write_bytes(edit(BATTLE))
    return str(folder)


def appended(text: bytes):
    return lambda b: b + b"\n" + text + b"\n"


def line_of(data: bytes, needle: bytes) -> int:
    return data[: data.index(needle)].count(b"\n") + 1


CASES = [
    (
        "bad escape",
        lambda b: b.replace(b'short "Guard"', b'short "Gu\\qard"', 1),
        "unknown escape \\q",
        line_of(BATTLE, b'short "Guard"'),
    ),
    (
        "newline in a short name",
        lambda b: b.replace(b'short "Guard"', b'short "Gu\\nard"', 1),
        "'short' is one line of text",
        line_of(BATTLE, b'short "Guard"'),
    ),
    (
        "a raw control character",
        lambda b: b.replace(b'short "Guard"', b'short "Gu\x07ard"', 1),
        "control character (U+0007)",
        line_of(BATTLE, b'short "Guard"'),
    ),
    (
        "non-UTF-8 bytes",
        lambda b: b.replace(b'short "Guard"', b'short "Gu\xffard"', 1),
        "not UTF-8 text (byte 0xff here)",
        line_of(BATTLE, b'short "Guard"'),
    ),
    (
        "a lone surrogate, encoded",
        lambda b: b.replace(b'short "Guard"', b'short "Gu\xed\xa0\x80ard"', 1),
        "not UTF-8 text",
        line_of(BATTLE, b'short "Guard"'),
    ),
    (
        "an over-long number",
        appended(b'define big "Big" = ' + b"9" * 5000),
        "a number of 5000 digits",
        BATTLE.count(b"\n") + 2,
    ),
    (
        "a 500-term flat expression",
        appended(b'define flat "Flat" = ' + b" + ".join([b"1"] * 500)),
        "nested more than 100 deep",
        BATTLE.count(b"\n") + 2,
    ),
    (
        "an import of a 10,000-character name",
        appended(b'import "' + b"x" * 10000 + b'.mst"'),
        "File name too long",
        BATTLE.count(b"\n") + 2,
    ),
    (
        "2,000 chained nots",
        appended(b'define nots "Nots" = ' + b"not " * 2000 + b"true"),
        "nested more than 100 deep",
        BATTLE.count(b"\n") + 2,
    ),
]


@pytest.mark.parametrize(("what", "edit", "words", "line"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_rule_file_gets_a_located_diagnostic(tmp_path, capsys, what, edit, words, line):
    folder = edited(tmp_path, edit)
    assert main(["check", folder]) == 1
    err = capsys.readouterr().err
    assert words in err
    assert f"battle.mst:{line}:" in err
    assert "internal error" not in err and "Traceback" not in err


def test_a_shallow_long_expression_still_checks(tmp_path, capsys):
    folder = edited(tmp_path, appended(b'define sum90 "Ninety" = ' + b" + ".join([b"1"] * 90)))
    assert main(["check", folder]) == 0, capsys.readouterr().err


def test_the_allowed_escapes_still_read(tmp_path, capsys):
    folder = edited(tmp_path, lambda b: b.replace(b'short "Guard"', b'short "G\\"d\\\\"', 1))
    assert main(["check", folder]) == 0, capsys.readouterr().err
    from compiler.check import compile_ruleset

    rules, _ = compile_ruleset(folder)
    assert any(u.short == 'G"d\\' for u in rules.units)


def test_an_import_of_a_symbolic_link_loop_is_located(tmp_path, capsys):
    folder = edited(tmp_path, appended(b'import "loop_a.mst"'))
    (tmp_path / "training" / "loop_a.mst").symlink_to("loop_b.mst")
    (tmp_path / "training" / "loop_b.mst").symlink_to("loop_a.mst")
    assert main(["check", folder]) == 1
    err = capsys.readouterr().err
    line = BATTLE.count(b"\n") + 2
    assert f"battle.mst:{line}:1: error: cannot look up file 'loop_a.mst'" in err
    assert "internal error" not in err


def test_a_file_cut_before_its_ruleset_line_is_reported_at_the_entry_file(tmp_path, capsys):
    folder = edited(tmp_path, lambda b: b[: b.index(b"ruleset training")])
    assert main(["check", folder]) == 1
    err = capsys.readouterr().err
    assert "ruleset.mst:1:1: error: the ruleset has no ruleset declaration" in err
    assert "<ruleset>" not in err and ":0:0" not in err


def test_an_unreadable_entry_file_is_reported_at_its_start(tmp_path, capsys, monkeypatch):
    folder = edited(tmp_path, lambda b: b)
    entry = (tmp_path / "training" / "ruleset.mst").resolve()
    read_bytes = Path.read_bytes

    def refuse_the_entry(path: Path) -> bytes:
        if path == entry:
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", refuse_the_entry)
    assert main(["check", folder]) == 1
    err = capsys.readouterr().err
    assert "ruleset.mst:1:1: error: cannot read" in err and "Permission denied" in err
    assert "<ruleset>" not in err and "internal error" not in err


def test_a_test_file_not_in_utf8_is_located(tmp_path, capsys):
    folder = edited(tmp_path, lambda b: b)
    tests = tmp_path / "training" / "tests" / "movement.mst"
    tests.write_bytes(b"# a test file\n# caf\xe9\n" + tests.read_bytes())
    assert main(["test", folder]) == 1
    err = capsys.readouterr().err
    assert "movement.mst:2:6: error: the file is not UTF-8 text (byte 0xe9 here)" in err
    assert "codec" not in err and "internal error" not in err
