"""Generated engines are committed, current and byte-for-byte reproducible."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys

import pytest

from compiler import ir
from compiler.backends.engine_codegen import HEX_OF, WRITTEN_OUT, generate
from compiler.check import compile_ruleset
from engine import chance
from engine import queries as q
from tests.conftest import ROOT, SHIPPED_BATTLES

DIGEST = """
import hashlib, sys
from compiler.check import compile_ruleset
from compiler.backends.engine_codegen import generate
files = generate(compile_ruleset(sys.argv[1])[0])
print(hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest())
"""


def checked_rules(name: str, request: pytest.FixtureRequest) -> ir.Ruleset:
    """A shipped battle's checked rules: Monmouth's from the session's fixture (other
    tests share it), the others compiled here."""
    if name == "monmouth":
        return request.getfixturevalue("monmouth_compiled")[0]
    return compile_ruleset(ROOT / "rulesets" / name)[0]


@pytest.mark.parametrize("name", SHIPPED_BATTLES)
def test_committed_engine_is_current(name, request):
    """Every shipped battle's committed `generated/<name>/` is what a fresh build writes."""
    files = generate(checked_rules(name, request))
    for fname, text in files.items():
        path = ROOT / "generated" / name / fname
        assert path.exists(), f"{path} is missing: run `muster build {name}`"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run `muster build {name}`"
        )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["training"])
def test_rebuilding_gives_identical_bytes(name):
    first = generate(compile_ruleset(ROOT / "rulesets" / name)[0])
    second = generate(compile_ruleset(ROOT / "rulesets" / name)[0])
    assert first == second
    here = hashlib.sha256(repr(sorted(first.items())).encode()).hexdigest()
    for hashseed in ("1", "999"):
        done = subprocess.run(
            [sys.executable, "-c", DIGEST, str(ROOT / "rulesets" / name)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": hashseed},
            check=True,
        )
        assert done.stdout.strip() == here


def test_committed_engine_imports_and_plays():
    import generated.training as pkg

    game = pkg.load_game()
    assert game.rules_hash == pkg.RULES_HASH
    s = game.new_initial_state()
    assert s.legal_actions()


def test_written_out_queries_answer_as_the_queries_do():
    """The generated code does a few queries itself (`WRITTEN_OUT`, `HEX_OF`: no
    call): each gives what the query gives, for every unit, hex, side or rule
    switch, in a position 400 random actions into the campaign."""
    import generated.monmouth as pkg
    import generated.monmouth.rules as module

    game = pkg.load_game({"scenario": "campaign"})
    s = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(400):
        s.apply_action(chance.sample(s, 3) if s.is_chance_node() else rng.choice(s.legal_actions()))
    rules = game.rules
    cases = {
        "side": range(len(rules.units)),
        "enemy": range(len(rules.sides)),
        "units_at": range(len(rules.board.neighbors)),
        "rule_on": list(game.switch_on),
        "hex_of": range(len(rules.units)),
    }
    assert set(cases) == {*WRITTEN_OUT, "hex_of"}
    namespace = {**vars(module), "s": s}
    for name, values in cases.items():
        assert values
        for value in values:
            code = HEX_OF if name == "hex_of" else WRITTEN_OUT[name]
            written = eval(code.format(repr(value)), namespace)
            assert written == getattr(q, name)(s, value), (name, value)
