"""The whole vocabulary, registered: the modules that offer it to the rule files, imported.

Queries, effects and primitives register themselves with the decorators of
`engine.vocabulary` when their modules load; since they import it, it cannot
import them back. This module, above all three, imports them, so the
vocabulary it hands the compiler (checks, the editor, the reference) is
complete.
"""

from __future__ import annotations

# Imported for what loading them registers.
from engine import effects, primitives, queries  # noqa: F401
from engine.vocabulary import VOCABULARY, Signature


def load() -> dict[str, Signature]:
    """Every query, effect and primitive the rule files may call, by name."""
    return VOCABULARY
