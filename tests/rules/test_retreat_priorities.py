"""The order of the retreat's preferences (series 13.21, 13.22), which the
retreat primitive keeps: no blocked hex at all, then a hex not next to the
enemy if possible, and only then toward the friendly map edge — on a position
written by hand on the litmus battle (the Americans' friendly edge is west)."""

from __future__ import annotations

import pytest

from tests.rules.test_pins_and_combat_shapes import offered, position


@pytest.fixture(scope="module")
def game(litmus):
    return litmus


def retreating(game, units: dict, hexes: int = 1):
    """The 1st N.J. about to retreat (the series' retreat procedure, 13.2)."""
    stack = [
        {
            "procedure": "retreat_unit",
            "step": "start",
            "bindings": {"unit": "nj_1", "hexes": hexes},
        }
    ]
    return position(game, units, stack)


def where(game, s, unit: str) -> str:
    return next(k for k, v in game.hex_by_label.items() if v == s.unit_hex[game.unit_by_name[unit]])


def test_toward_the_friendly_edge_among_the_hexes_clear_of_the_enemy(game):
    """§ series 13.21, 13.22: "the unit must retreat towards a friendly map edge if
    possible"; units may not retreat "Into an enemy ZOC". The 1st N.J. in 0704
    retreats from the Guards in 0804: 0803 and 0705 are in their ZOC; of 0603,
    0604 and 0703, none next to a British unit, the owner picks between the two
    nearer the west edge, never 0703."""
    s = retreating(game, {"nj_1": "0704", "guards": "0804"})
    assert offered(s) == {"0603", "0604"}


def test_a_hex_clear_of_the_enemy_comes_before_the_friendly_edge(game):
    """§ series 13.21: "If possible, a unit must retreat into a hex which is not
    adjacent to an enemy unit. In addition, the unit must retreat towards a
    friendly map edge if possible." With the Grenadiers in 0504, 0604 is in
    their ZOC and the forest of 0603 (which their ZOC does not enter, 8.1) is
    next to them: the only hex clear of the enemy, 0703, is no nearer the west
    edge, and the 1st N.J. retreats there."""
    s = retreating(game, {"nj_1": "0704", "guards": "0804", "grenadiers": "0504"})
    assert where(game, s, "nj_1") == "0703"
