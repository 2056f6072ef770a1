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
import math
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from engine.errors import BadInput
from engine.simulate import task_at

ENGINE_ROOT = Path(engine.__file__).resolve().parent


class JournalError(BadInput):
    """A journal that cannot be used for this run (the message says why, with its line)."""


def engine_hash() -> str:
    """A hash of the engine's Python source, bots included: the code that plays a seed."""
    digest = hashlib.sha256()
    for path in sorted(ENGINE_ROOT.rglob("*.py")):
        digest.update(path.relative_to(ENGINE_ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class RunShape:
    """What every game record of a run must hold: the run's seed, bots and
    `--swap` (which fix each game's seed and sides), the sides, the values a
    report tracks and the victory levels."""

    seed: int
    bots: tuple[str, str]
    swap: bool
    sides: tuple[str, ...]
    tracked: tuple[str, ...]
    levels: tuple[str, ...]


RECORD_KEYS = frozenset(
    {"index", "seed", "bots", "swapped", "winner", "level", "decided_by", "moves", "turns"}
    | {"final", "by_turn"}
)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _snapshot_problem(value: Any, shape: RunShape) -> str | None:
    """A tracked value per side, each a finite number, or what is wrong."""
    if not isinstance(value, dict) or sorted(value) != sorted(shape.tracked):
        return f"its values are not {', '.join(shape.tracked)}"
    for var, by_side in value.items():
        if not isinstance(by_side, dict) or sorted(by_side) != sorted(shape.sides):
            return f"its {var} is not one number per side"
        for number in by_side.values():
            if isinstance(number, bool) or not isinstance(number, int | float):
                return f"its {var} holds something other than a number"
            if not math.isfinite(number):
                return f"its {var} holds {number}"
    return None


def record_problem(record: Any, shape: RunShape) -> str | None:
    """What is wrong with a journalled game, or None. A record must be the game
    its index names (that game's seed, sides and bots) and hold what a report
    reads, so that a damaged journal is refused rather than summed up."""
    if not isinstance(record, dict):
        return "not a game record"
    if set(record) != RECORD_KEYS:
        missing, extra = sorted(RECORD_KEYS - set(record)), sorted(set(record) - RECORD_KEYS)
        parts = [f"without {', '.join(missing)}"] if missing else []
        parts += [f"with unknown {', '.join(extra)}"] if extra else []
        return "a game record " + "; ".join(parts)
    index = record["index"]
    if not _whole(index):
        return f"a game index must be a whole number from 0, not {index!r}"
    task = task_at(shape.seed, index, shape.bots, shape.swap)
    bots = {shape.sides[p]: spec for p, spec in enumerate(task.bots)}
    expected = {"seed": task.seed, "swapped": task.swapped, "bots": bots}
    for key, value in expected.items():
        if record[key] != value or type(record[key]) is not type(value):
            return f"game {index}'s {key} is not this run's ({value!r})"
    if record["winner"] is not None and record["winner"] not in shape.sides:
        return f"game {index}'s winner {record['winner']!r} is not a side"
    if record["level"] is not None and record["level"] not in shape.levels:
        return f"game {index}'s level {record['level']!r} is not a victory level"
    if not isinstance(record["decided_by"], str):
        return f"game {index}'s decided_by is not text"
    if not (_whole(record["moves"]) and _whole(record["turns"])):
        return f"game {index}'s moves and turns must be whole numbers"
    turns = record["by_turn"]
    if not isinstance(turns, list) or not turns:
        return f"game {index}'s by_turn is not a list of turns"
    for snapshot in [record["final"], *turns]:
        if problem := _snapshot_problem(snapshot, shape):
            return f"game {index}: {problem}"
    return None


def read_journal(path: Path, run: dict[str, Any], shape: RunShape) -> dict[int, dict[str, Any]]:
    """The games a journal holds for this run, by index; {} when there is none yet.
    Anything else than the journal of this run, each record the game it names,
    is refused with its line (`JournalError`)."""
    if not path.exists():
        return {}
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise JournalError(f"{path}: not UTF-8 text (byte {e.start + 1})") from None
    except OSError as e:
        raise JournalError(f"{path}: cannot read the journal ({e.strerror or e})") from None
    lines = text.split("\n")
    _check_header(path, lines[0], run)
    games: dict[int, dict[str, Any]] = {}
    last = max((n for n, line in enumerate(lines) if line.strip()), default=0)
    for n, line in enumerate(lines[1:], start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, a number of thousands of digits
            if n == last:
                break  # cut off while it was being written: that game is played again
            raise JournalError(f"{path}:{n + 1}: not a game record") from None
        if problem := record_problem(record, shape):
            raise JournalError(f"{path}:{n + 1}: {problem}")
        if record["index"] in games:
            raise JournalError(f"{path}:{n + 1}: game {record['index']} is in the journal twice")
        games[record["index"]] = record
    return games


def _check_header(path: Path, line: str, run: dict[str, Any]) -> None:
    """The first line names this run; a journal of another run is never mixed in."""
    try:
        header = json.loads(line)
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, dict) or not isinstance(header.get("journal"), dict):
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


@contextmanager
def journal_writer(
    path: Path, run: dict[str, Any], kept: dict[int, dict[str, Any]]
) -> Iterator[Callable[[dict[str, Any]], None]]:
    """Rewrite the journal with the run's header and the games kept (dropping a
    cut-off line), then give a function that appends each new game as it finishes.
    The rewrite goes through a file of a fresh name in the same folder, made for
    it alone (never a name a user's file may have), then takes the journal's name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, fresh = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps({"journal": run}, sort_keys=True) + "\n")
            for index in sorted(kept):
                f.write(json.dumps(kept[index], sort_keys=True) + "\n")
        os.replace(fresh, path)
    except BaseException:
        Path(fresh).unlink(missing_ok=True)
        raise
    with path.open("a", encoding="utf-8") as f:

        def write(record: dict[str, Any]) -> None:
            f.write(json.dumps(record, sort_keys=True) + "\n")
            f.flush()

        yield write
