"""`muster new` scaffolds a battle that checks clean; `muster check --watch` re-checks
only what changed."""

from __future__ import annotations

import os

import pytest

from compiler.check import check_ruleset
from compiler.load import resolve_ruleset
from muster.cli import main
from muster.scaffold import ScaffoldError, new_battle
from muster.watch import Watcher


def test_new_battle_imports_the_series_and_checks_clean(tmp_path, capsys):
    folder = tmp_path / "mill_creek"
    assert main(["new", "mill_creek", "--dir", str(folder), "--title", "Mill Creek"]) == 0
    out = capsys.readouterr().out
    assert "Mill Creek (mill_creek): ok" in out
    assert "import series" in (folder / "ruleset.mst").read_text()
    assert "TODO" in (folder / "forces.mst").read_text()
    rules, _sources, warnings = check_ruleset(folder)
    assert not rules.library and rules.map is not None and warnings == []
    assert {s.name for s in rules.sides} == {"attacker", "defender"}
    assert any(c.document == "mill_creek" for c in rules.prov.cites)
    # The brief is the battle's own rulebook: coverage reads it.
    assert main(["coverage", str(folder), "--rulebook", str(folder / "brief.txt")]) == 0
    assert "1.1      UNCITED" in capsys.readouterr().out
    # A first language test comes with it, and passes.
    assert "test foot_moves" in (folder / "tests" / "rules.mst").read_text()
    assert main(["test", str(folder)]) == 0
    assert "rules.mst::foot_moves PASSED" in capsys.readouterr().out


def test_new_keeps_nothing_when_the_name_is_a_series_name(tmp_path, capsys):
    """`creek` is a hexside of the series: the battle would not check, so the
    folder is removed and the clash shown."""
    folder = tmp_path / "creek"
    assert main(["new", "creek", "--dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "the first 'creek' is the hexside declared at" in err
    assert "not kept" in err and "choose another name" in err
    assert not folder.exists()


def test_new_refuses_what_it_cannot_write(tmp_path, capsys):
    with pytest.raises(ScaffoldError, match="not a battle name"):
        new_battle("Mill-Creek", tmp_path / "x")
    with pytest.raises(ScaffoldError, match="cannot hold"):
        new_battle("mill", tmp_path / "y", 'The "Mill"')
    (tmp_path / "taken").mkdir()
    assert main(["new", "mill", "--dir", str(tmp_path / "taken")]) == 2
    assert "exists already" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_watch_reparses_only_the_changed_file(tmp_path):
    folder = tmp_path / "mill_creek"
    new_battle("mill_creek", folder)
    watcher = Watcher(resolve_ruleset(folder))
    first = watcher.check()
    assert first.rules is not None and first.parsed > 10  # the battle and the series
    again = watcher.check()
    assert again.parsed == 0 and not watcher.changed()

    victory = folder / "victory.mst"
    good = victory.read_text()
    victory.write_text(good.replace("when yes", "when yess"))
    os.utime(victory, (1, 1))  # a save: a new modification time, however fast the test
    assert watcher.changed()
    broken = watcher.check()
    assert broken.rules is None and broken.parsed == 1
    assert "unknown name 'yess'" in broken.text() and "did you mean 'yes'?" in broken.text()

    victory.write_text(good)
    os.utime(victory, (2, 2))
    fixed = watcher.check()
    assert fixed.rules is not None and fixed.parsed == 1 and "ok" in fixed.text()


def test_watch_reads_an_editors_unsaved_text(tmp_path):
    folder = tmp_path / "mill_creek"
    new_battle("mill_creek", folder)
    watcher = Watcher(resolve_ruleset(folder))
    victory = (folder / "victory.mst").resolve()
    unsaved = victory.read_text().replace("winner defender", "winner nobody")
    report = watcher.check({victory: unsaved})
    assert report.rules is None
    assert any("nobody" in d.message for d in report.diagnostics)
    assert watcher.check().rules is not None  # the file on disk is unchanged
