"""`muster build` never destroys files: it refuses targets that are not its own,
and a build killed midway leaves the previous output byte for byte as it was."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

from compiler.build import GENERATED, build
from compiler.output_folder import MARKER
from muster.cli import main
from tests.conftest import ROOT, RULESETS


def snapshot(folder) -> dict[str, bytes | str]:
    """Every file, link and folder under `folder` (links by where they point)."""
    out: dict[str, bytes | str] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            if "__pycache__" in rel:
                continue
            if os.path.islink(path):
                out[rel] = "link → " + os.readlink(path)
            elif os.path.isdir(path):
                out[rel] = f"folder {stat.S_IMODE(os.lstat(path).st_mode):o}"
            else:
                with open(path, "rb") as f:
                    out[rel] = f.read()
    return out


def build_cli(ruleset, out, *extra: str) -> int:
    return main(["build", str(ruleset), "--out", str(out), "--only", "engine", *extra])


def test_an_existing_file_is_refused(tmp_path, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("my notes\n", encoding="utf-8")
    assert build_cli(RULESETS / "training", target) == 1
    err = capsys.readouterr().err
    assert "existing file" in err and err.count("\n") == 1
    assert target.read_text(encoding="utf-8") == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_foreign_folder_is_refused(tmp_path, capsys):
    target = tmp_path / "photos"
    target.mkdir()
    (target / "rules.py").write_text("mine\n", encoding="utf-8")
    before = snapshot(tmp_path)
    assert build_cli(RULESETS / "training", target) == 1
    assert f"did not make (it has no {MARKER})" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_a_symlink_is_refused(tmp_path, capsys):
    real = tmp_path / "real"
    build(RULESETS / "training", real, only="engine", progress=False)
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    before = snapshot(tmp_path)
    assert build_cli(RULESETS / "training", link) == 1
    assert "symbolic link" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_another_rulesets_build_is_refused(tmp_path, capsys):
    target = tmp_path / "out"
    build(RULESETS / "training", target, only="engine", progress=False)
    (target / MARKER).write_text(
        (target / MARKER).read_text().replace("'training'", "'other'"), encoding="utf-8"
    )
    before = snapshot(tmp_path)
    assert build_cli(RULESETS / "training", target) == 1
    assert "another ruleset" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_a_shipped_battles_folder_takes_only_that_battle(tmp_path, capsys):
    copy = tmp_path / "training"
    shutil.copytree(RULESETS / "training", copy)  # the same rules, but not the shipped files
    before = snapshot(GENERATED / "training")
    assert build_cli(copy, GENERATED / "training") == 1
    assert "shipped battle 'training'" in capsys.readouterr().err
    assert build_cli(RULESETS / "training", GENERATED / "newtown") == 1
    assert "shipped battle 'newtown'" in capsys.readouterr().err
    assert snapshot(GENERATED / "training") == before
    assert not list(GENERATED.glob(".*.build-*"))


def test_a_rebuild_keeps_what_it_does_not_remake_and_the_folder_mode(tmp_path):
    target = tmp_path / "out"
    build(RULESETS / "training", target, only="engine", progress=False)
    (target / "notes.txt").write_text("mine\n", encoding="utf-8")
    (target / "sub").mkdir()
    (target / "sub" / "data.bin").write_bytes(b"\x00\x01")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n", encoding="utf-8")
    (target / "to-outside").symlink_to(outside)
    os.chmod(target, 0o750)
    build(RULESETS / "training", target, only="engine", progress=False)
    assert (target / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert (target / "sub" / "data.bin").read_bytes() == b"\x00\x01"
    assert os.readlink(target / "to-outside") == str(outside)  # a link, not a copy
    assert outside.read_text(encoding="utf-8") == "outside\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "outside.txt"]


def test_a_build_killed_midway_leaves_the_old_output_intact(tmp_path):
    target = tmp_path / "out"
    build(RULESETS / "training", target, only="engine", progress=False)
    (target / "rules.py").write_text("# the previous build\n", encoding="utf-8")
    before = snapshot(target)
    child = subprocess.Popen(
        [sys.executable, "-m", "muster.cli", "build", "training", "--out", str(target)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    killed_in = None
    try:
        while time.monotonic() < deadline and child.poll() is None:
            # Kill once the new build has written its engine and is on the print parts.
            written = [p for p in tmp_path.glob(".out.build-*") if (p / "rules.py").exists()]
            if written:
                child.send_signal(signal.SIGKILL)
                killed_in = written[0]
                break
            time.sleep(0.005)
    finally:
        child.wait()
    assert killed_in is not None, "the build ended before it could be killed"
    assert snapshot(target) == before
    # The next build clears what the killed one left and completes.
    build(RULESETS / "training", target, only="engine", progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert (target / "rules.py").read_text(encoding="utf-8") != "# the previous build\n"


@pytest.mark.parametrize("only", ["engine", None])
def test_a_failed_build_changes_nothing(tmp_path, only):
    target = tmp_path / "out"
    build(RULESETS / "training", target, only="engine", progress=False)
    before = snapshot(tmp_path)
    broken = tmp_path / "broken"
    shutil.copytree(RULESETS / "training", broken)
    text = (broken / "battle.mst").read_text(encoding="utf-8")
    (broken / "battle.mst").write_text(text.replace('short "Guard"', "short 7", 1), "utf-8")
    args = ["build", str(broken), "--out", str(target)] + (["--only", only] if only else [])
    assert main(args) == 1
    shutil.rmtree(broken)
    assert snapshot(tmp_path) == before
