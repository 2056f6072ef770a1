"""The folder a build writes into, made so that a build never destroys files.

Every output writer (the engine package, the print-and-play parts, any
later one) writes into `OutputFolder.path`, a fresh folder beside the
target; only when the whole build has succeeded is it swapped in for the
target, in one atomic exchange where the system has one (Linux
`renameat2`). A build that fails or is killed at any point leaves the
previous output as it was (a killed build may leave its unfinished
`.<name>.build-*` folder beside it, which the next build removes).

A target is refused unless it is absent, an empty folder, or a folder an
earlier build made (it holds the marker file `.muster-build` naming the
ruleset): never a file, a symlink, someone else's folder or another
ruleset's build. Files in the old folder that this build does not remake
are carried over unchanged (contents, mode and times; symlinks as symlinks,
never followed), and so are files of the user's inside a remade output:
only files an earlier build wrote (listed in `.muster-files`) are dropped
as stale. The folder keeps its mode.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import shutil
import stat
import tempfile
from pathlib import Path
from types import TracebackType

MARKER = ".muster-build"
# The files the builds wrote into the folder, one per line: only these may
# be removed as stale outputs (not committed: it differs between builds).
MANIFEST = ".muster-files"
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class BuildRefused(Exception):
    """The build would replace or change files that are not its own."""


def marker_text(ruleset: str) -> str:
    return f"Built by `muster build` from the ruleset {ruleset!r}; the next build may replace it.\n"


def _unmarked(target: Path) -> bool:
    """Whether a target is a real folder without the marker of a build."""
    return target.is_dir() and not target.is_symlink() and not (target / MARKER).exists()


def _marker_refusal(target: Path, marker: Path, ruleset: str) -> str | None:
    """A build folder takes a build of the ruleset its marker names, and no other."""
    if marker.read_text(encoding="utf-8", errors="replace") == marker_text(ruleset):
        return None
    return f"{target} holds the build of another ruleset ({MARKER} says so)"


def refusal(target: Path, ruleset: str) -> str | None:
    """Why `target` may not receive a build of `ruleset`, or None when it may."""
    if target.is_symlink():
        return f"{target} is a symbolic link: a build never writes through one"
    if not target.exists():
        return None
    if not target.is_dir():
        return f"{target} is an existing file, not a build folder"
    marker = target / MARKER
    if marker.is_file() and not marker.is_symlink():
        return _marker_refusal(target, marker, ruleset)
    if any(target.iterdir()):
        return f"{target} is a folder that `muster build` did not make (it has no {MARKER})"
    return None


class OutputFolder:
    """A context manager: `with OutputFolder(target, name, remade) as out:` then
    write under `out.path`; on a normal exit the folder replaces `target`.

    `remade` lists the outputs (file or folder paths relative to the target)
    this build makes afresh: old files under them are not carried over.
    `adopt` accepts a folder without the marker (a shipped battle's committed
    `generated/<name>/`, made before markers existed).
    """

    def __init__(
        self, target: Path, ruleset: str, remade: tuple[str, ...], adopt: bool = False
    ) -> None:
        why = refusal(target, ruleset)
        if why is not None and not (adopt and _unmarked(target)):
            raise BuildRefused(why)
        self.target = target
        self.ruleset = ruleset
        self.remade = remade
        self.path = target  # set on entry

    def __enter__(self) -> OutputFolder:
        parent = self.target.parent
        parent.mkdir(parents=True, exist_ok=True)
        self._remove_leftovers(parent)
        self.path = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.build-", dir=parent))
        (self.path / MARKER).write_text(marker_text(self.ruleset), encoding="utf-8")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if kind is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            return
        try:
            self._finish()
        except BaseException:
            shutil.rmtree(self.path, ignore_errors=True)
            raise

    def write(self, name: str, content: str | bytes) -> None:
        """Write one output file (a path relative to the folder, never outside it)."""
        rel = Path(name)
        if rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"an output is written inside its folder, not at {name!r}")
        path = self.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")

    # ------------------------------------------------------------------ swapping

    def _finish(self) -> None:
        written = set(_files(self.path)) - {MARKER}
        if not self.target.exists():
            self._write_manifest(written)
            os.chmod(self.path, 0o777 & ~_umask())
            self.path.rename(self.target)
            return
        ours = self._old_manifest()
        carried = self._carry_over(ours)
        self._write_manifest(written | (carried & ours))
        os.chmod(self.path, stat.S_IMODE(self.target.lstat().st_mode))
        if _exchange(self.path, self.target):
            shutil.rmtree(self.path)  # now the old folder: its files were carried over
            return
        old = self.target.with_name(f".{self.target.name}.build-old")
        if old.exists():
            shutil.rmtree(old)
        self.target.rename(old)
        self.path.rename(self.target)
        shutil.rmtree(old)

    def _old_manifest(self) -> set[str]:
        path = self.target / MANIFEST
        if not path.is_file() or path.is_symlink():
            return set()
        return set(path.read_text(encoding="utf-8", errors="replace").splitlines())

    def _write_manifest(self, names: set[str]) -> None:
        (self.path / MANIFEST).write_text("".join(f"{n}\n" for n in sorted(names)), "utf-8")

    def _carry_over(self, ours: set[str]) -> set[str]:
        """Copy what the old folder holds and this build does not remake: under
        a remade output, only what no earlier build wrote (a file of the
        user's). Returns the files carried over."""
        carried = set()
        for root, dirs, files in os.walk(self.target):
            rel_root = Path(root).relative_to(self.target)
            links = _symlinks(Path(root), dirs)
            for name in [*files, *links]:
                rel = (rel_root / name).as_posix()
                if self._carries(rel, ours) and self._copy_in(Path(root) / name, rel):
                    carried.add(rel)
            dirs[:] = [d for d in dirs if d not in links]  # copied as links, not walked into
        return carried

    def _carries(self, rel: str, ours: set[str]) -> bool:
        """Whether a file of the old folder is one to keep: not the build's own
        bookkeeping, no bytecode, and not a stale output of an earlier build."""
        if rel in (MARKER, MANIFEST) or "__pycache__" in Path(rel).parts:
            return False
        return not (self._is_remade(rel) and rel in ours)

    def _copy_in(self, old: Path, rel: str) -> bool:
        """Copy an old file into the new folder unless this build wrote it; whether copied."""
        new = self.path / rel
        if new.exists() or new.is_symlink():
            return False
        new.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(old, new, follow_symlinks=False)
        return True

    def _is_remade(self, rel: str) -> bool:
        return any(rel == r or rel.startswith(f"{r}/") for r in self.remade)

    def _remove_leftovers(self, parent: Path) -> None:
        """Unfinished folders of killed builds of this target (they hold the marker)."""
        for old in parent.glob(f"{glob.escape('.' + self.target.name)}.build-*"):
            if old.is_dir() and not old.is_symlink() and (old / MARKER).is_file():
                shutil.rmtree(old, ignore_errors=True)


def _symlinks(root: Path, dirs: list[str]) -> list[str]:
    """The directories under `root` that are symbolic links."""
    return [d for d in dirs if (root / d).is_symlink()]


def _files(folder: Path) -> list[str]:
    """Every file (or link) under `folder`, as a relative POSIX path."""
    out = []
    for root, dirs, files in os.walk(folder):
        links = [d for d in dirs if (Path(root) / d).is_symlink()]
        out += [(Path(root, n).relative_to(folder)).as_posix() for n in [*files, *links]]
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders atomically (Linux renameat2); False where unsupported."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    done = renameat2(
        _AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), ctypes.c_uint(_RENAME_EXCHANGE)
    )
    return done == 0
