"""`--rule name=on|off`: the switches `muster play`, `simulate` and `soak` take.

Its own module so that both commands read it the same way without one
importing the other.
"""

from __future__ import annotations


def rule_switches(values: list[str]) -> dict[str, bool]:
    """`["pursuit=off"]` → `{"pursuit": False}`; anything else is refused."""
    out = {}
    for v in values:
        name, _, state = v.partition("=")
        if state not in ("on", "off"):
            raise SystemExit(f"muster: --rule takes name=on or name=off, not {v!r}")
        out[name] = state == "on"
    return out
