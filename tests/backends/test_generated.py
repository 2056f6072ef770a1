"""Generated engines are committed, current and byte-for-byte reproducible."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from compiler import ir
from compiler.backends.engine_codegen import generate
from compiler.build import shipped_battles
from compiler.check import compile_ruleset
from tests.conftest import ROOT

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


@pytest.mark.parametrize("name", shipped_battles())
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
