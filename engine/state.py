"""The mutable game state: positions, variables and the stack of procedure frames.

Where the game stands inside the sequence of play is data: a stack of
`Frame`s (procedure, instruction index, bindings). Nothing is held in Python
control flow, so a state saved in the middle of a combat or a retreat loads
and continues. Binding values are immutable (ints, strings, tuples), which
keeps `clone()` a shallow copy of each frame's dict.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import compress, count
from operator import ne
from typing import TYPE_CHECKING, Any, Protocol

from engine.nodes import CHANCE, Node
from engine.rules import PUBLIC

if TYPE_CHECKING:
    from engine.rules import Rules

# Where a unit is, besides a hex of the map.
ON_MAP = 0
NOT_ENTERED = 1
ELIMINATED = 2
CAPTURED = 3
OUT_OF_PLAY = 4  # not in this scenario, or gone for good (retreated off the map)
EXITED = 5  # left the map on purpose, by an `exit` of the rules
STATUS_NAMES = ("map", "not_entered", "eliminated", "captured", "out_of_play", "exited")

# A hex and a side as one int, `hex * MAX_SIDES + side`, and a unit and what is
# asked of it as `unit + MAX_UNITS * …` (answers kept by key, engine/incremental.py):
# `Game` refuses rules with more sides or units.
MAX_SIDES = 16
MAX_UNITS = 1 << 16

# The state variable naming the terrain changes made, in declared order
# (engine/terrain_state.py reads the map as they leave it).
CHANGED_TERRAIN = "changed_terrain"
# The state variable naming the secret variables revealed since last set
# (engine/information.py shows them to every side).
REVEALED = "revealed"


class IllegalActionError(ValueError):
    """`State.apply_action` was given something that is not a legal action here:
    not a Python `int` (a `bool` or a `float` is refused too), not among
    `legal_actions()`, or any action once the game is over. The state is
    left exactly as it was."""


def initial_value(var: Any, n_sides: int, n_units: int, n_hexes: int = 0) -> Any:
    """A variable's starting value: one value, or a tuple per side, unit or hex."""
    if var.scope == "side":
        return (var.initial,) * n_sides
    if var.scope == "unit":
        return (var.initial,) * n_units
    if var.scope == "hex":
        return (var.initial,) * n_hexes
    return var.initial


class Frame:
    """One procedure (or primitive) in progress: what runs, where, with what.

    `params` (primitive frames only, not saved) are the expression parameters
    of the call that started the primitive, handed over by the interpreter;
    a frame loaded from a save gets them again from its `site` binding.
    """

    __slots__ = ("b", "params", "pc", "prim", "proc")

    def __init__(self, proc: str, pc: int = 0, b: dict[str, Any] | None = None, prim: bool = False):
        self.proc = proc
        self.pc = pc
        self.b: dict[str, Any] = b if b is not None else {}
        self.prim = prim
        self.params: dict[str, Any] | None = None

    def copy(self) -> Frame:
        other = Frame(self.proc, self.pc, dict(self.b), self.prim)
        other.params = self.params
        return other

    def __repr__(self) -> str:
        kind = "primitive" if self.prim else "procedure"
        return f"<{kind} {self.proc} @{self.pc} {self.b}>"


class Combat:
    """A designated close combat: who attacks whom, from which hexes."""

    __slots__ = (
        "attack_hexes",
        "attackers",
        "defenders",
        "defense_hexes",
        "diverted",
        "resolved",
        "side",
    )

    def __init__(
        self,
        side: int,
        attackers: tuple[int, ...],
        defenders: tuple[int, ...],
        attack_hexes: tuple[int, ...],
        defense_hexes: tuple[int, ...],
        resolved: bool = False,
        diverted: bool = False,
    ):
        self.side = side
        self.attackers = attackers
        self.defenders = defenders
        self.attack_hexes = attack_hexes
        self.defense_hexes = defense_hexes
        self.resolved = resolved
        self.diverted = diverted

    def copy(self) -> Combat:
        return Combat(
            self.side,
            self.attackers,
            self.defenders,
            self.attack_hexes,
            self.defense_hexes,
            self.resolved,
            self.diverted,
        )


class Occupancy:
    """Who stands where, as of given positions, and answers that follow from it alone.

    `enemies` remembers `enemies_adjacent` per (hex, side), keyed by
    `hex * MAX_SIDES + side` (an int hashes at once, a pair does not): it is asked for the
    hexes a unit leaves and enters at every step considered, and depends on
    nothing but the index (and the units' fixed sides and kinds). When a few
    units have moved since the previous occupancy, the new one is that one
    patched: the index where they were and are, and the enemies next to those
    hexes forgotten. `on_map` remembers `units_of` per side (the fire phases ask
    it for every unit fired at): it depends on the statuses alone. `occupied`
    remembers `occupied_hexes` (line of sight asks it for every trace).
    """

    __slots__ = ("before", "enemies", "hexes", "index", "moved", "occupied", "on_map", "status")

    # Beyond this many units moved at once, building afresh is as quick.
    PATCHED = 8

    def __init__(
        self,
        hexes: list[int],
        status: list[int],
        previous: Occupancy | None = None,
        neighbors: tuple[tuple[int, ...], ...] = (),
        sides: int = 0,
        combat_sides: tuple[int | None, ...] = (),
        stepped: int = -1,
    ) -> None:
        self.hexes = list(hexes)
        # (the statuses seldom change: the previous copy is kept while they do not)
        same_status = previous is not None and previous.status == status
        self.status = previous.status if same_status else list(status)
        self.occupied: frozenset[int] | None = None  # `occupied_hexes`, once asked
        # The previous occupancy's positions and the units moved since: what a set
        # of remembered answers that saw those positions last needs to catch up.
        self.before: tuple[list[int], list[int]] | None = None
        self.moved: tuple[int, ...] = ()
        moved = None
        if previous is not None:
            if stepped >= 0 and same_status and _only(previous.hexes, hexes, stepped):
                moved = [stepped]  # (the unit the caller says stepped, and it alone)
            else:
                moved = _moved(previous, hexes, None if same_status else status)
            self.before, self.moved = (previous.hexes, previous.status), tuple(moved)
        self.index: dict[int, tuple[int, ...]]
        self.enemies: dict[int, tuple[int, ...]]
        self.on_map: dict[int, tuple[int, ...]]
        if moved is None or len(moved) > self.PATCHED:
            self._build()
            return
        assert previous is not None
        self.index = dict(previous.index)
        self.enemies = dict(previous.enemies)
        # (shared while the statuses are the same: the answers are the same)
        self.on_map = previous.on_map if same_status else {}
        if len(moved) == 1:  # a unit stepped, entered or left: at every step
            u = moved[0]
            self._patch_one(u, previous.hexes[u], neighbors, sides, combat_sides[u])
            return
        self._patch(previous.hexes, moved, neighbors, sides)

    def _build(self) -> None:
        """The index afresh, and no remembered answers."""
        status = self.status
        index: dict[int, list[int]] = {}
        for u, h in enumerate(self.hexes):
            if status[u] == ON_MAP:
                index.setdefault(h, []).append(u)
        self.index = {h: tuple(us) for h, us in index.items()}
        self.enemies = {}
        self.on_map = {}

    def _patch(
        self,
        was: list[int],
        moved: list[int],
        neighbors: tuple[tuple[int, ...], ...],
        sides: int,
    ) -> None:
        """The previous occupancy's index and answers patched for a few units that
        moved (or changed status) since its positions `was`: the hexes they left
        and entered indexed again, and the answers next to those forgotten for
        every side."""
        hexes, status = self.hexes, self.status
        touched = {was[u] for u in moved} | {hexes[u] for u in moved}
        for h in touched:
            members = set(self.index.pop(h, ()))
            members.difference_update(moved)
            members.update(u for u in moved if hexes[u] == h and status[u] == ON_MAP)
            if members:
                self.index[h] = tuple(sorted(members))
        if self.enemies:
            _forget_near(self.enemies, touched, neighbors, range(sides))

    def _patch_one(
        self,
        u: int,
        was: int,
        neighbors: tuple[tuple[int, ...], ...],
        sides: int,
        own: int | None,
    ) -> None:
        """The patch for one unit that moved from hex `was` (or changed status there):
        what the general patch does, written out for a single unit. Only the
        answers for the sides it is an enemy of are forgotten (`own`: its side,
        None for a leader, which `enemies_adjacent` never counts): its own side's
        next to the hexes it left and entered stay (the next steps it considers
        ask them again)."""
        index = self.index
        here = index.get(was)
        if here is not None and u in here:
            rest = tuple(o for o in here if o != u)
            if rest:
                index[was] = rest
            else:
                del index[was]
        now = self.hexes[u]
        if self.status[u] == ON_MAP:
            index[now] = tuple(sorted((*index.get(now, ()), u)))
        if self.enemies and own is not None:
            others = [side for side in range(sides) if side != own]
            _forget_near(self.enemies, {was, now}, neighbors, others)


def _forget_near(
    enemies: dict[int, tuple[int, ...]],
    touched: set[int],
    neighbors: tuple[tuple[int, ...], ...],
    sides: Iterable[int],
) -> None:
    """Forget the remembered `enemies_adjacent` answers for `sides` next to the
    hexes touched (off-map hexes, -1, have no neighbours)."""
    for n in {n for h in touched if h >= 0 for n in neighbors[h]}:
        key = n * MAX_SIDES
        for side in sides:
            enemies.pop(key + side, None)


def _only(was: list[int], now: list[int], u: int) -> bool:
    """Whether unit u's hex, and no other unit's, differs between the positions (a
    copy with u's hex changed compared in C: cheaper than finding where they differ)."""
    if was[u] == now[u]:
        return False
    guess = was.copy()
    guess[u] = now[u]
    return guess == now


def _moved(previous: Occupancy, hexes: list[int], status: list[int] | None) -> list[int]:
    """The units whose hex or status (None: the same statuses) differs from the
    previous occupancy's (found in C: some two µs a list)."""
    moved = list(compress(count(), map(ne, previous.hexes, hexes)))
    if status is not None:
        moved += [u for u in compress(count(), map(ne, previous.status, status)) if u not in moved]
    return moved


class GameOfState(Protocol):
    """What a `State` needs of its game (an `engine.game.Game`).

    The game module imports this one, so this one names only the protocol:
    the rules, two tables worked out from them, and the layers above the
    plain data (interpreter, saves, descriptions, what a side may see) that
    `Game` hands over.
    """

    rules: Rules
    combat_sides: tuple[int | None, ...]
    switch_on: dict[str, bool]
    derived: dict[str, dict]  # what primitives work out once per game from the rules

    def node_of(self, state: State) -> Node: ...
    def play(self, state: State, action: int) -> None: ...
    def describe_action(self, state: State, action: int) -> str: ...
    def describe(self, state: State) -> str: ...
    def saved(self, state: State) -> dict[str, Any]: ...
    def hash_of(self, state: State) -> str: ...
    def observe(self, state: State, seen: dict[str, Any], player: int) -> dict[str, Any]: ...


class State:
    """A position of the game. Made only by `Game.new_initial_state()` (or a load)."""

    __slots__ = (
        "_node",
        "_occupancy",
        "_remembered",
        "_stepped",
        "_watched",
        "automatic",
        "bags",
        "combats",
        "counted",
        "drawn",
        "events",
        "fired",
        "game",
        "halted",
        "level",
        "messages",
        "move_number",
        "stack",
        "terminal",
        "unit_hex",
        "unit_loss",
        "unit_status",
        "vars",
        "winner",
    )

    def __init__(self, game: GameOfState) -> None:
        rules = game.rules
        n = len(rules.units)
        self.game = game
        self.vars: dict[str, Any] = {
            "turn": rules.first_turn,
            "phasing": 0,
            "vp": tuple(0 for _ in rules.sides),
        }
        for var in rules.variables:
            self.vars[var.name] = initial_value(var, len(rules.sides), n, len(rules.board.labels))
        if rules.terrain_changes:
            self.vars[CHANGED_TERRAIN] = ()  # the map as printed (engine/terrain_state.py)
        if any(var.secret != PUBLIC for var in rules.variables):
            self.vars[REVEALED] = ()  # every secret variable hidden (engine/information.py)
        self.unit_hex: list[int] = [-1] * n
        self.unit_loss: list[int] = [0] * n
        self.unit_status: list[int] = [NOT_ENTERED] * n
        # Units halted (`halt`) outside their side's movement phase, each with the
        # turn it was given in: that turn's movement phase of its side moves it not.
        self.halted: dict[int, int] = {}
        self.combats: list[Combat] = []
        self.bags: dict[str, tuple[str, ...]] = dict(rules.bags)
        # Markers drawn from each bag and set aside until the bag is refilled.
        self.drawn: dict[str, tuple[str, ...]] = {name: () for name in rules.bags}
        self.stack: list[Frame] = []
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.fired: set[str] = set()
        self.terminal = False
        self.winner = -1
        self.level = ""
        self.move_number = 0
        self.messages: list[str] = []
        # Choices made without asking since the last action, each the only
        # option, as (procedure, its Choose, the value): `muster test` names
        # them when an `act` finds nothing to do (worded only then).
        self.automatic: list[tuple[str, Any, Any]] = []
        # Whether what this position runs counts as fired (engine/firing.py): a
        # clone is a bot's what-if, not the line of play.
        self.counted = True
        self._node: Node | None = None
        self._occupancy: Occupancy | None = None
        # Answers kept between decisions (engine/incremental.py), and what stands
        # in for the positions and variables while one is computed (its `index`
        # for `units_by_hex()`).
        self._remembered: Any = None
        self._watched: Any = None
        # The unit a step moved since the occupancy was made (-1: none said): the
        # next occupancy checks that it alone moved rather than finding who did.
        self._stepped = -1

    def units_by_hex(self) -> dict[int, tuple[int, ...]]:
        """Hex -> the units on the map there, in unit order.

        Queries ask "who is next to this hex" thousands of times per decision;
        the index is rebuilt only when a unit has moved, entered or left since
        the last question (positions are compared, not tracked: primitives
        and effects move units by assigning `unit_hex`).
        """
        if self._watched is not None:
            return self._watched.index
        return self.occupancy().index

    def occupancy(self) -> Occupancy:
        """The `Occupancy` of the current positions (the real one, even while watched)."""
        occupancy = self._occupancy
        if (
            occupancy is None
            or occupancy.hexes != self.unit_hex
            or occupancy.status != self.unit_status
        ):
            rules = self.game.rules
            occupancy = self._occupancy = Occupancy(
                self.unit_hex,
                self.unit_status,
                occupancy,
                rules.board.neighbors,
                len(rules.sides),
                self.game.combat_sides,
                self._stepped,
            )
            self._stepped = -1
        return occupancy

    def forget_node(self) -> None:
        """Forget the pending decision, to be worked out again: for a position
        rewritten in place (a bot's view re-dealt)."""
        self._node = None

    # --------------------------------------------------------------- copying

    def clone(self) -> State:
        other = State.__new__(State)
        other.game = self.game
        other.vars = dict(self.vars)
        other.unit_hex = list(self.unit_hex)
        other.unit_loss = list(self.unit_loss)
        other.unit_status = list(self.unit_status)
        other.halted = dict(self.halted)
        other.combats = [c.copy() for c in self.combats]
        other.bags = dict(self.bags)
        other.drawn = dict(self.drawn)
        other.stack = [f.copy() for f in self.stack]
        other.events = list(self.events)
        other.fired = set(self.fired)
        other.terminal = self.terminal
        other.winner = self.winner
        other.level = self.level
        other.move_number = self.move_number
        other.messages = []
        other.automatic = []
        other.counted = False
        other._node = self._node
        other._occupancy = self._occupancy
        other._remembered = self._remembered
        other._stepped = self._stepped
        other._watched = None
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self.game.saved(self) == other.game.saved(other)

    __hash__ = None  # type: ignore[assignment]  # mutable: use state_hash()

    # --------------------------------------------------------------- OpenSpiel-like interface
    #
    # These run the interpreter, saves, descriptions and hidden information: layers above this
    # plain data, which import it. The state reaches them through its `Game`
    # (the top layer, which imports them), so nothing here imports upward.

    def current_node(self) -> Node:
        """The decision or chance node the game waits at (run on to it if need be)."""
        return self.game.node_of(self)

    def current_player(self) -> int:
        return self.game.node_of(self).player

    def is_terminal(self) -> bool:
        return self.terminal

    def is_chance_node(self) -> bool:
        return not self.terminal and self.game.node_of(self).player == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        node = self.game.node_of(self)
        assert node.outcomes is not None, "not a chance node"
        return list(node.outcomes)

    def legal_actions(self, player: int | None = None) -> list[int]:
        if self.terminal:
            return []
        node = self.game.node_of(self)
        if player is not None and player != node.player:
            return []
        if node.outcomes is not None:
            return [o for o, _ in node.outcomes]
        return list(node.actions)

    def apply_action(self, action: int) -> None:
        """Play `action`; raises `IllegalActionError` (and changes nothing) unless legal."""
        self.game.play(self, action)

    def action_to_string(self, action: int, player: int | None = None) -> str:
        return self.game.describe_action(self, action)

    def returns(self) -> list[float]:
        n = len(self.game.rules.sides)
        if not self.terminal or self.winner < 0:
            return [0.0] * n
        u = self.game.rules.victory_levels.get(self.level, 1.0)
        return [u if i == self.winner else -u / (n - 1) for i in range(n)]

    def observation(self, player: int) -> dict[str, Any]:
        """What `player` may see: the whole position (the series lets both sides
        examine every stack, 7.4) but what the rules hide from him — the other
        side's face-down choices not yet revealed (tactics chits, 12.5), the
        bags he may not look into (`seen_by`), and the units the rules'
        `conceal` declarations keep from him (see `engine.information`)."""
        return self.game.observe(self, self.game.saved(self), player)

    def concealed_from(self, player: int) -> list[int]:
        """The units on the map that `player` may not examine, by the rules."""
        hidden: set[int] = set()
        for c in self.game.rules.concealments:
            if c.observer == player and (not c.rule or self.game.switch_on[c.rule]):
                self._conceal(c, hidden)
        return sorted(hidden)

    def _conceal(self, c: Any, hidden: set[int]) -> None:
        """Add to `hidden` the units on the map that concealment `c` hides."""
        for u, h in enumerate(self.unit_hex):
            if self.unit_status[u] != ON_MAP or u in hidden:
                continue
            if c.condition is None or c.condition(self, {"unit": u, "hex": h}):
                hidden.add(u)

    def information_state_string(self, player: int) -> str:
        return json.dumps(self.observation(player), sort_keys=True)

    def state_hash(self) -> str:
        return self.game.hash_of(self)

    def take_messages(self) -> list[str]:
        """The account of what happened since the last call (not part of the state)."""
        out, self.messages = self.messages, []
        return out

    def __str__(self) -> str:
        return self.game.describe(self)
