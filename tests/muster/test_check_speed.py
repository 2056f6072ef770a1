"""What keeps `muster check` fast: no map libraries imported, Lark's tables cached.

Timing itself is measured in benchmarks/bench_check.py, never asserted here.
"""

from __future__ import annotations

import os
import subprocess
import sys

from dsl import parse
from tests.conftest import RULESETS

HEAVY = ("shapely", "networkx", "numpy")


def test_check_imports_no_map_library():
    code = (
        "import sys\n"
        "from muster.cli import main\n"
        f"assert main(['check', {str(RULESETS / 'training')!r}]) == 0\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_grammar_cache_is_written_and_read(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    grammar = parse.GRAMMAR.read_text(encoding="utf-8")
    path = parse.grammar_cache(grammar)
    assert isinstance(path, str) and path.startswith(str(tmp_path / "muster"))
    code = "from dsl.parse import parser; parser()"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert os.path.getsize(path) > 1000
    # Another grammar gets another file: worktrees do not overwrite each other.
    assert parse.grammar_cache(grammar + "\n") != path


def test_unwritable_cache_folder_means_no_cache(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert parse.grammar_cache("grammar") is False


def test_corrupt_cache_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = parse.grammar_cache(parse.GRAMMAR.read_text(encoding="utf-8"))
    assert isinstance(path, str)
    with open(path, "wb") as f:
        f.write(b"garbage\n\x80\x04truncated")
    code = (
        "from dsl.parse import parse_text\n"
        "from dsl.diagnostics import Reporter\n"
        "from dsl.source import SourceFiles\n"
        "assert parse_text(SOURCE, 'x.mst', Reporter(SourceFiles())) is not None\n"
    ).replace("SOURCE", repr(SOURCE))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert os.path.getsize(path) > 1000  # rebuilt and written again


SOURCE = (RULESETS / "training" / "ruleset.mst").read_text(encoding="utf-8")
