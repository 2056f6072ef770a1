"""Operands that need no compiled function: a binding's value, a constant, bindings passed on.

An instruction's `Fn` operand is called with the state and the frame's
bindings. Most are compiled expressions; the commonest few are so plain
(the rest of a loop, `yes`, `{"side": side}`) that a function written for
each would be most of the generated code and say nothing. These records
answer the same call and read in the generated code as what they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Bound:
    """The value of binding `name`."""

    name: str

    def __call__(self, s: Any, b: dict[str, Any]) -> Any:
        return b[self.name]


@dataclass(frozen=True, slots=True)
class Constant:
    """The same value whatever the position."""

    value: Any

    def __call__(self, s: Any, b: dict[str, Any]) -> Any:
        return self.value


@dataclass(frozen=True, slots=True)
class Passed:
    """Arguments of a call that are bindings of the caller: (parameter, binding) pairs."""

    pairs: tuple[tuple[str, str], ...] = ()

    def __call__(self, s: Any, b: dict[str, Any]) -> dict[str, Any]:
        return {param: b[name] for param, name in self.pairs}


# The binding that names what a caller passed as a number argument a roll's
# modifier reads (`Labels`): the `define` it called, by name.
LABEL = "_label_"


@dataclass(frozen=True, slots=True)
class Labels:
    """What each number argument of a call is, for the modifier of a roll that reads it:
    the `define` the caller called for it, (parameter, define) pairs in `named`, or
    the name the caller's own binding carries, (parameter, binding) pairs in `passed`.
    The account then itemises the modifier by the define's title, not by the catch-all
    label of the list's entry."""

    named: tuple[tuple[str, str], ...] = ()
    passed: tuple[tuple[str, str], ...] = ()

    def __call__(self, s: Any, b: dict[str, Any]) -> dict[str, str]:
        out = {LABEL + param: define for param, define in self.named}
        for param, name in self.passed:
            if LABEL + name in b:
                out[LABEL + param] = b[LABEL + name]
        return out
