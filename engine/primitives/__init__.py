"""Primitives: the steps of procedures that Python implements and rule files call.

A primitive runs as its own frame on the state's stack, so its progress
(the unit moving, the hexes of a retreat so far) is data that saves and loads.
`start` fills the frame from the call's arguments; `run` says what happens
next (a decision `Node`, or None when finished); `apply` takes the decision.
Expression parameters (`stacking: stack_ok(units)`) come in the frame's
`params`, which the interpreter fills from the calling instruction (and, for
a frame loaded from a save, from the `site` binding that names it).
"""

from __future__ import annotations

from engine.primitives import designation, march, movement, reinforcements, retreat, setup
from engine.primitives.base import Primitive, all_primitives, get, register

# Importing each primitive's module registers it.
__all__ = [
    "Primitive",
    "all_primitives",
    "designation",
    "get",
    "march",
    "movement",
    "register",
    "reinforcements",
    "retreat",
    "setup",
]
