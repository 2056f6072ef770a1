"""The rule-file fuzzer (`tools/fuzz_rules.py`): its contract check catches
what it must — a crash, an error without its place, a stall — and lets
through what keeps the contract (an error placed in a file that is not
UTF-8); its regression seeds are refused with their place. The long run
(10,000 mutants) is in docs/reliability.md."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

import tools.fuzz_rules as fuzz_rules
from compiler.check import check_ruleset
from dsl.diagnostics import CompileError
from dsl.source import SourceFiles
from tools.fuzz_rules import RULE_SEEDS, Scratch, Tally, check_mutant, fuzz, placed, try_one


@pytest.fixture
def scratch(tmp_path) -> Scratch:
    return Scratch(tmp_path)


def training_file(scratch: Scratch, name: str) -> Path:
    return scratch.root / "rulesets" / "training" / name


def test_every_rule_seed_is_refused_with_its_place(scratch, tmp_path):
    tally = fuzz(scratch, 0, 1, 30.0, tmp_path / "keep")
    assert tally.outcomes == {"seeds refused": len(RULE_SEEDS)}
    assert not tally.breaks


def test_an_error_at_line_zero_or_in_another_file_is_a_break(scratch):
    path = training_file(scratch, "battle.mst")
    path.write_text("ruleset broken\nunit {\n", encoding="utf-8")
    assert check_mutant(scratch.entry("training"), scratch.root, 30.0, Tally()) == "refused"
    with pytest.raises(CompileError) as caught:
        check_ruleset(scratch.entry("training"))
    e = caught.value
    assert placed(e, scratch.root) == []
    first = next(d for d in e.diagnostics if d.severity == "error")
    at_zero = dataclasses.replace(first, span=dataclasses.replace(first.span, line=0))
    elsewhere = dataclasses.replace(first, span=dataclasses.replace(first.span, file="/etc/hosts"))
    beyond = dataclasses.replace(first, span=dataclasses.replace(first.span, line=5))
    for bad in (at_zero, elsewhere, beyond):
        assert placed(CompileError([bad], SourceFiles()), scratch.root), bad.span


def test_a_file_that_is_not_utf8_is_refused_not_a_break(scratch):
    path = training_file(scratch, "battle.mst")
    path.write_bytes(path.read_bytes().replace(b"\n", b"\n\xff", 1))
    assert check_mutant(scratch.entry("training"), scratch.root, 30.0, Tally()) == "refused"


def test_a_crash_is_a_break_and_the_file_is_put_back(scratch, tmp_path, monkeypatch):
    def crash(entry):
        raise ValueError("a bug in the checker")

    monkeypatch.setattr(fuzz_rules, "check_ruleset", crash)
    path = training_file(scratch, "battle.mst")
    before = path.read_bytes()
    tally = Tally()
    try_one(scratch, tally, "mutants", 7, "training", path, "mutated", 30.0, tmp_path / "keep")
    assert tally.outcomes == {"mutants broke": 1}
    assert "ValueError: a bug in the checker" in next(iter(tally.breaks))
    assert path.read_bytes() == before
    assert (tmp_path / "keep" / "mutants-7-battle.mst").read_text() == "mutated"


def test_a_slow_check_is_a_break(scratch, tmp_path):
    tally = Tally()
    path = training_file(scratch, "battle.mst")
    text = path.read_text(encoding="utf-8")
    try_one(scratch, tally, "mutants", 0, "training", path, text, 0.0, tmp_path / "keep")
    assert "the check took" in next(iter(tally.breaks))


def test_two_edits_of_flipped_bytes_compose(scratch):
    rng = random.Random(5)
    text = training_file(scratch, "battle.mst").read_text(encoding="utf-8")
    for _ in range(20):
        text = fuzz_rules.flipped_bytes(rng, text)
    assert text.encode("utf-8", "surrogateescape")


@pytest.mark.slow
def test_a_dozen_mutants_keep_the_contract(scratch, tmp_path):
    """A dozen mutants in the suite, to keep its time short; the long run is
    `python -m tools.fuzz_rules --mutants N`."""
    tally = fuzz(scratch, 12, 2026, 30.0, tmp_path / "keep")
    assert not tally.breaks, tally.first_seen
    assert sum(tally.outcomes.values()) == 12 + len(RULE_SEEDS)
