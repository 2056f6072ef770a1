"""A game Muster played, as a VASSAL log (`.vlog`) to step through in the battle's module.

`muster replay game.jsonl --vassal game.vlog` replays a record with the
engine (`engine.play.certify`) and hands each position to `PlayedGame`,
which keeps how the VASSAL table shows it: every unit on its hex, in its
entry turn's box, in its side's Eliminated, Captured or Exited box, or out of play;
its reduced face and order-state layers; its concealment mask; the Game Turn
marker and every track marker in their boxes; the Turn tracker on the turn
and phase under way. The log starts from the engine's first position and
has one step per line of the record (after an opening step that names the
game): the engine's account of the action as chat lines (the action in
words when the engine says nothing) and the commands that change the table
from the last position to this one.

The pieces are the module's own (`pieces_of`, the same traits, prototypes
expanded as a saved game holds them), numbered from the scenario's block of
ids (`savefile.ID_BLOCK`) by their PieceSlot's gpid, so a piece keeps its id
whether it starts on the map or enters later.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from compiler import ir
from compiler.backends.map_render import MapRenderer
from compiler.backends.names import the
from compiler.backends.print_and_play.mix import counter_mix
from compiler.backends.vassal import description, phase_names, tracks
from compiler.backends.vassal.grid import grid_of
from compiler.backends.vassal.images import SCREEN_DPI
from compiler.backends.vassal.log_file import (
    NULL,
    AddPiece,
    ChangePiece,
    Chat,
    Command,
    MovePiece,
    RemovePiece,
    SetTurn,
    log_file,
    log_text,
    stack,
)
from compiler.backends.vassal.metadata import metadata
from compiler.backends.vassal.pieces import (
    MAIN_BOARD,
    MAIN_MAP,
    TRACKS_BOARD,
    TRACKS_MAP,
    Pieces,
    Slot,
    expanded,
    pieces_of,
)
from compiler.backends.vassal.savefile import ID_BLOCK
from compiler.backends.vassal.sequence import text
from compiler.backends.vassal.traits import BasicPiece, Layer, Mask, Prototype, Trait, piece_state
from compiler.backends.vassal.turn_tracker import set_turn
from compiler.map.model import MapModel
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles
from engine.errors import BadInput
from engine.game import Game
from engine.information import hidden_values
from engine.rules import VariableSpec
from engine.state import CAPTURED, ELIMINATED, EXITED, NOT_ENTERED, ON_MAP, State
from engine.terrain_state import CHANGED_TERRAIN, split_entry

Place = tuple[str, int, int]  # a map and a point on it


@dataclass(frozen=True, slots=True)
class Look:
    """How the table shows a piece: where (None: not in play), the level of each of
    its changing layers (-1: off) and the side that masks it (`null`: none)."""

    place: Place | None
    levels: tuple[int, ...] = ()
    masked_by: str = NULL


# How a piece shows in a state, given the units concealed there.
LookOf = Callable[[State, frozenset[int]], Look]


@dataclass(frozen=True, slots=True)
class Counter:
    """A piece of the log: its id, its traits as the module has them (prototypes
    expanded), and where in them the layers and the mask that change are."""

    piece: str
    traits: tuple[Trait, ...]
    layers: tuple[int, ...] = ()
    mask: int | None = None
    stays: bool = False  # a track marker: a value off its track leaves it in its last box

    def traits_at(self, look: Look, place: Place | None) -> tuple[Trait, ...]:
        """The traits showing `look`'s layers and mask, the piece at `place`."""
        out = list(self.traits)
        for i, level in zip(self.layers, look.levels, strict=True):
            out[i] = replace(out[i], level=level)
        if self.mask is not None:
            out[self.mask] = replace(out[self.mask], masked_by=look.masked_by)
        basic = out[-1]
        assert isinstance(basic, BasicPiece)
        map_, x, y = place or (NULL, 0, 0)
        out[-1] = replace(basic, map=map_, x=x, y=y, properties=(("UniqueID", self.piece),))
        return tuple(out)


class PlayedGame:
    """The log of one game, step by step: `record` each position the replay reaches
    (as `certify`'s `on_move`), then `vlog()`."""

    def __init__(self, rules: ir.Ruleset, game: Game, heading: str) -> None:
        if rules.map is None:
            raise BadInput(f"{rules.name} has no map, so no VASSAL module to step a log in")
        self.rules = rules
        self.game = game
        self.heading = heading
        self.board = tracks.layout(rules)
        self.grid = grid_of(MapRenderer(MapModel(rules), SCREEN_DPI))
        # The counters' faces place the order states' tags as the module does.
        faces = {c.name: c for c in counter_mix(rules, Reporter(SourceFiles()))}
        pieces = pieces_of(rules, self.board, faces)
        scenario = game.scenario.name if game.scenario else None
        self.scenario = scenario
        number = next((i for i, sc in enumerate(rules.scenarios) if sc.name == scenario), 0)
        self.base = number * ID_BLOCK
        self.next_id = self.base + pieces.next_gpid
        self.counters: list[Counter] = []
        self.boxes = {b.name: (TRACKS_MAP, *b.centre) for b in self.board.boxes}
        self.looks: list[LookOf] = []
        self._add_units(pieces)
        self._add_track_markers(pieces)
        self._add_terrain_markers(pieces)
        self._add_placed_markers(pieces)
        self.shown: list[Look] = []
        self.start: list[str] = []
        self.steps: list[list[Command]] = []
        # The Turn tracker: each phase's place in its list, and the turn and phase shown.
        self.phase_place = {name: i for i, name in enumerate(phase_names(rules))}
        self.turn_shown = (rules.turns[0], 0)

    # ------------------------------------------------------------ the pieces

    def _id(self, slot: Slot) -> str:
        return str(self.base + slot.gpid)

    def _add_units(self, pieces: Pieces) -> None:
        """Each unit and leader: its traits in the scenario (the order states it may
        carry there, as layers), and how its look follows from the engine's state."""
        variables = {v.name: v for v in self.rules.variables}
        states = {st.title: st for st in pieces.states}
        for u in self.rules.units:
            slot = next(s for s in pieces.slots if s.name == u.name and s.kind == u.kind)
            own = pieces.traits_in(self.scenario, u.name) if self.scenario else slot.traits
            traits: list[Trait] = []
            layers: list[int] = []
            levels: list[Callable[[State, int], int]] = []
            mask = None
            for t in own:
                if isinstance(t, Prototype):
                    traits += expanded((t,), pieces.prototypes)
                elif isinstance(t, Layer):  # an order state, or the reduced face (Ctrl+F)
                    layers.append(len(traits))
                    st = states.get(t.name)
                    levels.append(_state_level(variables[st.variable]) if st else _reduced_level)
                    traits.append(t)
                else:
                    mask = len(traits) if isinstance(t, Mask) else mask
                    traits.append(t)
            counter = Counter(self._id(slot), tuple(traits), tuple(layers), mask)
            self.counters.append(counter)
            self.looks.append(self._unit_look(u, tuple(levels), mask is not None))

    def _unit_look(
        self, u: ir.Unit, levels: tuple[Callable[[State, int], int], ...], masked: bool
    ) -> LookOf:
        """Where the unit is in a state and how it shows there."""
        index = self.game.unit_by_name[u.name]
        side = the(self.rules.sides, u.side)
        owner = text(side.title)
        labels = self.game.rules.board.labels
        boxes = {
            ELIMINATED: self._box(tracks.eliminated_box(side)),
            CAPTURED: self._box(tracks.captured_box(side)),
        }
        if self.rules.exits:
            boxes[EXITED] = self._box(tracks.exited_box(side))
        entry = self._turn_box(self.game.entries[index][0])

        def look(s: State, hidden: frozenset[int]) -> Look:
            status = s.unit_status[index]
            if status == ON_MAP:
                place: Place | None = (MAIN_MAP, *self.grid.point(labels[s.unit_hex[index]]))
            elif status == NOT_ENTERED:
                place = entry
            else:
                place = boxes.get(status)  # out of play: off the table
            mask = owner if masked and index in hidden else NULL
            return Look(place, tuple(f(s, index) for f in levels), mask)

        return look

    def _hidden(self, s: State) -> frozenset[int]:
        """The units the rules keep from some side now: each is masked by its owner."""
        if not self.rules.concealments:
            return frozenset()
        return frozenset(u for p in range(len(self.rules.sides)) for u in s.concealed_from(p))

    def _add_track_markers(self, pieces: Pieces) -> None:
        """The Game Turn marker and each track's marker, in the box of their value."""
        if pieces.turn_marker is not None:
            self._add_marker(pieces, pieces.turn_marker, lambda s: self._turn_box(s.vars["turn"]))
        for track in self.board.tracks:
            slot = pieces.track_markers[(track.variable, track.side)]
            self._add_marker(pieces, slot, self._track_place(track))

    def _add_marker(
        self, pieces: Pieces, slot: Slot, place: Callable[[State], Place | None]
    ) -> None:
        traits = expanded(slot.traits, pieces.prototypes)
        self.counters.append(Counter(self._id(slot), traits, stays=True))
        self.looks.append(lambda s, hidden: Look(place(s)))

    def _extra_piece(self, slot: Slot, first: bool) -> str:
        """The id of a further piece from a marker's slot (a marker counted more than
        once, a change marked at several places): the slot's own first, then fresh ids
        after the module's pieces."""
        if first:
            return self._id(slot)
        self.next_id += 1
        return str(self.next_id - 1)

    def _marker_counter(self, pieces: Pieces, slot: Slot, piece: str) -> Counter:
        traits = expanded(slot.traits, pieces.prototypes)
        mask = next((i for i, t in enumerate(traits) if isinstance(t, Mask)), None)
        return Counter(piece, traits, mask=mask)

    def _add_terrain_markers(self, pieces: Pieces) -> None:
        """A terrain change's marker on each hex and hexside it changes, once it is made
        (at the place chosen, for a change made at one of several)."""
        slots = {s.name: s for s in pieces.slots if s.kind == "marker"}
        labels = self.game.rules.board.labels
        for c in self.game.rules.terrain_changes:
            slot = slots.get(c.marker)
            if slot is None:
                continue
            spots = [("", (h,)) for h in c.hexes] + [("", pair) for pair in c.hexsides]
            for place, hexes, hexsides in c.places:
                spots += [(place, (h,)) for h in hexes] + [(place, pair) for pair in hexsides]
            for n, (place, spot) in enumerate(spots):
                point = self._between(tuple(labels[h] for h in spot))
                counter = self._marker_counter(pieces, slot, self._extra_piece(slot, n == 0))
                self.counters.append(counter)
                self.looks.append(self._change_look(c.name, place, point))

    def _between(self, labels: tuple[str, ...]) -> Place:
        """The middle of a hex, or of a hexside's two hexes, on the main map."""
        points = [self.grid.point(label) for label in labels]
        x = round(sum(p[0] for p in points) / len(points))
        y = round(sum(p[1] for p in points) / len(points))
        return (MAIN_MAP, x, y)

    @staticmethod
    def _change_look(change: str, place: str, point: Place) -> LookOf:
        def look(s: State, hidden: frozenset[int]) -> Look:
            made = dict(split_entry(e) for e in s.vars.get(CHANGED_TERRAIN, ()))
            return Look(point if made.get(change) == place else None)

        return look

    def _add_placed_markers(self, pieces: Pieces) -> None:
        """The markers the rules place on hexes (a `per hex` variable of markers): as many
        pieces of each as the counter mix holds, on the hexes holding it in board
        order, masked by their side while the other side may not read them."""
        holders = [v for v in self.game.rules.variables if v.scope == "hex" and v.type == "marker"]
        if not holders:
            return
        slots = {s.name: s for s in pieces.slots if s.kind == "marker"}
        for m in self.rules.markers:
            slot = slots.get(m.name)
            if slot is None:
                continue
            owner = text(the(self.rules.sides, m.side).title) if m.side else NULL
            for k in range(max(m.count, 1)):
                counter = self._marker_counter(pieces, slot, self._extra_piece(slot, k == 0))
                self.counters.append(counter)
                self.looks.append(self._placed_look(holders, m.name, k, owner))

    def _placed_look(self, holders: list[VariableSpec], marker: str, k: int, owner: str) -> LookOf:
        labels = self.game.rules.board.labels
        sides = range(len(self.rules.sides))

        def look(s: State, hidden: frozenset[int]) -> Look:
            spots = [(v, h) for v in holders for h, x in enumerate(s.vars[v.name]) if x == marker]
            if k >= len(spots):
                return Look(None)
            v, h = spots[k]
            secret = any(h in hidden_values(s, p).get(v.name, ()) for p in sides)
            return Look(self._between((labels[h],)), masked_by=owner if secret else NULL)

        return look

    def _track_place(self, track: tracks.Track) -> Callable[[State], Place | None]:
        side = self.game.side_by_name.get(track.side)

        def place(s: State) -> Place | None:
            value = s.vars.get(track.variable)
            if side is not None and isinstance(value, tuple):
                value = value[side]
            if not isinstance(value, int) or isinstance(value, bool):
                return None
            return self._box(tracks.track_box(track, min(max(value, track.low), track.high)))

        return place

    def _turn_box(self, turn: object) -> Place | None:
        return self._box(tracks.turn_box(turn)) if isinstance(turn, int) else None

    def _box(self, name: str) -> Place | None:
        """The centre of a box of the tracks board (None when the board has no such box)."""
        return self.boxes.get(name)

    # ------------------------------------------------------------ the log

    def record(self, s: State, line: dict[str, Any], account: list[str]) -> None:
        """A position the replay reached: the first (`line` empty) sets the table up,
        each later one is a step."""
        hidden = self._hidden(s)
        looks = [look(s, hidden) for look in self.looks]
        turn = self._turn(s)
        if not self.shown:
            self.start = self._set_up(looks, turn)
            self.shown = looks
            self.turn_shown = turn
            self.steps.append([Chat(self.heading), *map(Chat, account)])
            return
        step: list[Command] = [Chat(m) for m in account] or [Chat(self._in_words(line))]
        if turn != self.turn_shown:
            step.append(SetTurn(self._set_turn(turn)))
            self.turn_shown = turn
        for i, (c, was) in enumerate(zip(self.counters, self.shown, strict=True)):
            if c.stays and looks[i].place is None:
                looks[i] = was
            if was != looks[i]:
                step += changes(c, was, looks[i])
        self.shown = looks
        self.steps.append(step)

    def _turn(self, s: State) -> tuple[int, int]:
        """The turn and the phase's place in the tracker's list: the innermost phase under
        way (between phases, the one shown last); the turn kept within the battle's
        turns (a game over after its last turn is on the turn after it)."""
        first, last = self.rules.turns
        turn = s.vars.get("turn")
        if not isinstance(turn, int) or isinstance(turn, bool):
            turn = self.turn_shown[0]
        phase = next(
            (self.phase_place[f.proc] for f in reversed(s.stack) if f.proc in self.phase_place),
            self.turn_shown[1],
        )
        return min(max(turn, first), last), phase

    def _set_turn(self, turn: tuple[int, int]) -> str:
        return set_turn(turn[0], self.rules.turns[1], turn[1], len(self.phase_place))

    def _in_words(self, line: dict[str, Any]) -> str:
        """An action the engine gave no account of: who took it, and the log's words."""
        player = line.get("player", "")
        side = next((x for x in self.rules.sides if x.name == player), None)
        who = text(side.title) if side is not None else "Dice"
        return f"{who}: {line.get('text', '')}"

    def _set_up(self, looks: list[Look], turn: tuple[int, int]) -> list[str]:
        """The first position as a saved game: each piece in play, then the stacks,
        then the boards of both maps and the Turn tracker."""
        pieces, stacks = [], {}
        for c, look in zip(self.counters, looks, strict=True):
            if look.place is not None:
                pieces.append(AddPiece(c.piece, c.traits_at(look, look.place)).text())
                stacks.setdefault(look.place, []).append(c.piece)
        piled = [
            stack(str(self.next_id + n), *place, ps) for n, (place, ps) in enumerate(stacks.items())
        ]
        boards = [f"{MAIN_MAP}BoardPicker\t{MAIN_BOARD}\t0\t0"]
        boards.append(f"{TRACKS_MAP}BoardPicker\t{TRACKS_BOARD}\t0\t0")
        return ["begin_save", *pieces, *piled, *boards, self._set_turn(turn), "end_save"]

    def vlog(self, summary: str) -> bytes:
        """The `.vlog` file; `summary` is its description (VASSAL shows it on loading)."""
        rules = self.rules
        moduledata = metadata(text(rules.title), description(rules))
        # VASSAL shows the description in an HTML chat line as the file loads.
        savedata = metadata(text(self.heading), html.escape(summary, quote=False))
        return log_file(log_text(self.start, self.steps), savedata, moduledata)


def changes(c: Counter, was: Look, now: Look) -> list[Command]:
    """The commands that take a piece from one look to the next: added (off the maps,
    then moved onto its stack) when it enters play, removed when it leaves, its state
    changed (only the traits that differ, its place as it was), then moved."""
    if now.place is None:
        return [RemovePiece(c.piece)] if was.place is not None else []
    if was.place is None:
        return [AddPiece(c.piece, c.traits_at(now, None)), MovePiece(c.piece, *now.place)]
    out: list[Command] = []
    if (was.levels, was.masked_by) != (now.levels, now.masked_by):
        old = piece_state(c.traits_at(was, was.place))
        out.append(ChangePiece(c.piece, piece_state(c.traits_at(now, was.place)), old))
    if was.place != now.place:
        out.append(MovePiece(c.piece, *now.place, *was.place))
    return out


def _reduced_level(s: State, unit: int) -> int:
    """The flip layer's level: off (-1) at full strength, else the steps lost (the
    reduced face, then each further step's face)."""
    return s.unit_loss[unit] or -1


def _state_level(v: ir.Variable) -> Callable[[State, int], int]:
    """An order state's layer level: a yes/no state's one level when yes; a named
    state's level of its value (the values but the initial one, in order, as the
    module's layer lists them); off (-1) at the initial value."""
    if v.type == "bool":
        return lambda s, u: 1 if s.vars[v.name][u] else -1
    levels = [x for x in v.values if x != v.initial]

    def level(s: State, u: int) -> int:
        value = s.vars[v.name][u]
        return levels.index(value) + 1 if value in levels else -1

    return level
