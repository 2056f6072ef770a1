"""Piece traits: each VASSAL trait as its type and state text (FORMAT.md, "Piece definitions").

A piece is a list of traits, outermost first, its `BasicPiece` last. Its
definition (the text of a PieceSlot) is `+/` + sequence('/'){null, type,
state}, where the type and the state nest the traits with tabs. Fields are
written in the order VASSAL 3.7 reads them; the defaults VASSAL would fill
in are written out, so the text reads the same in the editor.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.backends.vassal.sequence import sequence

CTRL = 130  # VASSAL's modifier code for Ctrl (InputEvent masks, as the editor writes them)


@dataclass(frozen=True, slots=True)
class Key:
    """A keystroke: Java key code and modifiers (`70,130` is Ctrl+F)."""

    code: int
    modifiers: int = CTRL

    def __str__(self) -> str:
        return f"{self.code},{self.modifiers}"

    @staticmethod
    def ctrl(letter: str) -> Key:
        return Key(ord(letter.upper()))


NO_KEY = ""


@dataclass(frozen=True, slots=True)
class BasicPiece:
    image: str
    name: str
    gpid: int = 0  # the PieceSlot's gpid, also written in the state
    map: str = "null"
    x: int = 0
    y: int = 0
    properties: tuple[tuple[str, str], ...] = ()

    def type(self) -> str:
        return "piece;" + sequence(("", "", self.image, self.name), ";")

    def state(self) -> str:
        props = [v for kv in self.properties for v in kv]
        return sequence((self.map, self.x, self.y, self.gpid, len(self.properties), *props), ";")


@dataclass(frozen=True, slots=True)
class Layer:
    """`emb2`: images shown over (or instead of) the counter, switched by keys.

    `activate` toggles the layer on and off; with several levels `increase`
    steps to the next. Level names starting with `+` add to the piece's name.
    """

    name: str
    images: tuple[str, ...]
    levels: tuple[str, ...]
    activate_command: str = ""
    activate: Key | None = None
    increase_command: str = ""
    increase: Key | None = None
    decrease_command: str = ""
    decrease: Key | None = None
    always_active: bool = False
    loop: bool = False
    x_offset: int = 0
    y_offset: int = 0
    level: int = -1  # state: negative while inactive

    def type(self) -> str:
        key = _key_or_blank
        fields = (
            self.activate_command,
            CTRL,
            "",  # legacy activate character (version 1 uses the keystroke fields)
            self.increase_command,
            CTRL,
            "",
            self.decrease_command,
            CTRL,
            "",
            "",  # reset command
            "",  # reset key
            1,  # reset level
            False,  # draw underneath when selected
            self.x_offset,
            self.y_offset,
            sequence(self.images, ","),
            sequence(self.levels, ","),
            self.loop,
            self.name,
            "",  # random key
            "",  # random text
            False,  # follow property
            "",
            1,  # first level value
            1,  # version
            self.always_active,
            key(self.activate),
            key(self.increase),
            key(self.decrease),
            self.name,  # description
            1.0,  # scale
            "",  # only when property
            "true",
        )
        return "emb2;" + sequence(fields, ";")

    def state(self) -> str:
        return str(self.level)


def _key_or_blank(key: Key | None) -> str:
    return "" if key is None else str(key)


def suffix(words: str) -> str:
    """A layer level's name that adds ` (words)` to the piece's name."""
    return "+" + sequence((f" ({words})",), "+")


@dataclass(frozen=True, slots=True)
class MarkMoved:
    """`markmoved`: the moved flag VASSAL sets on every move, cleared with the key."""

    icon: str
    command: str = "Mark moved"
    key: Key = Key(77)  # Ctrl+M
    moved: bool = False

    def type(self) -> str:
        fields = (self.icon, 0, 0, self.command, self.key, self.command, False, "", "", "", "")
        return "markmoved;" + sequence(fields, ";")

    def state(self) -> str:
        return "true" if self.moved else "false"


@dataclass(frozen=True, slots=True)
class Delete:
    command: str = "Delete"
    key: Key = Key(127)  # Ctrl+Delete

    def type(self) -> str:
        return "delete;" + sequence((self.command, self.key, self.command), ";")

    def state(self) -> str:
        return ""


@dataclass(frozen=True, slots=True)
class SendTo:
    """`sendto`: a menu command that moves the piece to a point of a map (an off-map box)."""

    command: str
    key: Key
    map: str
    board: str
    x: int
    y: int

    def type(self) -> str:
        fields = (
            self.command,
            self.key,
            self.map,
            self.board,
            self.x,
            self.y,
            "",  # back command
            "",  # back key
            0,
            0,
            1,
            1,
            self.command,  # description
            "L",  # destination: a location on a map
            "",
            "",
            "",
            "",
        )
        return "sendto;" + sequence(fields, ";")

    def state(self) -> str:
        return ";;"


@dataclass(frozen=True, slots=True)
class Report:
    """`report`: a chat-log line whenever one of `keys` is pressed on the piece."""

    keys: tuple[Key, ...]
    format: str

    def type(self) -> str:
        keys = sequence((str(k) for k in self.keys), ",")
        return "report;" + sequence((keys, self.format, "", "", "Report", False), ";")

    def state(self) -> str:
        return "-1"


@dataclass(frozen=True, slots=True)
class Prototype:
    """`prototype`: the traits of a PrototypeDefinition, in place."""

    name: str

    def type(self) -> str:
        return "prototype;" + sequence((self.name,), ";")

    def state(self) -> str:
        return ""


@dataclass(frozen=True, slots=True)
class Properties:
    """`mark`: fixed properties (Side, Formation) that filters and the inventory read."""

    pairs: tuple[tuple[str, str], ...]

    def type(self) -> str:
        return "mark;" + sequence((k for k, _ in self.pairs), ",")

    def state(self) -> str:
        return sequence((v for _, v in self.pairs), ",")


@dataclass(frozen=True, slots=True)
class Mask:
    """`obs`: a face hidden from every side but the one that masked it (VASSAL's side
    access: `masked_by` is that side's name). A card is shown to its owner face down
    until peeked at (style P); a concealed unit is shown to its own side face up with
    the mask inset (style I), to the other side only as the mask."""

    key: Key
    back_image: str
    command: str = "Flip card"
    masked_name: str = "Card"
    masked_by: str = "null"  # state: the side it is hidden by
    style: str = "P"

    def type(self) -> str:
        fields = (self.key, self.back_image, self.command, self.style, self.masked_name)
        fields += ("side:", "Peek", "Card", True, "", "")
        return "obs;" + sequence(fields, ";")

    def state(self) -> str:
        return sequence((self.masked_by, ""), ";")


@dataclass(frozen=True, slots=True)
class Restricted:
    """`restrict`: only a player of one of `sides` may move the piece or give it a
    command (VASSAL's Restricted Access; the type is sides, by player, movement too,
    description)."""

    sides: tuple[str, ...]

    def type(self) -> str:
        return "restrict;" + sequence((sequence(self.sides, ","), False, True, ""), ";")

    def state(self) -> str:
        return ""


Trait = (
    BasicPiece
    | Layer
    | MarkMoved
    | Delete
    | SendTo
    | Report
    | Prototype
    | Properties
    | Mask
    | Restricted
)


def piece_type(traits: tuple[Trait, ...]) -> str:
    """The traits' types nested outermost first (`type = sequence('\\t'){mine, inner}`)."""
    inner = traits[-1].type()
    for t in reversed(traits[:-1]):
        inner = sequence((t.type(), inner), "\t")
    return inner


def piece_state(traits: tuple[Trait, ...]) -> str:
    inner = traits[-1].state()
    for t in reversed(traits[:-1]):
        inner = sequence((t.state(), inner), "\t")
    return inner


def definition(traits: tuple[Trait, ...], piece_id: str = "null") -> str:
    """A piece as VASSAL's AddPiece command writes it: `+/id/type/state`."""
    return "+/" + sequence((piece_id, piece_type(traits), piece_state(traits)), "/")
