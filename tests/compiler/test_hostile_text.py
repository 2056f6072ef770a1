"""Designer text builds safely: hostile strings stay strings, bad names get diagnostics."""

from __future__ import annotations

import io
import re
import shutil
import tokenize

import pytest

from compiler.backends.engine_codegen import generate
from compiler.build import load_generated
from compiler.check import compile_ruleset
from dsl.diagnostics import CompileError
from muster.cli import main
from tests.conftest import RULESETS

# As written inside a rule file's "…" (quotes escaped), and as it must come out.
HOSTILE = r"\"; import os # \" \n \\ {{ }} ${x} </script>"
DECODED = '"; import os # " \n \\ {{ }} ${x} </script>'
# A question, like `say`, shows `{name}` values: its braces of text are written twice.
QUESTION = HOSTILE.replace("{{ }} ${x}", "{{{{ }}}} ${{x}}")


def hostile_ruleset(tmp_path):
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    battle = folder / "battle.mst"
    text = battle.read_text(encoding="utf-8")
    for old in [
        '"Red Guard"',
        '"Red Army"',
        '"Combat Results Table"',
        '"Defender in woods"',
        '"Miller\'s Mill"',
    ]:
        assert old in text
        text = text.replace(old, '"' + HOSTILE + '"', 1)
    battle.write_text(text, encoding="utf-8")
    patch = folder / "ruleset.mst"
    patch.write_text(patch.read_text().replace('"Withdraw before the roll?"', '"' + QUESTION + '"'))
    return folder


def test_hostile_strings_stay_inside_string_literals(tmp_path):
    rules, _ = compile_ruleset(hostile_ruleset(tmp_path))
    files = generate(rules)
    for name, source in files.items():
        compile(source, name, "exec")
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type not in (tokenize.STRING, tokenize.COMMENT):
                assert "import os" not in tok.string, (name, tok)
                assert "script" not in tok.string, (name, tok)
    assert "import os" in files["rules.py"]  # it is there, as data
    game = load_generated(files, "hostile").load_game()
    red_guard = game.rules.units[game.unit_by_name["red_guard"]]
    assert red_guard.title == DECODED
    assert game.rules.sides[0].title == DECODED
    assert game.rules.tables[0].title == DECODED
    asks = [i for p in game.rules.procedures.values() for i in p.code if type(i).__name__ == "Ask"]
    assert [a.question(None, {}) for a in asks] == [DECODED]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("RedGuard", "not a valid name"),
        ("red-guard", "unexpected"),
        ("rédguard", "unexpected character"),
        ("2nd_foot", "unexpected"),
    ],
)
def test_bad_identifiers_get_a_diagnostic(tmp_path, capsys, name, message):
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    battle = folder / "battle.mst"
    text = battle.read_text(encoding="utf-8")
    battle.write_text(text.replace("unit red_line ", f"unit {name} ", 1), encoding="utf-8")
    with pytest.raises(CompileError) as info:
        compile_ruleset(folder)
    assert message in str(info.value)
    assert main(["check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"battle\.mst:\d+:\d+: error: ", err)
    assert "Traceback" not in err
