"""What keeps `muster check` fast: no map libraries imported, Lark's tables shipped.

Timing itself is measured in benchmarks/bench_check.py, never asserted here.
"""

from __future__ import annotations

import os
import subprocess
import sys

from dsl import grammar
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


def test_shipped_parser_tables_are_current():
    """The tables shipped in the package were built from this grammar by this Lark."""
    text = grammar.GRAMMAR.read_text(encoding="utf-8")
    assert grammar.load_tables(grammar.TABLES, text) is not None, (
        f"{grammar.TABLES} is stale: run `python -m dsl.grammar`"
    )


def test_parser_reads_and_writes_nothing_in_home(tmp_path):
    """`muster check` (and replay, which parses the same way) loads the shipped tables:
    it builds no parser and touches neither the home folder nor a cache folder."""
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o500)
    code = (
        "import lark\n"
        "from muster.cli import main\n"
        "lark.Lark.__init__ = None  # building the parser from the grammar would fail\n"
        f"raise SystemExit(main(['check', {str(RULESETS / 'training')!r}]))\n"
    )
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert list(home.iterdir()) == []


def test_stale_or_corrupt_tables_are_not_used(tmp_path):
    text = grammar.GRAMMAR.read_text(encoding="utf-8")
    tables = tmp_path / "tables.pickle"
    grammar.write_tables(tables)
    assert grammar.load_tables(tables, text) is not None
    assert grammar.load_tables(tables, text + "\n") is None  # another grammar
    tables.write_bytes(tables.read_bytes()[:1000])
    assert grammar.load_tables(tables, text) is None
    tables.write_bytes(b"garbage\n\x80\x04truncated")
    assert grammar.load_tables(tables, text) is None
    assert grammar.load_tables(tmp_path / "missing", text) is None
