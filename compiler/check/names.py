"""The one namespace of a ruleset: every declared name means one thing.

Declarations, places and zones of the map, values of enumerations and levels
all claim their names here; a second claim is an error naming the first.
"""

from __future__ import annotations

import re

from dsl.diagnostics import BAD_IDENT, DUPLICATE, Reporter
from dsl.source import Span

IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")
KINDS = {
    "ruleset",
    "side",
    "unit_type",
    "unit",
    "leader",
    "piece",
    "terrain",
    "hexside",
    "map",
    "table",
    "result",
    "modifiers",
    "trigger",
    "restriction",
    "exit",
    "conceal",
    "impossible",
    "victory",
    "victory_level",
    "bot_weights",
    "variable",
    "nationality",
    "formation",
    "brigade",
    "marker",
    "turn_track",
    "levels",
    "counter_face",
    "scenario",
    "bag",
    "attribute",
    "terrain_change",
}
# The kinds a second declaration may replace with `override`.
OVERRIDABLE = KINDS | {"define", "procedure"}


class Names:
    """Names claimed so far: where each was first declared, and as what."""

    def __init__(self, reporter: Reporter) -> None:
        self.r = reporter
        self.claimed: dict[str, tuple[Span, str]] = {}

    def register(self, name: str, span: Span, kind: str) -> None:
        """Claim a name for one declaration; a second claim is reported at the
        second, naming the first (what it is and where)."""
        if not IDENT.match(name):
            self.r.error(
                span,
                BAD_IDENT,
                f"{name!r} is not a valid name",
                "names use lower-case letters, digits and '_', and do not start with a digit",
            )
        if name in self.claimed:
            self._duplicate(name, span, kind)
            return
        self.claimed[name] = (span, kind)

    def _duplicate(self, name: str, span: Span, kind: str) -> None:
        first, first_kind = self.claimed[name]
        override = ", or write `override` before it to replace the first"
        self.r.error(
            span,
            DUPLICATE,
            f"{kind} {name!r}: the name is already declared",
            f"the first {name!r} is the {first_kind} declared at {first}",
            "give this one another name" + (override if kind in OVERRIDABLE else ""),
        )
