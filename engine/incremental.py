"""Answers kept between decisions, each with the positions it read.

Legal movement steps are asked for every unit at every decision of a
movement phase, and almost none of them change when one unit steps one hex.
A `Remembered` set of answers keeps each answer (the steps of unit 12, whether
unit 12 may move strategically) with what its computation read of the
positions: which units' hexes (`unit_hex[u]`) and which hexes' occupants
(`units_by_hex().get(h)`). Anything else it could read — variables, losses,
statuses, combats, bags, the caller's bindings, the stack — is compared as a
whole (`fingerprint`): when it changed, every answer is forgotten.

At the next decision the units that moved since are found by comparing
positions; an answer is forgotten when it read one of them, or the occupants
of a hex one of them left or entered, or read the positions wholesale
(iterating over `unit_hex` or the index). So an answer is kept only when
nothing it depended on changed; `CHECK` (on in the tests, or with the
environment variable `MUSTER_CHECK_INCREMENTAL=1`) recomputes everything at
every decision as well and raises when the two differ.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from engine.state import State

CHECK = os.environ.get("MUSTER_CHECK_INCREMENTAL", "") not in ("", "0")


class IncrementalMismatch(AssertionError):
    """The remembered answer differs from a full recomputation: a dependency was missed."""


class Reads:
    """What one computation read of the positions (`everything`: it read them all)."""

    __slots__ = ("enemies", "everything", "hexes", "units")

    def __init__(self) -> None:
        self.units: set[int] = set()
        self.hexes: set[int] = set()
        # (hex, side): only the units in the hex that are not of that side were read.
        self.enemies: set[tuple[int, int]] = set()
        self.everything = False

    def include(self, other: Reads) -> None:
        """A question asked inside another: the outer answer read what the inner one did."""
        self.units |= other.units
        self.hexes |= other.hexes
        self.enemies |= other.enemies
        self.everything = self.everything or other.everything


class _WatchedHexes(list):
    """`unit_hex` while a computation runs: it notes the units it is asked about."""

    __slots__ = ("reads",)

    def __init__(self, values: list[int]) -> None:
        super().__init__(values)
        self.reads = Reads()

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, int):
            self.reads.units.add(i if i >= 0 else len(self) + i)
        else:
            self.reads.everything = True
        return list.__getitem__(self, i)

    def __iter__(self) -> Iterator[int]:
        self.reads.everything = True
        return list.__iter__(self)

    def __contains__(self, value: object) -> bool:
        self.reads.everything = True
        return list.__contains__(self, value)

    def __setitem__(self, i: Any, value: Any) -> None:
        raise RuntimeError("a legal-move question moved a unit")


class WatchedIndex(dict):
    """The hex → units index while a computation runs: it notes the hexes it is asked about."""

    __slots__ = ("reads",)

    def __init__(self, index: dict[int, tuple[int, ...]]) -> None:
        super().__init__(index)
        self.reads = Reads()

    def enemies_of(self, side: int) -> _EnemyView:
        """The index for a question about units not of `side` only (`enemies_adjacent`):
        a friendly unit moving in or out of the hexes it reads changes nothing."""
        return _EnemyView(self, side)

    def get(self, h: Any, default: Any = None) -> Any:
        self.reads.hexes.add(h)
        return dict.get(self, h, default)

    def __getitem__(self, h: Any) -> Any:
        self.reads.hexes.add(h)
        return dict.__getitem__(self, h)

    def __contains__(self, h: object) -> bool:
        self.reads.hexes.add(h)  # type: ignore[arg-type]
        return dict.__contains__(self, h)

    def __iter__(self) -> Iterator[int]:
        self.reads.everything = True
        return dict.__iter__(self)

    def keys(self) -> Any:
        self.reads.everything = True
        return dict.keys(self)

    def values(self) -> Any:
        self.reads.everything = True
        return dict.values(self)

    def items(self) -> Any:
        self.reads.everything = True
        return dict.items(self)


class _EnemyView:
    __slots__ = ("index", "side")

    def __init__(self, index: WatchedIndex, side: int) -> None:
        self.index = index
        self.side = side

    def get(self, h: int, default: Any = None) -> Any:
        self.index.reads.enemies.add((h, self.side))
        return dict.get(self.index, h, default)


def fingerprint(s: State) -> tuple:
    """Everything but the positions that a rule expression can read, compared as a whole."""
    frames = s.stack
    return (
        tuple(s.vars.items()),
        tuple(s.unit_loss),
        tuple(s.unit_status),
        tuple(
            (
                c.side,
                c.attackers,
                c.defenders,
                c.attack_hexes,
                c.defense_hexes,
                c.resolved,
                c.diverted,
            )
            for c in s.combats
        ),
        tuple(s.bags.items()),
        tuple(s.drawn.items()),
        frozenset(s.fired),
        tuple((f.proc, f.pc, f.prim) for f in frames),
        tuple(frames[-2].b.items()) if len(frames) > 1 else (),
    )


class Remembered:
    """Answers of one kind of question (one call site) for one state, and what they read.

    `readers` is the inverse of the reads: for each thing read — ("unit", u),
    ("hex", h), ("enemies", h, side) or "everything" — the questions whose
    answers read it, so that a move forgets exactly those. A clone of a state
    shares its `Remembered` until either asks again, when the asker takes a
    copy: answers never leak between states.
    """

    __slots__ = (
        "answers",
        "fingerprint",
        "index",
        "owner",
        "positions",
        "readers",
        "reading",
        "site",
        "watched",
    )

    def __init__(self, owner: State, site: Hashable) -> None:
        self.owner = owner
        self.site = site
        self.fingerprint: tuple | None = None
        self.positions: tuple[int, ...] = ()
        self.answers: dict[Hashable, tuple[Any, Reads]] = {}
        self.readers: dict[Hashable, list[Hashable]] = {}
        self.watched: _WatchedHexes | None = None
        self.index: WatchedIndex | None = None
        self.reading: Reads | None = None  # the reads of the question being computed

    def _copy_for(self, owner: State) -> Remembered:
        other = Remembered(owner, self.site)
        other.fingerprint = self.fingerprint
        other.positions = self.positions
        other.answers = dict(self.answers)
        other.readers = {k: list(v) for k, v in self.readers.items()}
        return other

    def _forget(self, read: Hashable) -> None:
        for key in self.readers.pop(read, ()):
            self.answers.pop(key, None)

    def _catch_up(self, s: State) -> None:
        """Forget what the changes since the last question may have changed."""
        key = fingerprint(s)
        positions = tuple(s.unit_hex)
        if key != self.fingerprint:
            self.answers.clear()
            self.readers.clear()
        elif positions != self.positions:
            units = s.game.rules.units
            sides = range(len(s.game.rules.sides))
            self._forget("everything")
            for u, (was, now) in enumerate(zip(self.positions, positions, strict=True)):
                if was == now:
                    continue
                self._forget(("unit", u))
                mover = units[u].side
                for h in (was, now):
                    self._forget(("hex", h))
                    for side in sides:
                        if side != mover:
                            self._forget(("enemies", h, side))
        self.fingerprint = key
        self.positions = positions
        self.watched = None
        self.index = None

    def ask(self, s: State, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The answer to question `key`: remembered, or computed now while noting its reads.

        A question may ask others while it is computed (a unit's steps ask for
        each direction): it then depends on what they read, remembered or not.
        """
        outer = self.reading
        found = self.answers.get(key)
        if found is not None:
            if outer is not None:
                outer.include(found[1])
            return found[0]
        if self.watched is None or self.index is None:
            self.index = WatchedIndex(s.units_by_hex())
            self.watched = _WatchedHexes(s.unit_hex)
        reads = self.reading = self.watched.reads = self.index.reads = Reads()
        real_hexes = s.unit_hex
        if outer is None:
            s.unit_hex = self.watched
            s._watched = self.index
        try:
            value = compute()
        finally:
            self.reading = outer
            if outer is None:
                s.unit_hex = real_hexes
                s._watched = None
            else:
                self.watched.reads = self.index.reads = outer
                outer.include(reads)
        self.answers[key] = (value, reads)
        readers = self.readers
        if reads.everything:
            readers.setdefault("everything", []).append(key)
        for u in reads.units:
            readers.setdefault(("unit", u), []).append(key)
        for h in reads.hexes:
            readers.setdefault(("hex", h), []).append(key)
        for h, side in reads.enemies:
            readers.setdefault(("enemies", h, side), []).append(key)
        return value


def remembered(s: State, site: Hashable) -> Remembered:
    """The state's remembered answers for call site `site`, caught up with the position."""
    memo = s._remembered
    if memo is None or memo.site != site:
        memo = Remembered(s, site)
    elif memo.owner is not s:
        memo = memo._copy_for(s)
    s._remembered = memo
    memo._catch_up(s)
    return memo
