"""The base of primitives and their registry (see `engine/primitives/__init__.py`).

Kept apart from the package so that each primitive's module imports this,
not the package that imports every primitive: no import cycle.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.nodes import Node
from engine.state import Frame, State


class Primitive:
    """A step of a procedure that may ask a player to decide; it runs as its own
    frame, its state in the frame's bindings (`fields`), itself stateless."""

    name = ""
    # Type of each frame binding, so saves show names and labels.
    fields: ClassVar[dict[str, str]] = {}

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        frame.b.update(args)
        frame.b["site"] = site

    def run(self, s: State, frame: Frame) -> Node | None:
        raise NotImplementedError

    def apply(self, s: State, frame: Frame, action: int) -> None:
        raise NotImplementedError

    @staticmethod
    def has_lambda(s: State, frame: Frame, name: str) -> bool:
        """Whether the rules passed the expression parameter `name`."""
        assert frame.params is not None, "a primitive frame runs with its parameters"
        return name in frame.params

    def holds(self, s: State, frame: Frame, name: str, default: bool, **bindings: Any) -> bool:
        """Whether the condition parameter `name` holds for these bindings, or
        `default` when the rules gave none."""
        if not self.has_lambda(s, frame, name):
            return default
        return bool(self.call(s, frame, name, **bindings))

    @staticmethod
    def push_procedure(s: State, procedure: str, bindings: dict[str, Any]) -> None:
        """Run a rules procedure (a hook the rules passed in) before this primitive goes on."""
        s.stack.append(Frame(procedure, 0, dict(bindings)))

    @staticmethod
    def call(s: State, frame: Frame, name: str, **bindings: Any) -> Any:
        """Evaluate the expression parameter `name` with these bindings.

        The expression may also read the caller's bindings (`side` in
        `stop_after: count(enemies_adjacent(hex, side)) > 0`): the caller is
        the frame just below, since a primitive runs only on top of the stack.
        (A remembered question, engine/incremental.py, compares the caller's
        bindings as a whole: its reads of them are not noted one by one.)
        """
        assert frame.params is not None, "a primitive frame runs with its parameters"
        fn = frame.params[name]
        stack = s.stack
        caller = stack[-2].b if stack[-1] is frame else stack[stack.index(frame) - 1].b
        return fn(s, {**caller, **bindings})


_REGISTRY: dict[str, Primitive] = {}


def register(prim: Primitive) -> Primitive:
    _REGISTRY[prim.name] = prim
    return prim


def get(name: str) -> Primitive:
    return _REGISTRY[name]


def all_primitives() -> dict[str, Primitive]:
    return dict(_REGISTRY)
