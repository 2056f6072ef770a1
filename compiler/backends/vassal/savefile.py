"""A scenario's set-up as a VASSAL saved game (`.vsav`): its pieces in stacks on the maps.

The game text is VASSAL's commands separated by ESC: `begin_save`, an
AddPiece (`+/id/type/state`) per piece with its prototypes expanded and its
map and position in the BasicPiece state, an AddPiece per stack naming its
pieces, each map's board, the module's GlobalProperty values the set-up
sets (the hex the map opens at), the Turn tracker's position, `end_save`
(FORMAT.md, "Set-ups and saved games"). The text is written obfuscated as
VASSAL writes it: `!VCSK`, a key byte in hex, then every UTF-8 byte XOR the
key in hex. The key is fixed so that the module is the same on every build.
`SETUP_STACK` is left out on purpose: VASSAL then fills the cups and decks
from their card slots when the set-up is opened.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from compiler.backends.vassal.archive import zipped
from compiler.backends.vassal.sequence import sequence
from compiler.backends.vassal.traits import BasicPiece, Trait, piece_state, piece_type

ESC = "\x1b"
GLOBAL_PROPERTY = "GlobalProperty\t"  # the command that sets a GlobalProperty: prefix;name;value;
HEADER = "!VCSK"
KEY = 0x5A


@dataclass(frozen=True, slots=True)
class SavedPiece:
    traits: tuple[Trait, ...]  # prototypes already expanded; BasicPiece last
    map: str
    x: int
    y: int


def obfuscate(plain: str, key: int = KEY) -> bytes:
    return (HEADER + f"{key:02x}" + "".join(f"{b ^ key:02x}" for b in plain.encode())).encode()


# Each scenario's pieces are numbered from their own block of ids: a VASSAL session
# that opens one scenario after another then never meets a piece id twice.
ID_BLOCK = 100_000


def game_text(
    stacks: list[list[SavedPiece]],
    boards: dict[str, str],
    block: int = 0,
    properties: dict[str, str] | None = None,
    components: Sequence[str] = (),
) -> str:
    """The commands that place every stack; ids are numbered in order, pieces before
    stacks, from the start of id block `block` (the scenario's number); then each of
    `properties` (a module GlobalProperty) set to its value, and the `components`'
    commands (the Turn tracker's position)."""
    commands = ["begin_save"]
    stack_commands = []
    n = block * ID_BLOCK
    for stack in stacks:
        ids = []
        for p in stack:
            n += 1
            pid = str(n)
            basic = p.traits[-1]
            assert isinstance(basic, BasicPiece)
            props = (("UniqueID", pid),)
            traits = (*p.traits[:-1], replace(basic, map=p.map, x=p.x, y=p.y, properties=props))
            commands.append("+/" + sequence((pid, piece_type(traits), piece_state(traits)), "/"))
            ids.append(pid)
        n += 1
        first = stack[0]
        state = sequence((first.map, first.x, first.y, *ids, "@@0"), ";")
        stack_commands.append("+/" + sequence((str(n), "stack", state), "/"))
    commands += stack_commands
    commands += [f"{m}BoardPicker\t{b}\t0\t0" for m, b in boards.items()]
    for name, value in (properties or {}).items():
        commands.append(sequence((GLOBAL_PROPERTY, name, value, ""), ";"))
    commands += components
    commands.append("end_save")
    return ESC.join(commands)


def savefile(text: str, savedata: bytes, moduledata: bytes) -> bytes:
    return zipped({"savedGame": obfuscate(text), "savedata": savedata, "moduledata": moduledata})
