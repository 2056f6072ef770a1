"""The range of each number a rule file writes, from what the number means.

A map's columns and rows, a die's faces, a strength or a movement allowance
each have a range that follows from what they are (a `ccrr` hex label gives
a column two digits; a counter prints its strength in two). A number outside
its range is a typo, and left unchecked it would make the compiler build a
map of four billion rows. So each is refused where it is read, with
file:line:col, the range and why (`BAD_VALUE`). Every other whole number
(an expression's constant, an attribute's value) is held by the parser to
nine digits, the ±10⁹ a save holds.

The rulebooks print these values on counters and charts: strengths of a few
points (each about 100 men, the series rules' "Unit scale"), morale ratings and
die-roll modifiers of one digit, a ten-sided die (0–9). The ranges below are
wider than any battle needs and narrow enough that nothing built from them
is large.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from compiler.check.props import Props
from dsl.diagnostics import BAD_VALUE, Reporter
from dsl.source import Span


@dataclass(frozen=True, slots=True)
class Bound:
    """The whole numbers `low..high` a value may take, and what they follow from."""

    low: int
    high: int
    why: str

    def holds(self, n: int) -> bool:
        return self.low <= n <= self.high


MAP_COLUMN = Bound(0, 99, "a hex label `ccrr` gives the column two digits")
MAP_ROW = Bound(0, 99, "a hex label `ccrr` gives the row two digits")
DISTANCE = Bound(0, 199, "a distance in hexes across a map of at most 100 × 100 hexes")
SIGHT = Bound(
    0,
    12,
    "how far a unit fires or sees, in hexes: artillery reaches 3 (series 11.2), a battle's "
    "heavy guns 4; the build works out line of sight this far from every hex",
)
DIE_FACE = Bound(0, 100, "a die has at most 100 faces (a percentile die reads 0..99 or 1..100)")
TABLE_ROW = Bound(
    -999, 999, "a table's row: a die roll with its modifiers, or a number such as a strength"
)
TURN = Bound(1, 999, "a game turn: a box of the turn track")
STRENGTH = Bound(0, 99, "strength points, printed on the counter in at most two digits")
MORALE = Bound(-9, 9, "a morale rating, printed on the counter in one digit")
MOVEMENT = Bound(0, 99, "movement points, printed on the counter in at most two digits")
MOVE_COST = Bound(0, 99, "movement points to enter a hex or cross a hexside")
MODIFIER = Bound(-99, 99, "a die-roll modifier")
COUNTERS = Bound(0, 999, "a number of counters: a counter mix holds a few hundred")
TRACK_BOX = Bound(-99, 99, "a box of a track, numbered on its chart in at most two digits")


# A restriction's written limit on a unit's move: its allowance, or how many hexes.
RESTRICTION_LIMITS = {"allowance": MOVEMENT, "max_hexes": DISTANCE}

# Attributes are declared by the rules, their numbers held only to the parser's
# nine digits; these few the engine reads by name, so their meaning is known.
ATTRIBUTES = {"range": SIGHT}


def within(reporter: Reporter, span: Span, what: str, n: int, bound: Bound) -> bool:
    """Whether `n` lies in `bound`; reported at `span` when it does not."""
    if bound.holds(n):
        return True
    reporter.error(span, BAD_VALUE, f"{what} {n} is outside {bound.low}..{bound.high}", bound.why)
    return False


def all_within(
    reporter: Reporter, span: Span, what: str, numbers: Iterable[int], bound: Bound
) -> bool:
    """Whether all the numbers (a range's two ends, a value per step) lie in
    `bound`; the first that does not is reported."""
    return all(within(reporter, span, what, n, bound) for n in numbers)


def value_span(p: Props, key: str) -> Span:
    """Where a property's value is written (its line when it has none)."""
    values = p.values(key)
    line = p.line(key)
    assert line is not None
    return values[0].span if values else line.span


def prop_int(p: Props, key: str, bound: Bound, required: bool = False) -> int | None:
    """`key N` with N in `bound`; None when absent or refused."""
    n = p.int(key, required=required)
    if n is None or not within(p.r, value_span(p, key), repr(key), n, bound):
        return None
    return n


def prop_range(p: Props, key: str, bound: Bound, required: bool = False) -> tuple[int, int] | None:
    """`key LOW..HIGH` (or `key N`) with both ends in `bound`; None when absent or refused."""
    pair = p.range(key, required=required)
    if pair is None or not all_within(p.r, value_span(p, key), repr(key), pair, bound):
        return None
    return pair
