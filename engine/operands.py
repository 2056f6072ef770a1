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
