"""A reader for VASSAL modules, written from FORMAT.md: decodes what the generator encodes.

Kept apart from the generator on purpose: it follows VASSAL's decoder
(SequenceEncoder.Decoder), so a test that encodes with the backend and
decodes here checks the two against the format rather than against each
other's code.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

# Fields each trait's type has after its id (VASSAL 3.7), for well-formedness.
TRAIT_FIELDS = {
    "piece": 4,
    "emb2": 33,
    "markmoved": 11,
    "delete": 3,
    "sendto": 18,
    "report": 6,
    "prototype": 1,
    "obs": 11,
    "restrict": 4,
}


def split(value: str, delimiter: str) -> list[str]:
    """VASSAL's SequenceEncoder.Decoder: a delimiter after a backslash is part of the value."""
    if value == "":
        return [""]
    out: list[str] = []
    buf = ""
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == delimiter:
            if i > 0 and value[i - 1] == "\\":
                buf = buf[:-1] + ch
            else:
                out.append(buf)
                buf = ""
        else:
            buf += ch
        i += 1
    out.append(buf)
    return [unquote(v) for v in out]


def unquote(v: str) -> str:
    if len(v) > 1 and v.startswith("'") and v.endswith("'"):
        return v[1:-1]
    return v


@dataclass
class Trait:
    id: str  # "piece", "emb2", "mark", …
    fields: list[str]  # the type's fields after the id
    state: str


@dataclass
class DecodedPiece:
    piece_id: str
    traits: list[Trait]  # outermost first, BasicPiece last

    @property
    def basic(self) -> Trait:
        return self.traits[-1]

    @property
    def name(self) -> str:
        return self.basic.fields[3]

    @property
    def image(self) -> str:
        return self.basic.fields[2]

    def state_of(self) -> list[str]:
        return split(self.basic.state, ";")

    def trait(self, tid: str) -> list[Trait]:
        return [t for t in self.traits if t.id == tid]

    def properties(self) -> dict[str, str]:
        out = {}
        for t in self.trait("mark"):
            out.update(zip(t.fields, split(t.state, ","), strict=True))
        return out


def unnest(text: str) -> list[str]:
    """`mine\\tinner` repeatedly: the traits of a nested type or state, outermost first."""
    out = []
    while True:
        parts = split(text, "\t")
        if len(parts) == 1:
            out.append(parts[0])
            return out
        assert len(parts) == 2, f"a nested trait splits in two, not {len(parts)}: {text[:80]!r}"
        out.append(parts[0])
        text = parts[1]


def decode_piece(text: str) -> DecodedPiece:
    """`+/id/type/state` into traits, checking each trait's field count."""
    assert text.startswith("+/"), text[:40]
    parts = split(text[2:], "/")
    assert len(parts) == 3, f"+/id/type/state has three parts, not {len(parts)}"
    piece_id, type_, state = parts
    types, states = unnest(type_), unnest(state)
    assert len(types) == len(states), (len(types), len(states))
    traits = []
    for t, s in zip(types, states, strict=True):
        tid, _, rest = t.partition(";")
        fields = split(rest, ",") if tid == "mark" else split(rest, ";")
        want = TRAIT_FIELDS.get(tid)
        assert want is None or len(fields) == want, f"{tid} has {len(fields)} fields, not {want}"
        traits.append(Trait(tid, fields, s))
    assert traits[-1].id == "piece", "the innermost trait is a BasicPiece"
    return DecodedPiece(piece_id, traits)


def deobfuscate(data: bytes) -> str:
    text = data.decode("ascii")
    assert text.startswith("!VCSK")
    key = int(text[5:7], 16)
    body = bytes(int(text[i : i + 2], 16) ^ key for i in range(7, len(text), 2))
    return body.decode("utf-8")


@dataclass
class SavedGame:
    pieces: dict[str, DecodedPiece]
    stacks: list[tuple[str, int, int, list[str]]]  # map, x, y, piece ids
    commands: list[str]


def read_save(vsav: bytes) -> SavedGame:
    with zipfile.ZipFile(io.BytesIO(vsav)) as z:
        text = deobfuscate(z.read("savedGame"))
    commands = text.split("\x1b")
    assert commands[0] == "begin_save" and commands[-1] == "end_save"
    pieces, stacks = {}, []
    for c in commands[1:-1]:
        if not c.startswith("+/"):
            continue
        pid, type_, state = split(c[2:], "/")
        if type_ == "stack":
            fields = split(state, ";")
            assert fields[-1].startswith("@@")
            stacks.append((fields[0], int(fields[1]), int(fields[2]), fields[3:-1]))
        else:
            pieces[pid] = decode_piece(c)
    return SavedGame(pieces, stacks, commands)
