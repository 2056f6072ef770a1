"""A run's journal: the games of a long `muster simulate` run, kept as they finish.

A balance run of a long scenario takes hours; on a shared machine or a
laptop it is often cut short. With a journal the next run with the same
settings plays only the games still missing, and its report is the one an
uninterrupted run would have made: game i's seed comes from the run's seed
and i alone (engine/simulate.py), so a game played yesterday is the game
that would be played today.

The file is JSON lines. The first line names the run the games belong to:
the rules hash, the scenario's parameters, the bots, the run's seed,
`--swap`, and a hash of the engine's own source (a changed engine or bot may
play a seed differently). Every other line is one game's record. A journal
of another run is refused, never mixed in. A last line cut off while it was
being written is dropped; the game is played again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import engine

ENGINE_ROOT = Path(engine.__file__).resolve().parent


class JournalError(ValueError):
    """A journal that cannot be used for this run (the message says why)."""


def engine_hash() -> str:
    """A hash of the engine's Python source, bots included: the code that plays a seed."""
    digest = hashlib.sha256()
    for path in sorted(ENGINE_ROOT.rglob("*.py")):
        digest.update(path.relative_to(ENGINE_ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def read_journal(path: Path, run: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The games a journal holds for this run, by index; {} when there is none yet."""
    if not path.exists():
        return {}
    lines = path.read_text(encoding="utf-8").split("\n")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise JournalError(f"{path}:1: not a journal of `muster simulate`") from None
    if not isinstance(header, dict) or "journal" not in header:
        raise JournalError(f"{path}:1: not a journal of `muster simulate`")
    if header["journal"] != run:
        differ = sorted(
            k
            for k in run.keys() | header["journal"].keys()
            if header["journal"].get(k) != run.get(k)
        )
        raise JournalError(
            f"{path}: the journal of another run (its {', '.join(differ)} differ); "
            "remove it or name another file"
        )
    games: dict[int, dict[str, Any]] = {}
    last = max((n for n, line in enumerate(lines) if line.strip()), default=0)
    for n, line in enumerate(lines[1:], start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if n == last:
                break  # cut off while it was being written: that game is played again
            raise JournalError(f"{path}:{n + 1}: not a game record") from None
        if not isinstance(record, dict) or not isinstance(record.get("index"), int):
            raise JournalError(f"{path}:{n + 1}: a game record without its index")
        games[record["index"]] = record
    return games


@contextmanager
def journal_writer(
    path: Path, run: dict[str, Any], kept: dict[int, dict[str, Any]]
) -> Iterator[Callable[[dict[str, Any]], None]]:
    """Rewrite the journal with the run's header and the games kept (dropping a
    cut-off line), then give a function that appends each new game as it finishes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = path.with_name(path.name + ".new")
    with fresh.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"journal": run}, sort_keys=True) + "\n")
        for index in sorted(kept):
            f.write(json.dumps(kept[index], sort_keys=True) + "\n")
    os.replace(fresh, path)
    with path.open("a", encoding="utf-8") as f:

        def write(record: dict[str, Any]) -> None:
            f.write(json.dumps(record, sort_keys=True) + "\n")
            f.flush()

        yield write
