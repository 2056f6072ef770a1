"""Declarations looked up by name, as the backends do for a unit's side, formation or type."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


def named(declarations: Iterable[T], name: str | None) -> T | None:
    """The declaration called `name`, or None when there is none (a unit of no formation)."""
    return next((d for d in declarations if d.name == name), None)


def the(declarations: Iterable[T], name: str) -> T:
    """The declaration called `name`, which the checks have made sure exists."""
    return next(d for d in declarations if d.name == name)
