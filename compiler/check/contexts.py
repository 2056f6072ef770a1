"""Condition contexts: the names a condition may use where it is written.

One table, read by the checker (each condition is checked in the scope its
context names) and by the generated reference (docs/reference.md), so that
what the documentation says a condition can see is what the checker lets it
see. Trigger conditions bind their event's names (`engine.vocabulary.EVENTS`);
procedure steps bind their parameters and `let`s.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ConditionContext:
    where: str  # how a designer writes it
    bindings: tuple[tuple[str, str], ...]  # name → type
    meaning: str

    def scope(self) -> dict[str, str]:
        return dict(self.bindings)


CONTEXTS: dict[str, ConditionContext] = {
    "restriction": ConditionContext(
        "restriction NAME { no_entry | confined_to … when CONDITION }",
        (("unit", "unit"), ("hex", "hex"), ("from", "hex"), ("to", "hex")),
        "`unit` is the unit moving; the step goes `from` the hex it leaves `to` the hex"
        " it enters (`hex` is `to`)",
    ),
    "restriction_end": ConditionContext(
        "restriction NAME { no_end … when CONDITION }",
        (("unit", "unit"), ("hex", "hex")),
        "`unit` is the unit moving, `hex` the hex it would end its move in",
    ),
    "restriction_unit": ConditionContext(
        "restriction NAME { no_move | allowance | max_hexes | no_arrival … when CONDITION }",
        (("unit", "unit"),),
        "`unit` is the unit the restriction applies to",
    ),
    "restriction_combat": ConditionContext(
        "restriction NAME { no_combat when CONDITION }",
        (
            ("attackers", "units"),
            ("defenders", "units"),
            ("attack_hexes", "hexes"),
            ("defense_hexes", "hexes"),
        ),
        "a close combat as it would be designated: a combat the condition holds for is not offered",
    ),
    "allowance": ConditionContext(
        "restriction NAME { allowance (EXPRESSION) }",
        (("unit", "unit"),),
        "the movement allowance of `unit`",
    ),
    "exit": ConditionContext(
        "exit NAME { through HEX… | edge EDGE…; cost N; when CONDITION }",
        (("unit", "unit"), ("hex", "hex")),
        "`unit` is the unit that would leave the map, from `hex`, the exit hex it stands in",
    ),
    "conceal": ConditionContext(
        "conceal NAME { from SIDE when CONDITION }",
        (("unit", "unit"), ("hex", "hex")),
        "`unit` is a unit the side may not examine, in `hex`",
    ),
    "impossible": ConditionContext(
        "impossible NAME { when CONDITION }",
        (),
        "a position of the game, after any action: only declared names and variables",
    ),
    "victory": ConditionContext(
        "victory NAME { when CONDITION }",
        (),
        "checked at the end of each turn or of the game: only declared names and variables",
    ),
    "setup_choice": ConditionContext(
        "scenario NAME { setup { choose UNITS when CONDITION } }",
        (("unit", "unit"), ("hex", "hex")),
        "`unit` is the unit being placed, `hex` a hex its owner may choose for it",
    ),
    "setup_stacking": ConditionContext(
        "scenario NAME { stacking (CONDITION) }",
        (("units", "units"),),
        "`units` are the units a hex would hold: set-up must keep every hex within it",
    ),
    "commands": ConditionContext(
        "leader NAME { commands when CONDITION }",
        (("unit", "unit"),),
        "`unit` is a unit the leader may command",
    ),
}
