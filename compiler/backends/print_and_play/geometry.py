"""Print sizes at 300 dpi: the counter, its bleed, the papers and their margins.

A 5/8-inch counter is 187.5 px at 300 dpi. Half pixels cannot be printed, so
counters are 188 px (0.6267 in, 0.17 mm larger than 5/8 in): rounding up
keeps every printed value inside a counter cut at 5/8 in and lets fronts and
backs share whole-pixel positions, which duplex registration needs.
"""

from __future__ import annotations

from dataclasses import dataclass

DPI = 300
COUNTER_INCHES = 5 / 8
COUNTER_PX = 188  # 187.5 rounded up; see the module docstring
BLEED_PX = 12  # 1 mm of art beyond the cut on every side
PITCH_PX = COUNTER_PX + 2 * BLEED_PX  # counters sit this far apart on a sheet
MIN_TEXT_PX = 25  # 6 pt at 300 dpi (6/72 in × 300 = 25 px)


def pt(points: float) -> int:
    """Points (1/72 in) as whole pixels at 300 dpi."""
    return round(points * DPI / 72)


@dataclass(frozen=True, slots=True)
class Paper:
    """A page size in pixels at 300 dpi, and the margin a home printer leaves blank."""

    name: str
    width: int
    height: int
    margin: int

    @property
    def points(self) -> tuple[float, float]:
        """The page size in PDF points (72 to the inch)."""
        return self.width * 72 / DPI, self.height * 72 / DPI


LETTER = Paper("letter", 2550, 3300, 75)  # 8.5 × 11 in, 1/4 in margins
A4 = Paper("a4", 2480, 3508, 75)  # 210 × 297 mm, 6.35 mm margins
PAPERS = (LETTER, A4)
