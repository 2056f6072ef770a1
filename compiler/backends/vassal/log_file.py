"""A VASSAL log file (`.vlog`): a starting position, then steps the log player runs one at a time.

A `.vlog` is a zip like a `.vsav` — `savedGame` (the command text,
obfuscated), `savedata` and `moduledata` (the same metadata a saved game
has) — whose command text is the saved position (`begin_save` … `end_save`)
followed by one `LOG\\t`-prefixed entry per step. VASSAL's BasicLogger reads
each entry into its list of steps when the file is loaded and runs one entry
each time the player presses *Step forward*. A step of several commands is
written as VASSAL writes one: the commands each behind `LOG\\t`, joined by
ESC, that whole entry escaped once more as a value of the file's sequence.

The commands, as VASSAL's BasicCommandEncoder and Chatter write them:
`+/id/type/state` adds a piece, `-/id` removes it, `D/id/new/old` changes
its state, `M/id/map/x/y/under/oldmap/oldx/oldy/oldunder/player` moves it
(`null` for no map or no piece underneath), `CHAT<text>` shows a line in the
chat window, `TURN…` puts the Turn tracker on a turn and phase (`turn_tracker`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from compiler.backends.vassal.archive import zipped
from compiler.backends.vassal.savefile import ESC, obfuscate
from compiler.backends.vassal.sequence import sequence, text
from compiler.backends.vassal.traits import Trait, piece_state, piece_type

LOG = "LOG\t"
NULL = "null"  # VASSAL's word for no map and no piece
PLAYER = "Muster"  # who VASSAL says moved the pieces
CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


@dataclass(frozen=True, slots=True)
class AddPiece:
    piece: str
    traits: tuple[Trait, ...]  # BasicPiece last, its map and position set

    def text(self) -> str:
        return "+/" + sequence((self.piece, piece_type(self.traits), piece_state(self.traits)), "/")


@dataclass(frozen=True, slots=True)
class RemovePiece:
    piece: str

    def text(self) -> str:
        return "-/" + self.piece


@dataclass(frozen=True, slots=True)
class ChangePiece:
    """A piece's whole state before and after: VASSAL sets only the traits that differ."""

    piece: str
    new: str
    old: str

    def text(self) -> str:
        return "D/" + sequence((self.piece, self.new, self.old), "/")


@dataclass(frozen=True, slots=True)
class MovePiece:
    """A piece put on a map at a point, onto the stack already there if there is one."""

    piece: str
    map: str
    x: int
    y: int
    old_map: str = NULL
    old_x: int = 0
    old_y: int = 0

    def text(self) -> str:
        fields = (self.piece, self.map, self.x, self.y, NULL)
        fields += (self.old_map, self.old_x, self.old_y, NULL, PLAYER)
        return "M/" + sequence(fields, "/")


@dataclass(frozen=True, slots=True)
class Chat:
    """A line of the chat window, written as VASSAL shows a module's report (`* …`)."""

    line: str

    def text(self) -> str:
        return "CHAT" + chat_line(self.line)


@dataclass(frozen=True, slots=True)
class SetTurn:
    """The Turn tracker put on a turn and phase: its command (`turn_tracker.set_turn`)."""

    command: str

    def text(self) -> str:
        return self.command


Command = AddPiece | RemovePiece | ChangePiece | MovePiece | Chat | SetTurn


def chat_line(line: str) -> str:
    """A line of account as the chat window can show it and the log can carry it.

    The chat window is HTML: `&`, `<` and `>` are written as entities, which
    read the same whether or not the player lets chat lines hold HTML. Control
    characters (a tab, ESC, a line break) become one space; a trailing
    backslash gets a space after it, as VASSAL's decoder would read it as an
    escape. The leading `* ` is VASSAL's mark of a report line.
    """
    return "* " + text(html.escape(CONTROL.sub(" ", line).strip(), quote=False))


def stack(stack_id: str, map_: str, x: int, y: int, pieces: Sequence[str]) -> str:
    """The AddPiece of a stack of pieces already added, bottom first."""
    return "+/" + sequence((stack_id, "stack", sequence((map_, x, y, *pieces, "@@0"), ";")), "/")


def log_text(start: Sequence[str], steps: Sequence[Sequence[Command]]) -> str:
    """The file's command text: the starting position's commands (`begin_save` …
    `end_save`), then one entry per step."""
    entries = [sequence((LOG + c.text() for c in step), ESC) for step in steps]
    return sequence((*start, *entries), ESC)


def log_file(text_: str, savedata: bytes, moduledata: bytes) -> bytes:
    """The `.vlog`: the command text obfuscated as VASSAL writes it, and the metadata."""
    return zipped({"savedGame": obfuscate(text_), "savedata": savedata, "moduledata": moduledata})
