"""The module's help page: how to play with it, and each scenario's set-up notes.

A tab of the Charts window (VASSAL's HtmlChart), so a player reads, without the
module editor, which hexes a set-up choice allows and which keys do what. Every
text from the rule files is escaped for HTML.
"""

from __future__ import annotations

from html import escape as _escape

from compiler import ir
from compiler.backends.vassal.sequence import text

HELP_FILE = "help.html"


def escape(words: str) -> str:
    """Text for VASSAL's HTML 3.2 pane: &, < and > as entities, quotes as they are
    (the pane reads no hexadecimal character references)."""
    return _escape(words, quote=False)


HELP_TITLE = "Help and scenario notes"

# The keys every counter of the module answers to (compiler/backends/vassal/pieces.py).
KEYS = (
    ("Ctrl+F", "flip a two-step unit to its reduced face, a marker to its back, a card face up"),
    ("Ctrl+E", "eliminate: the counter goes to its side's Eliminated box"),
    ("Ctrl+K", "capture: the counter goes to its side's Captured box"),
    ("Ctrl+Shift+M", "conceal or reveal a unit the rules let its side hide (its side only)"),
    ("Ctrl+Delete", "delete the counter"),
)
# Only in a battle with units of more than two steps.
MORE_STEPS = (
    "Ctrl+Shift+F",
    "a flipped unit of more than two steps: its next step's face (its replacement counter)",
)


def help_page(
    rules: ir.Ruleset, notes: list[tuple[str, str]], states: list[tuple[str, str]]
) -> bytes:
    """The page: the battle, the keys (with each order state's), the map's aids and a
    section per scenario (`notes`: its title and set-up description)."""
    more_steps = [MORE_STEPS] if any(len(u.strengths) > 2 for u in rules.units) else []
    keys = [*KEYS, *more_steps, *states]
    parts = [
        f"<html><body><h1>{escape(text(rules.title))}</h1>",
        "<h2>Counters</h2><p>Right-click a counter for its commands. Keys:</p><ul>",
        *(f"<li><b>{escape(k)}</b>: {escape(what)}</li>" for k, what in keys),
        "</ul>",
        "<h2>The map</h2><ul>",
        "<li>Set-up (toolbar, Alt+S) centres the map on the scenario's set-up: a game opens"
        " at the map's corner, so press it first.</li>",
        "<li>The overview window (toolbar) shows the whole map.</li>",
        "<li>The line-of-sight thread (toolbar) draws a line and counts the hexes; the rules"
        " say whether the line is blocked.</li>",
        "<li>Hide pieces (toolbar) shows the bare map; Clear moved takes the moved flags"
        " off every counter.</li>",
        "<li>The Tracks window holds the turn and morale tracks, reinforcements by turn, the"
        " Eliminated and Captured boxes, the cups and decks.</li>",
        "</ul><h2>Scenarios</h2>",
    ]
    for title, description in notes:
        parts.append(f"<h3>{escape(title)}</h3>")
        parts += [f"<p>{escape(line)}</p>" for line in description.splitlines() if line]
    parts.append("</body></html>")
    return "\n".join(parts).encode("utf-8")
