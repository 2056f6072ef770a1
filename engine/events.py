"""What the run time tells: events for the rules' triggers, lines for the account.

Effects, primitives and the interpreter all raise events and write the
account; this is below all of them (it only appends to the state), so none
needs the interpreter to do it.
"""

from __future__ import annotations

from typing import Any

from engine.state import State


def emit(s: State, event: str, **bindings: Any) -> None:
    """Record an event; triggers that listen to it run before play goes on."""
    if s.game.triggers_by_event.get(event):
        s.events.append((event, bindings))


def say(s: State, text: str) -> None:
    """Tell the players something in the play log (`{name}` in the text shows a value; a
    value a side may not read, a secret's, it reads as "(hidden)")."""
    s.messages.append(text)
