"""The counters as VASSAL pieces: prototypes, PieceSlots and the palette's tabs.

Every unit, leader, marker and card of the ruleset gets one PieceSlot; the
traits all counters of a side share (the chat reports, move marking, the
Eliminate and Capture commands that send it to its side's box, delete) are a
prototype. Each counter carries the order states the rules can give it
(`states.py`) as layers of its own, its tags placed clear of its printed
values (`tags.py`): the PieceSlot those of any scenario, each scenario's
set-up those of that scenario. A two-step unit flips to its reduced face
with Ctrl+F, an image layer of its own; a unit of more steps has a level of
that layer for each further step's face (its replacement counters), which
Ctrl+Shift+F steps through. Markers a cup or deck holds are
cards: masked, so only their side sees the face. The module adds a counter
per track (Game Turn, each side's Army Morale, …) for the tracks board.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

from compiler import ir
from compiler.backends.names import named, the
from compiler.backends.print_and_play.charts import words
from compiler.backends.print_and_play.mix import Counter, face_names, ordinal
from compiler.backends.vassal.sequence import text
from compiler.backends.vassal.states import StateReading
from compiler.backends.vassal.tags import layer_offset, tag_places, tag_width
from compiler.backends.vassal.tracks import TrackBoard, captured_box, eliminated_box, pile_box
from compiler.backends.vassal.traits import (
    CTRL,
    BasicPiece,
    Delete,
    Key,
    Layer,
    MarkMoved,
    Mask,
    Properties,
    Prototype,
    Report,
    Restricted,
    SendTo,
    Trait,
    suffix,
)
from compiler.check.variables import EACH_SIDE

MAIN_MAP = "Map"
TRACKS_MAP = "Tracks"
MAIN_BOARD = "Map board"
TRACKS_BOARD = "Tracks board"
MOVED_ICON = "moved.png"

FLIP = Key(70)  # Ctrl+F
NEXT_STEP = Key(70, CTRL + 65)  # Ctrl+Shift+F: the order states' Ctrl+Shift letters leave F
ELIMINATE = Key(69)  # Ctrl+E
CAPTURE = Key(75)  # Ctrl+K
DELETE = Key(127)  # Ctrl+Delete
MARK_MOVED = Key(77)  # Ctrl+M
CONCEAL = Key(77, CTRL + 65)  # Ctrl+Shift+M: the order states' Ctrl+Shift letters leave M
# Ctrl+A/C/V/X/Z select, copy and undo in VASSAL; F, E, K, M are taken above.
RESERVED = set("ACVXZFEKM")
# The chat reports, in VASSAL's ReportState properties: `$oldX$` is piece property X before
# the command (the counter's name and where it stood: a hex, a box of the tracks board, a
# hand), `$newPieceName$` its name after, `$location$` where it is after. The command's
# words are written in, not `$menuCommand$`: VASSAL finds no menu entry to name for a
# counter the reporting player may not command.
REPORT_CHANGE = "$oldPieceName$ in $oldLocationName$: {words} → $newPieceName$"
REPORT_SENT = "$oldPieceName$ in $oldLocationName$: {words} → $location$"
REPORT_GONE = "$oldPieceName$ in $oldLocationName$: {words}"


def report(key: Key, words: str, form: str = REPORT_CHANGE) -> Report:
    """A chat line when `key` is pressed: which counter did what (`words`) where."""
    return Report((key,), form.format(words=words.replace("$", "")))


def state_reports(states: tuple[StateLayer, ...], flips: bool) -> tuple[Report, ...]:
    """A counter's reports of its own changes: its flip, each of its order states."""
    out = [report(FLIP, "Flip")] if flips else []
    for st in states:
        out.append(report(st.activate, st.title))
        if st.increase is not None:
            out.append(report(st.increase, f"{st.title}: next"))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class StateLayer:
    """An order state as a layer: a yes/no state has one level, a named one a level per value."""

    variable: str
    title: str
    levels: tuple[str, ...]  # the words on each level's tag
    images: tuple[str, ...]
    activate: Key
    increase: Key | None

    def layer(self, offset: tuple[int, int] = (0, 0)) -> Layer:
        """The layer, its tag moved by `offset` from the counter's centre."""
        x, y = offset
        if len(self.levels) == 1:
            return Layer(
                self.title,
                self.images,
                (suffix(self.levels[0]),),
                self.levels[0],
                self.activate,
                x_offset=x,
                y_offset=y,
            )
        return Layer(
            self.title,
            self.images,
            tuple(suffix(level) for level in self.levels),
            f"{self.title}: {' / '.join(self.levels)}",
            self.activate,
            f"{self.title}: next",
            self.increase,
            loop=True,
            x_offset=x,
            y_offset=y,
        )


@dataclass(frozen=True, slots=True)
class Slot:
    """One PieceSlot: its palette entry, gpid, traits and where it goes in the palette."""

    entry: str
    name: str  # the unit's or marker's name in the rules
    gpid: int
    traits: tuple[Trait, ...]
    kind: str  # "unit", "leader", "piece", "marker", "card" or "track"
    tab: str
    group: str


@dataclass
class Pieces:
    prototypes: dict[str, tuple[Trait, ...]] = field(default_factory=dict)
    slots: list[Slot] = field(default_factory=list)
    states: list[StateLayer] = field(default_factory=list)
    track_markers: dict[tuple[str, str], Slot] = field(default_factory=dict)
    turn_marker: Slot | None = None
    piles: dict[str, list[Slot]] = field(default_factory=dict)  # bag → its cards, in order
    # scenario → unit → its traits there, where its order states differ from its PieceSlot's
    in_scenario: dict[str, dict[str, tuple[Trait, ...]]] = field(default_factory=dict)

    def slot(self, name: str) -> Slot:
        return the(self.slots, name)

    def traits_in(self, scenario: str, unit: str) -> tuple[Trait, ...]:
        """A unit's traits in a scenario's set-up: only the order states it may carry there."""
        mine = self.in_scenario.get(scenario, {})
        return mine[unit] if unit in mine else self.slot(unit).traits

    @property
    def next_gpid(self) -> int:
        every = [s.gpid for s in self.slots] + [c.gpid for p in self.piles.values() for c in p]
        return max(every, default=0) + 1


def _key_for(title: str, used: set[str]) -> Key:
    """Ctrl and the first free letter of the title; Ctrl+Shift when every letter is taken."""
    for ch in title.upper():
        if "A" <= ch <= "Z" and ch not in used:
            used.add(ch)
            return Key(ord(ch))
    for ch in "BDGHIJLNOPQRSTUWY":
        if ch not in used:
            used.add(ch)
            return Key(ord(ch), CTRL + 65)
    raise ValueError("more order states than keys")


def order_states(reading: StateReading) -> list[StateLayer]:
    """A layer for every mark of the rules, each with its own keys, module-wide; a yes/no
    mark is called by its marker's title where it has one, not by its variable's name."""
    used = set(RESERVED)
    out = []
    for v in reading.marks:
        marker = reading.marker_of(v)
        title = text(marker.title if marker is not None and v.type == "bool" else v.title)
        if v.type == "bool":
            levels = (title,)
        else:
            levels = tuple(words(x).capitalize() for x in v.values if x != v.initial)
        images = tuple(f"state-{v.name}-{k}.png" for k in range(len(levels)))
        activate = _key_for(title, used)
        increase = _key_for(title + "next", used) if len(levels) > 1 else None
        out.append(StateLayer(v.name, title, levels, images, activate, increase))
    return out


def counter_prototype(side: ir.Side, board: TrackBoard) -> tuple[Trait, ...]:
    elim = board.box(eliminated_box(side)).centre
    capt = board.box(captured_box(side)).centre
    return (
        Restricted((text(side.title),)),
        report(ELIMINATE, "Eliminate", REPORT_SENT),
        report(CAPTURE, "Capture", REPORT_SENT),
        report(DELETE, "Delete", REPORT_GONE),
        MarkMoved(MOVED_ICON),
        SendTo("Eliminate", ELIMINATE, TRACKS_MAP, TRACKS_BOARD, *elim),
        SendTo("Capture", CAPTURE, TRACKS_MAP, TRACKS_BOARD, *capt),
        Delete(),
        BasicPiece("", ""),
    )


def marker_prototype() -> tuple[Trait, ...]:
    gone = report(DELETE, "Delete", REPORT_GONE)
    return (report(FLIP, "Flip"), gone, Delete(), BasicPiece("", ""))


def card_prototype() -> tuple[Trait, ...]:
    gone = report(DELETE, "Delete", REPORT_GONE)
    return (report(FLIP, "Flip card"), gone, Delete(), BasicPiece("", ""))


def flip_layer(back_image: str, words_: str) -> Layer:
    return Layer("Flip", (back_image,), (suffix(words_),), "Flip", FLIP)


def step_traits(u: ir.Unit) -> tuple[Trait, ...]:
    """A unit of more than two steps: Ctrl+F flips it as a two-step unit, and once
    flipped Ctrl+Shift+F steps on to each further step's face (reported in the chat)."""
    faces = face_names(u)[1:]
    levels = ("reduced", *(f"{ordinal(step)} step" for step in range(3, len(faces) + 2)))
    layer = Layer(
        "Flip",
        tuple(f"{face}.png" for face in faces),
        tuple(suffix(level) for level in levels),
        "Flip",
        FLIP,
        "Next step",
        NEXT_STEP,
        loop=True,
    )
    return (report(NEXT_STEP, "Next step"), layer)


def side_prototype_name(side: str) -> str:
    return f"{side} counter"


def concealable(rules: ir.Ruleset, u: ir.Unit) -> bool:
    """Whether a `conceal` declaration may keep the unit from another side (which units
    at which moment is the declaration's condition, for the players to apply)."""
    return any(c.observer != u.side for c in rules.concealments)


def mask_image(side: str) -> str:
    return f"mask-{side}.png"


def concealed(traits: tuple[Trait, ...], side: ir.Side) -> tuple[Trait, ...]:
    """A unit's traits with its mask on: hidden from every side but its own."""
    owner = text(side.title)
    return tuple(replace(t, masked_by=owner) if isinstance(t, Mask) else t for t in traits)


def unit_traits(
    rules: ir.Ruleset, u: ir.Unit, gpid: int, states: tuple[tuple[StateLayer, Layer], ...] = ()
) -> tuple[Trait, ...]:
    """A unit's or leader's traits; `states` its order states with their layers (drawn over
    its faces), each change reported in the chat."""
    side = the(rules.sides, u.side)
    formation = named(rules.formations, u.formation)
    traits: list[Trait] = []
    if concealable(rules, u):
        masked = f"{text(side.title)} unit"
        traits.append(Mask(CONCEAL, mask_image(u.side), "Conceal / reveal", masked, style="I"))
    traits.append(Prototype(side_prototype_name(u.side)))
    traits += state_reports(tuple(st for st, _ in states), flips=len(u.strengths) >= 2)
    traits += [layer for _, layer in states]
    if len(u.strengths) > 2:
        traits += step_traits(u)
    elif len(u.strengths) == 2:
        traits.append(flip_layer(f"{u.name}-back.png", "reduced"))
    props = [("Side", text(side.title)), ("Kind", u.kind)]
    if formation is not None:
        props.append(("Formation", text(formation.title)))
    traits.append(Properties(tuple(props)))
    traits.append(BasicPiece(f"{u.name}-front.png", text(u.title), gpid))
    return tuple(traits)


def placed_face_down(rules: ir.Ruleset, m: ir.Marker) -> bool:
    """Whether the marker is its side's to place face down: a variable secret to
    that side holds markers (an ambush marker and its dummies, placed in hexes)."""
    return bool(m.side) and any(
        v.type == "marker" and v.secret in (m.side, EACH_SIDE) for v in rules.variables
    )


def marker_traits(rules: ir.Ruleset, m: ir.Marker, gpid: int, card: bool) -> tuple[Trait, ...]:
    side = named(rules.sides, m.side)
    props = (("Side", text(side.title) if side else ""), ("Kind", "card" if card else "marker"))
    front, back = f"{m.name}-front.png", f"{m.name}-back.png"
    if side is not None and not card and placed_face_down(rules, m):
        # Face down to the other side until its side reveals it (VASSAL's side-owned mask).
        owner = text(side.title)
        return (
            Mask(CONCEAL, back, "Place face down / reveal", f"{owner} marker", owner, style="I"),
            Prototype("marker"),
            Properties(props),
            BasicPiece(front, text(m.title), gpid),
        )
    if card:
        return (
            Mask(FLIP, back),
            Prototype("card"),
            Properties(props),
            BasicPiece(front, text(m.title), gpid),
        )
    return (
        Prototype("marker"),
        flip_layer(back, "back"),
        Properties(props),
        BasicPiece(front, text(m.title), gpid),
    )


def track_marker_image(n: int) -> str:
    return f"track-{n}.png"


def pieces_of(
    rules: ir.Ruleset, board: TrackBoard, faces: dict[str, Counter] | None = None
) -> Pieces:
    """Every piece of the module, numbered in order: units, markers, the track
    markers, then the cards of each cup or deck. `faces`: each counter's laid-out
    faces, by name, that its state tags keep clear of."""
    out = Pieces()
    reading = StateReading(rules)
    out.states = order_states(reading)
    out.prototypes = prototypes(rules, board)
    layers = _state_layers(reading, out.states, faces or {})
    gpids = itertools.count(1)
    for u in rules.units:
        out.slots.append(_unit_slot(rules, u, next(gpids), tuple(layers.get(u.name, {}).values())))
    for sc in rules.scenarios:
        offered = reading.offered(sc)
        mine = out.in_scenario.setdefault(sc.name, {})
        for u, slot in zip(rules.units, out.slots, strict=True):
            kept = tuple(layers[u.name][v] for v in offered.get(u.name, ()))
            if len(kept) != len(layers.get(u.name, {})):
                mine[u.name] = unit_traits(rules, u, slot.gpid, kept)
    in_bags = card_names(rules)
    out.slots += [_marker_slot(rules, m, next(gpids), m.name in in_bags) for m in rules.markers]
    out.turn_marker = _track_slot(0, "Game Turn marker", next(gpids))
    out.slots.append(out.turn_marker)
    for n, track in enumerate(board.tracks, start=1):
        slot = _track_slot(n, f"{track.title} marker", next(gpids))
        out.slots.append(slot)
        out.track_markers[(track.variable, track.side)] = slot
    markers = {m.name: m for m in rules.markers}
    for bag in rules.bags:
        out.piles[bag.name] = [
            _card_slot(rules, markers[name], n, bag, next(gpids))
            for n, name in enumerate(bag.contents, start=1)
        ]
    return out


def _state_layers(
    reading: StateReading, states: list[StateLayer], faces: dict[str, Counter]
) -> dict[str, dict[str, tuple[StateLayer, Layer]]]:
    """Unit → state → its layer, for the states it may carry in any scenario, each tag
    in a place of its own on that counter."""
    by_variable = {st.variable: st for st in states}
    out = {}
    for unit, variables in reading.offered(None).items():
        widths = tuple(tag_width(by_variable[v].levels) for v in variables)
        places = tag_places(faces.get(unit), widths)
        out[unit] = {
            v: (by_variable[v], by_variable[v].layer(layer_offset(place, w)))
            for v, place, w in zip(variables, places, widths, strict=True)
        }
    return out


def card_names(rules: ir.Ruleset) -> set[str]:
    """The markers some cup or deck holds: cards."""
    return {name for bag in rules.bags for name in bag.contents}


def prototypes(rules: ir.Ruleset, board: TrackBoard) -> dict[str, tuple[Trait, ...]]:
    """Each side's counter prototype, the marker's and (with cards) the card's."""
    out = {side_prototype_name(side.name): counter_prototype(side, board) for side in rules.sides}
    out["marker"] = marker_prototype()
    if card_names(rules):
        out["card"] = card_prototype()
    return out


def _unit_slot(
    rules: ir.Ruleset, u: ir.Unit, gpid: int, states: tuple[tuple[StateLayer, Layer], ...]
) -> Slot:
    """A unit or leader, in its side's tab and its formation's group."""
    side = the(rules.sides, u.side)
    formation = named(rules.formations, u.formation)
    group = text(formation.title) if formation else ("Leaders" if u.kind == "leader" else "Other")
    traits = unit_traits(rules, u, gpid, states)
    return Slot(text(u.title), u.name, gpid, traits, u.kind, text(side.title), group)


def _marker_slot(rules: ir.Ruleset, m: ir.Marker, gpid: int, card: bool) -> Slot:
    """A marker or card: a side's in its side's tab, a shared one under Markers; one
    that shows terrain changed in play (a pontoon laid) in a group of its own."""
    side = named(rules.sides, m.side)
    tab = text(side.title) if side else "Markers"
    group = ("Cards and chits" if card else "Markers") if m.side else "Markers"
    if any(c.marker == m.name for c in rules.terrain_changes):
        group = "Terrain changes"
    kind = "card" if card else "marker"
    traits = marker_traits(rules, m, gpid, card)
    return Slot(text(m.title), m.name, gpid, traits, kind, tab, group)


def _track_slot(n: int, name: str, gpid: int) -> Slot:
    """The marker of track `n` (0: the Game Turn), in the Tracks tab."""
    traits = (Prototype("marker"), BasicPiece(track_marker_image(n), name, gpid))
    return Slot(name, "", gpid, traits, "track", "Tracks", "Tracks")


def _card_slot(rules: ir.Ruleset, m: ir.Marker, n: int, bag: ir.Bag, gpid: int) -> Slot:
    """The `n`th card of a cup or deck: a masked marker."""
    traits = marker_traits(rules, m, gpid, True)
    return Slot(f"{text(m.title)} {n}", m.name, gpid, traits, "card", "", pile_name(bag))


def pile_name(bag: ir.Bag) -> str:
    return pile_box(bag)


def expanded(
    traits: tuple[Trait, ...], prototypes: dict[str, tuple[Trait, ...]]
) -> tuple[Trait, ...]:
    """The traits with every prototype replaced by its own traits (as a saved game holds them)."""
    out: list[Trait] = []
    for t in traits:
        if isinstance(t, Prototype):
            out += expanded(prototypes[t.name][:-1], prototypes)
        else:
            out.append(t)
    return tuple(out)
