"""Answers kept between decisions, each with what of the state it read.

Legal movement steps are asked for every unit at every decision of a
movement phase, and almost none of them change when one unit steps one hex,
nor from one of a side's movement phases to its next. A `Remembered` set of
answers keeps each answer (the steps of unit 12, whether unit 12 may move
strategically) with what its computation read of the state, item by item:
which units' hexes (`unit_hex[u]`), statuses and losses, which hexes'
occupants (`units_by_hex().get(h)`, or only their enemy combat units, for
`enemies_adjacent`), which variables (a per-unit, per-side or per-hex
variable member by member), and whether it looked at the stack of
procedures (`during`). What no question reads item by item — the combats,
the bags, the markers drawn, the triggers fired, the terrain changed in play,
the caller's bindings (a phase's `side`: the same at every decision of a
phase) — is compared as a whole: when it changed, every answer is forgotten.
Noting a read costs a Python call where reading costs none, so what is the
same for every question of a decision (the board as the terrain stands) is
looked up once per decision, not noted.

At the next question the items that changed since are found by comparing
the state with the copy taken last time, and exactly the answers that read
one of them are forgotten (a unit that moved or left the map: its hex and
status, and the occupants of the hexes it left and entered). `CHECK` (on in
the tests, or with the environment variable `MUSTER_CHECK_INCREMENTAL=1`)
recomputes everything at every decision as well and raises when the two
differ.

What was read is noted as integers (`_key`): a kind times `_KIND` plus the
item, so that a computation's reads are one set of small numbers.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from functools import partial
from itertools import compress, count
from operator import attrgetter, is_not, ne
from typing import Any

from engine.state import MAX_SIDES, Occupancy, State
from engine.terrain_state import CHANGED_TERRAIN, board_of

CHECK = os.environ.get("MUSTER_CHECK_INCREMENTAL", "") not in ("", "0")
# Off (`MUSTER_REMEMBER=0`): nothing is kept from one decision to the next, every
# answer is worked out afresh. The benchmark plays its seeds so too, to show
# that what is remembered changes no game.
REMEMBER = os.environ.get("MUSTER_REMEMBER", "1") != "0"

# Kinds of things read; a read is `kind + item` (an item is below `_KIND`).
_KIND = 1 << 32
UNIT_HEX = 0
UNIT_STATUS = 1 * _KIND
UNIT_LOSS = 2 * _KIND
HEX = 3 * _KIND  # the units in a hex
ENEMIES = 4 * _KIND  # the units in a hex not of a side: hex * MAX_SIDES + side
VAR = 5 * _KIND  # a variable as a whole: its name's number
VAR_ITEM = 6 * _KIND  # one member of a per-unit/side/hex variable: name * _ITEMS + index
STACK = 7 * _KIND  # which procedures are under way
EVERYTHING = 8 * _KIND  # the positions wholesale (an iteration over them)
_ITEMS = 1 << 20

# Names of variables, numbered as they are first read.
_NAMES: dict[str, int] = {}


def _name(name: str) -> int:
    found = _NAMES.get(name)
    if found is None:
        found = _NAMES[name] = len(_NAMES)
    return found


class _Keys(dict):
    """Name → the read of that name as a whole (`kind + number`), made when first asked."""

    def __init__(self, kind: int) -> None:
        super().__init__()
        self.kind = kind

    def __missing__(self, name: str) -> int:
        key = self[name] = self.kind + _name(name)
        return key


_VAR_KEYS = _Keys(VAR)


class IncrementalMismatch(AssertionError):
    """The remembered answer differs from a full recomputation: a dependency was missed."""


class _Noted:
    """Where the stand-ins note reads: the set of the question being computed.

    Apart from `_Watch`, which holds the stand-ins, so that nothing they refer
    to refers back to them: a watch no longer used is freed at once by its
    reference count (with its copies of the positions and its occupancy), not
    left to the garbage collector, whose young collections would go over every
    watch made since the last one.
    """

    __slots__ = ("reads",)

    def __init__(self) -> None:
        self.reads: set[int] = set()


class _Watch:
    """The state's stand-ins while a question is computed; `noted.reads` is where
    its reads go."""

    __slots__ = (
        "board",
        "by_side",
        "enemy_reads",
        "hexes",
        "index",
        "kept",
        "loss",
        "neighbors",
        "noted",
        "occupancy",
        "status",
        "status_reads",
        "vars",
    )

    def __init__(self, s: State) -> None:
        # `kept(s, key, compute, *args)`, as `Fixed.kept`: while a question is worked
        # out, the `ask` of its answers, so that `compute(*args)` is asked as a
        # question of its own, which the one being worked out then depends on (and
        # only then: a watch kept by its `Remembered` refers to nothing that refers
        # back to it).
        self.kept: Callable[..., Any] | None = None
        self.noted = noted = _Noted()
        self.neighbors = s.game.rules.board.neighbors
        self.board = board_of(s)  # the terrain changed in play is compared as a whole
        # (hex, side) → what `enemies_adjacent` reads there: the map's, for the game.
        self.enemy_reads: dict[tuple[int, int], frozenset[int]] = s.game.derived.setdefault(
            "enemies_adjacent reads", {}
        )
        # side → what `units_of` reads: the statuses of its units, for the game.
        self.status_reads: dict[int, frozenset[int]] = s.game.derived.setdefault(
            "units_of reads", {}
        )
        self.by_side = s.game.units_by_side
        self.hexes = _WatchedList(s.unit_hex, noted, UNIT_HEX)
        self.status = _WatchedList(s.unit_status, noted, UNIT_STATUS)
        self.loss = _WatchedList(s.unit_loss, noted, UNIT_LOSS)
        self.occupancy = s.occupancy()
        self.index = _WatchedIndex(self.occupancy.index, noted)
        self.vars = _WatchedVars(s.vars, noted, s.game.indexed_variables)

    def read_enemies_around(self, h: int, side: int) -> None:
        """The question read the units not of `side` next to hex h only
        (`enemies_adjacent`): a friendly unit moving in or out changes nothing."""
        found = self.enemy_reads.get((h, side))
        if found is None:
            found = self.enemy_reads[(h, side)] = frozenset(
                ENEMIES + n * MAX_SIDES + side for n in self.neighbors[h] if n >= 0
            )
        self.noted.reads |= found

    def read_statuses(self, side: int) -> None:
        """The question read the status of every unit of `side` (`units_of`)."""
        found = self.status_reads.get(side)
        if found is None:
            found = self.status_reads[side] = frozenset(UNIT_STATUS + u for u in self.by_side[side])
        self.noted.reads |= found

    def read_stack(self) -> None:
        """The question looked at which procedures are under way (`during`)."""
        self.noted.reads.add(STACK)


class Fixed:
    """Stands in for a watch while a primitive works out a decision without
    remembering (the steps of the unit moving now): the positions hold still
    meanwhile, so the occupancy is looked up once, not compared at every question.

    `kept` keeps the answers of the questions a decision asks again and again
    (the restrictions that may bind a unit, its stacking limit alone), by
    key: they read nothing that could change during the decision. A game that
    counts what fires (`Game.firing`) keeps none, so that every asking is
    counted.
    """

    __slots__ = ("answers", "board", "index", "occupancy")

    def __init__(self, s: State) -> None:
        self.occupancy = s.occupancy()
        self.index = self.occupancy.index
        self.board = board_of(s)
        self.answers: dict[Hashable, Any] | None = {} if s.game.firing is None else None

    def kept(self, s: State, key: Hashable, compute: Callable[..., Any], *args: Any) -> Any:
        """`compute(*args)`, worked out once for the decision (`key`)."""
        answers = self.answers
        if answers is None:
            return compute(*args)
        found = answers.get(key, _ABSENT)
        if found is _ABSENT:
            found = answers[key] = compute(*args)
        return found

    def read_enemies_around(self, h: int, side: int) -> None:
        """Nothing is noted."""

    def read_statuses(self, side: int) -> None:
        """Nothing is noted."""

    def read_stack(self) -> None:
        """Nothing is noted."""


def held_still(s: State, compute: Callable[..., Any], *args: Any) -> Any:
    """`compute(*args)` while the positions hold still, nothing remembered (`Fixed`):
    how a primitive works out its decision, or explains one."""
    held = s._watched
    s._watched = Fixed(s)
    try:
        return compute(*args)
    finally:
        s._watched = held


def answered(s: State, site: Hashable, question: Callable[[Any, dict], Any], what: str) -> Any:
    """`question(ask, known)` answered with the answers remembered for `site` (a call
    site and a side): `ask(key, compute, *args)` answers a question of the position,
    `known` holds the answers kept now, looked in first. With `CHECK` on, the
    question is answered afresh as well (nothing remembered) and the two compared."""
    memo = remembered(s, site)
    answer = question(partial(memo.ask, s), memo.answers)
    if CHECK:
        full = question(_afresh, {})
        if full != answer:
            raise IncrementalMismatch(
                f"{what} at move {s.move_number}: remembered {answer} differ from recomputed {full}"
            )
    return answer


def _afresh(key: Hashable, compute: Callable[..., Any], *args: Any) -> Any:
    """An `ask` that remembers nothing: the full recomputation `CHECK` compares with."""
    return compute(*args)


class _WatchedList(list):
    """`unit_hex`, `unit_status` or `unit_loss` while a question is computed."""

    __slots__ = ("kind", "noted", "plain")

    def __init__(self, values: list[int], noted: _Noted, kind: int) -> None:
        super().__init__(values)
        self.noted = noted
        self.kind = kind
        self.plain = values  # read by index as a plain list is (nothing changes meanwhile)

    def __getitem__(self, i: Any) -> Any:
        if type(i) is int and i >= 0:
            self.noted.reads.add(self.kind + i)
        elif type(i) is int:
            self.noted.reads.add(self.kind + len(self) + i)
        else:
            self.noted.reads.add(EVERYTHING)
        return self.plain[i]

    def __iter__(self) -> Iterator[int]:
        self.noted.reads.add(EVERYTHING)
        return list.__iter__(self)

    def __contains__(self, value: object) -> bool:
        self.noted.reads.add(EVERYTHING)
        return list.__contains__(self, value)

    def __eq__(self, other: object) -> bool:
        self.noted.reads.add(EVERYTHING)
        return list.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        self.noted.reads.add(EVERYTHING)
        return list.__ne__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __setitem__(self, i: Any, value: Any) -> None:
        raise RuntimeError("a legal-move question changed the state")


class _WatchedIndex(dict):
    """The hex → units index while a question is computed: it notes the hexes read."""

    __slots__ = ("noted",)

    def __init__(self, index: dict[int, tuple[int, ...]], noted: _Noted) -> None:
        super().__init__(index)
        self.noted = noted

    def get(self, h: Any, default: Any = None) -> Any:
        self.noted.reads.add(HEX + h)
        return dict.get(self, h, default)

    def __getitem__(self, h: Any) -> Any:
        self.noted.reads.add(HEX + h)
        return dict.__getitem__(self, h)

    def __contains__(self, h: object) -> bool:
        self.noted.reads.add(HEX + h)  # type: ignore[operator]
        return dict.__contains__(self, h)

    def __iter__(self) -> Iterator[int]:
        self.noted.reads.add(EVERYTHING)
        return dict.__iter__(self)

    def keys(self) -> Any:
        self.noted.reads.add(EVERYTHING)
        return dict.keys(self)

    def values(self) -> Any:
        self.noted.reads.add(EVERYTHING)
        return dict.values(self)

    def items(self) -> Any:
        self.noted.reads.add(EVERYTHING)
        return dict.items(self)


class _WatchedMapping(dict):
    """A mapping read while a question is computed: going over the whole of it
    (iterating, keys, values, items) reads everything in it."""

    __slots__ = ("noted",)
    noted: _Noted

    def __iter__(self) -> Iterator[str]:
        self.noted.reads.add(EVERYTHING)
        return dict.__iter__(self)

    def keys(self) -> Any:
        self.noted.reads.add(EVERYTHING)
        return dict.keys(self)

    def values(self) -> Any:
        self.noted.reads.add(EVERYTHING)
        return dict.values(self)

    def items(self) -> Any:
        self.noted.reads.add(EVERYTHING)
        return dict.items(self)


class _WatchedVars(_WatchedMapping):
    """The variables while a question is computed: it notes the names read, and
    hands out per-unit, per-side and per-hex variables as `_WatchedRow`s.

    The mapping itself holds only the rows made so far: reading one again is a
    plain look-up (the row notes the member read), and any other name is read
    through `__missing__`, which notes it.
    """

    __slots__ = ("indexed", "real")

    def __init__(self, values: dict[str, Any], noted: _Noted, indexed: frozenset[str]) -> None:
        super().__init__()
        self.real = values
        self.noted = noted
        self.indexed = indexed

    def __missing__(self, name: str) -> Any:
        value = self.real[name]
        if type(value) is tuple and name in self.indexed:  # (most names read here are not)
            row = _WatchedRow(value, self.noted, _name(name))
            dict.__setitem__(self, name, row)
            return row
        self.noted.reads.add(_VAR_KEYS[name])
        return value

    def get(self, name: str, default: Any = None) -> Any:
        if name in self.real:
            return self[name]
        self.noted.reads.add(_VAR_KEYS[name])
        return default

    def __contains__(self, name: object) -> bool:
        self.noted.reads.add(_VAR_KEYS[str(name)])
        return name in self.real

    def __len__(self) -> int:
        self.noted.reads.add(EVERYTHING)
        return len(self.real)

    def __iter__(self) -> Iterator[str]:
        self.noted.reads.add(EVERYTHING)
        return iter(self.real)

    def keys(self) -> Any:
        self.noted.reads.add(EVERYTHING)
        return self.real.keys()

    def values(self) -> Any:
        self.noted.reads.add(EVERYTHING)
        return self.real.values()

    def items(self) -> Any:
        self.noted.reads.add(EVERYTHING)
        return self.real.items()

    def __eq__(self, other: object) -> bool:
        self.noted.reads.add(EVERYTHING)
        return self.real == other

    __hash__ = None  # type: ignore[assignment]

    def __setitem__(self, name: str, value: Any) -> None:
        raise RuntimeError("a legal-move question changed the state")


class _WatchedRow(tuple):
    """A per-unit, per-side or per-hex variable while a question is computed: a
    member read by its index is noted alone, any other use as the whole."""

    def __new__(cls, values: tuple, noted: _Noted, name: int) -> _WatchedRow:
        row = super().__new__(cls, values)
        row.noted = noted
        row.name = name
        row.members = VAR_ITEM + name * _ITEMS  # the read of member i: `members + i`
        row.plain = values  # read by index as a plain tuple is
        return row

    def _whole(self) -> None:
        self.noted.reads.add(VAR + self.name)

    def __getitem__(self, i: Any) -> Any:
        if type(i) is int and i >= 0:  # the most frequent read, first and shortest
            self.noted.reads.add(self.members + i)
        elif type(i) is int:
            self.noted.reads.add(self.members + tuple.__len__(self) + i)
        else:
            self._whole()
        return self.plain[i]

    def __iter__(self) -> Iterator[Any]:
        self._whole()
        return tuple.__iter__(self)

    def __len__(self) -> int:
        self._whole()
        return tuple.__len__(self)

    def __contains__(self, value: object) -> bool:
        self._whole()
        return tuple.__contains__(self, value)

    def __eq__(self, other: object) -> bool:
        self._whole()
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        self._whole()
        return tuple.__ne__(self, other)

    def __lt__(self, other: Any) -> bool:
        self._whole()
        return tuple.__lt__(self, other)

    def __le__(self, other: Any) -> bool:
        self._whole()
        return tuple.__le__(self, other)

    def __gt__(self, other: Any) -> bool:
        self._whole()
        return tuple.__gt__(self, other)

    def __ge__(self, other: Any) -> bool:
        self._whole()
        return tuple.__ge__(self, other)

    def __hash__(self) -> int:
        self._whole()
        return tuple.__hash__(self)

    def __add__(self, other: Any) -> Any:
        self._whole()
        return tuple.__add__(self, other)

    def __radd__(self, other: Any) -> Any:
        self._whole()
        return other + tuple(tuple.__iter__(self))

    def __mul__(self, n: Any) -> Any:
        self._whole()
        return tuple.__mul__(self, n)

    def count(self, value: Any) -> int:
        self._whole()
        return tuple.count(self, value)

    def index(self, value: Any, *args: Any) -> int:
        self._whole()
        return tuple.index(self, value, *args)


def _whole(s: State, was: tuple | None) -> tuple | None:
    """What questions read only as a whole: the combats, bags, draws and triggers
    fired, the terrain changed in play and the caller's bindings; None when they
    are those of `was` (compared before anything is copied: they seldom change)."""
    combats = list(map(_COMBAT, s.combats))
    if was is not None and _as_it_was(s, combats, was):
        return None
    return (
        combats,
        dict(s.bags),
        dict(s.drawn),
        frozenset(s.fired),
        s.vars.get(CHANGED_TERRAIN),
        dict(_caller(s)),
    )


def _as_it_was(s: State, combats: list[tuple], was: tuple) -> bool:
    """Whether what questions read only as a whole is as `was` holds it (`_whole`)."""
    w_combats, bags, drawn, fired, terrain, caller = was
    return (
        combats == w_combats
        and s.bags == bags
        and s.drawn == drawn
        and s.fired == fired
        and s.vars.get(CHANGED_TERRAIN) == terrain
        and _caller(s) == caller
    )


def _differences(was: Sequence[Any], now: Sequence[Any]) -> Iterator[int]:
    """The indices where two sequences of the same length differ (compared in C: a
    decision compares every unit's position, and one or two have changed)."""
    return compress(count(), map(ne, was, now))


def _changed_names(variables: dict[str, Any], before: dict[str, Any]) -> list[str]:
    """The names of the variables whose values differ from the copy `before` (set,
    added or removed since)."""
    if tuple(variables) == tuple(before):
        # The same names in the same order: the copy shares every value not set
        # since, so only those that are other objects (found in C) may differ.
        others = compress(variables, map(is_not, variables.values(), before.values()))
        return [name for name in others if variables[name] != before[name]]
    return _renamed(variables, before)


def _renamed(variables: dict[str, Any], before: dict[str, Any]) -> list[str]:
    """`_changed_names` when names were added or removed: every name compared."""
    names = [n for n, now in variables.items() if before.get(n, _ABSENT) != now]
    added = sum(1 for name in names if name not in before)
    if len(before) > len(variables) - added:  # some were removed too
        names += [name for name in before if name not in variables]
    return names


def _note_variable(changed: set[int], name: str, was: Any, now: Any, game: Any) -> None:
    """A variable that changed: read as a whole, and the members of a per-unit,
    per-side or per-hex one that differ (every member, when the two are not rows
    of one length)."""
    number = _name(name)
    changed.add(VAR + number)
    if name not in game.indexed_variables:
        return
    base = VAR_ITEM + number * _ITEMS
    if type(was) is tuple and type(now) is tuple and len(was) == len(now):
        changed.update(base + i for i in _differences(was, now))
    else:
        rows = [len(v) for v in (was, now) if type(v) is tuple]
        changed.update(base + i for i in range(max(rows, default=0)))


def _caller(s: State) -> dict[str, Any]:
    """The bindings of the frame below the primitive's: its rule expressions read them."""
    return s.stack[-2].b if len(s.stack) > 1 else {}


# A combat as values, and a frame's procedure: read in C at every catch-up.
_COMBAT = attrgetter(
    "side", "attackers", "defenders", "attack_hexes", "defense_hexes", "resolved", "diverted"
)
_PROCEDURE = attrgetter("proc", "prim")


def _procedures(s: State) -> tuple:
    return tuple(map(_PROCEDURE, s.stack))


class Remembered:
    """Answers of one kind of question (a call site, for one side) for one state.

    `readers` is the inverse of the reads: for each thing read, the questions
    whose answers read it, so that a change forgets exactly those (a set: a
    question forgotten for one of its reads and asked again stays noted once
    under its others, which would otherwise grow by one at every asking). A clone of
    a state shares its `Remembered` until either asks again, when the asker
    takes a copy: answers never leak between states.
    """

    __slots__ = (
        "answers",
        "asking",
        "hexes",
        "loss",
        "owner",
        "parents",
        "procedures",
        "readers",
        "status",
        "variables",
        "watch",
        "whole",
    )

    def __init__(self, owner: State) -> None:
        self.owner = owner
        # The state as of the last question: what the next one compares with.
        self.whole: tuple | None = None
        # (copies, never changed: a clone's copy shares them)
        self.hexes: list[int] = []
        self.status: list[int] = []
        self.loss: list[int] = []
        self.variables: dict[str, Any] = {}
        self.procedures: tuple = ()
        self.answers: dict[Hashable, Any] = {}  # a caller may look here before asking
        self.readers: defaultdict[int, set[Hashable]] = defaultdict(set)
        # For each question, the questions that asked it while being computed.
        self.parents: dict[Hashable, set[Hashable]] = {}
        self.asking: Hashable | None = None  # the question being computed
        self.watch: _Watch | None = None

    def _copy_for(self, owner: State) -> Remembered:
        other = Remembered(owner)
        other.whole = self.whole
        other.hexes = self.hexes
        other.status = self.status
        other.loss = self.loss
        other.variables = self.variables
        other.procedures = self.procedures
        other.answers = dict(self.answers)
        other.readers = defaultdict(set, {k: set(v) for k, v in self.readers.items()})
        other.parents = {k: set(v) for k, v in self.parents.items()}
        return other

    def _moved(self, occupancy: Occupancy) -> Iterable[int]:
        """The units whose hex or status differs from the copies, given the occupancy of
        the positions now: the units it was patched for when it was made from the
        positions the copies hold (at most decisions), else found by comparing."""
        hexes, status = occupancy.hexes, occupancy.status
        before = occupancy.before
        if before is not None and before[0] is self.hexes and before[1] is self.status:
            return occupancy.moved
        # (each compared only when it differs: finding where costs some two µs)
        moved = set(_differences(self.hexes, hexes)) if hexes is not self.hexes else set()
        if status is not self.status:
            moved.update(_differences(self.status, status))
        return moved

    def _changes(
        self,
        s: State,
        occupancy: Occupancy,
        loss: list[int],
        procedures: tuple,
        variables_changed: bool,
    ) -> set[int]:
        """What was read that changed since the last question (EVERYTHING if anything),
        given the occupancy of the positions now, the units' losses (the copy itself
        if they have not changed), the procedures under way now and whether the
        variables differ from the copy."""
        changed: set[int] = set()
        if occupancy.hexes is not self.hexes or occupancy.status is not self.status:
            self._note_moves(s, occupancy, changed)
        if loss is not self.loss:
            changed.update(UNIT_LOSS + u for u in _differences(self.loss, loss))
        if variables_changed:
            before = self.variables
            for name in _changed_names(s.vars, before):
                _note_variable(changed, name, before.get(name), s.vars.get(name), s.game)
        if procedures != self.procedures:
            changed.add(STACK)
        if changed:
            changed.add(EVERYTHING)
        return changed

    def _note_moves(self, s: State, occupancy: Occupancy, changed: set[int]) -> None:
        """A unit that moved or left the map: its hex, its status if it changed (a
        step leaves it on the map), and the occupants of the hexes it left and
        entered (their enemy units, for every other side)."""
        units = s.game.rules.units
        sides = range(len(s.game.rules.sides))
        hexes, status, was = occupancy.hexes, occupancy.status, self.status
        for u in self._moved(occupancy):
            changed.add(UNIT_HEX + u)
            if status[u] != was[u]:
                changed.add(UNIT_STATUS + u)
            mover = units[u].side
            for h in (self.hexes[u], hexes[u]):
                changed.add(HEX + h)
                for side in sides:
                    if side != mover:
                        changed.add(ENEMIES + h * MAX_SIDES + side)

    def _catch_up(self, s: State) -> None:
        """Forget what the changes since the last question may have changed."""
        whole = _whole(s, self.whole)
        # The positions as the occupancy copied them (the same lists while no unit
        # moves), the losses copied only when they changed (they seldom do).
        occupancy = s.occupancy()
        loss = self.loss if s.unit_loss == self.loss else list(s.unit_loss)
        procedures = _procedures(s)
        # (compared once: looking every name up costs some ten thousand instructions)
        variables_changed = s.vars != self.variables
        if whole is not None:
            self.whole = whole
            self.answers.clear()
            self.readers.clear()
            self.parents.clear()
        else:
            readers = self.readers
            answers = self.answers
            for read in self._changes(s, occupancy, loss, procedures, variables_changed):
                for key in readers.pop(read, ()):
                    if key in answers:
                        self._forget(key)
        self.hexes, self.status, self.loss = occupancy.hexes, occupancy.status, loss
        if variables_changed:  # (the copy shares the unchanged values)
            self.variables = dict(s.vars)
        self.procedures = procedures
        self.watch = None

    def _forget(self, key: Hashable) -> None:
        """Forget an answer, and the answers of the questions that asked it."""
        self.answers.pop(key, None)
        for outer in self.parents.pop(key, ()):
            if outer in self.answers:
                self._forget(outer)

    def ask(self, s: State, key: Hashable, compute: Callable[..., Any], *args: Any) -> Any:
        """The answer to question `key`: remembered, or `compute(*args)` now while
        noting its reads.

        A question may ask others while it is computed (a unit's steps ask for
        each direction): it is then forgotten whenever one of them is.
        """
        outer = self.asking
        if outer is None:
            found = self.answers.get(key, _ABSENT)
            if found is not _ABSENT:
                return found
        else:
            parents = self.parents.get(key)
            if parents is None:
                self.parents[key] = {outer}
            else:
                parents.add(outer)
            found = self.answers.get(key, _ABSENT)
            if found is not _ABSENT:
                return found
        watch = self.watch
        if watch is None:
            watch = self.watch = _Watch(s)
        reads: set[int] = set()
        noted = watch.noted
        outer_reads = noted.reads
        noted.reads = reads
        self.asking = key
        if outer is None:
            real = (s.unit_hex, s.unit_status, s.unit_loss, s.vars, s._watched)
            s.unit_hex, s.unit_status, s.unit_loss, s.vars = (
                watch.hexes,
                watch.status,
                watch.loss,
                watch.vars,
            )
            s._watched = watch
            watch.kept = self.ask
        try:
            value = compute(*args)
        finally:
            self.asking = outer
            noted.reads = outer_reads
            if outer is None:
                s.unit_hex, s.unit_status, s.unit_loss, s.vars, s._watched = real
                watch.kept = None
        self.answers[key] = value
        readers = self.readers
        for read in reads:
            readers[read].add(key)
        return value


_ABSENT = object()

# How many sets of answers a state keeps (one per call site and side): a game
# alternates two sides' movement phases, and a few call sites.
_KEPT = 8


class _RememberedSets:
    """A state's `Remembered` per (call site, side), shared by clones until one asks."""

    __slots__ = ("by_site", "owner")

    def __init__(self, owner: State, by_site: dict[Hashable, Remembered]) -> None:
        self.owner = owner
        self.by_site = by_site


def remembered(s: State, site: Hashable) -> Remembered:
    """The state's remembered answers for call site `site` (a site and a side), caught
    up with the state."""
    if not REMEMBER:
        memo = Remembered(s)
        memo._catch_up(s)
        return memo
    sets = s._remembered
    if sets is None:
        sets = s._remembered = _RememberedSets(s, {})
    elif sets.owner is not s:
        sets = s._remembered = _RememberedSets(s, dict(sets.by_site))
    memo = sets.by_site.pop(site, None)
    if memo is None:
        memo = Remembered(s)
    elif memo.owner is not s:
        memo = memo._copy_for(s)
    sets.by_site[site] = memo  # the most recent last
    while len(sets.by_site) > _KEPT:
        del sets.by_site[next(iter(sets.by_site))]
    memo._catch_up(s)
    return memo
