"""A game at the table: one engine `State`, who sits at each side, its history and account.

People decide through the page; bots decide on the server, in a worker
thread, on a copy of the state that replaces the game's state when they are
done (so reading a game never waits for a bot). Dice are rolled by
`chance.sample(state, seed)`, exactly as `muster play` does, so the same seed
and the same decisions give the same game. A roll on a table waits for a
person to press "Roll" so its column and modifiers can be read first; other
chance (a marker drawn, a bare die) happens at once.

Undo goes back to the previous decision of the side asking: in a game
against a bot, never past a die roll or a draw (the bot has seen it).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from engine import chance, explain
from engine.bots import make_bot
from engine.describe import unit_name as describe_unit
from engine.game import Game
from engine.move_paths import MovePath, cheapest_paths, why_out_of_reach
from engine.nodes import RULE_FAULTS
from engine.play import LOG_FORMAT, SEEDED, chained, ending
from engine.save import to_json
from engine.sources import rule_failure
from engine.state import State
from table.seats import Seats


class TableError(Exception):
    """A request the game refuses: the message says why; `status` is the HTTP status."""

    def __init__(self, message: str, status: int = 409, reason: dict | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason


@dataclass
class Snapshot:
    """The game just before one of a person's decisions, to undo to."""

    state: State
    side: int
    moves: int  # len(log) then
    account: int  # len(account) then
    chance: int  # chance outcomes applied before it


def move_record(s: State, action: int) -> dict[str, Any]:
    """The log line of `action` played at `s` (before it is applied)."""
    player = "chance" if s.is_chance_node() else s.game.rules.sides[s.current_player()].name
    record: dict[str, Any] = {"type": "move", "move": s.move_number, "player": player}
    if player == "chance":
        record["source"] = SEEDED  # every outcome here is the seed's, as in `muster play`
    record["action"] = action
    record["text"] = s.action_to_string(action)
    return record


@dataclass
class TableGame:
    id: str
    game: Game
    seed: int
    humans: frozenset[int]  # the sides people play
    bot: str  # the bot's name, for every other side
    state: State
    log: list[dict[str, Any]] = field(default_factory=list)
    account: list[str] = field(default_factory=list)
    history: list[Snapshot] = field(default_factory=list)
    chance_count: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Where the log starts when it does not start at the beginning (a bare engine save
    # loaded): the replay viewer replays from here.
    origin: State | None = None
    seats: Seats = field(default_factory=Seats)
    used: float = 0.0  # when a request last asked for it (the table frees idle games)
    # The last search of a unit's moves: the state it was made in, the unit, the paths.
    _paths: tuple[State, int, dict[int, MovePath]] | None = None

    def __post_init__(self) -> None:
        self.bots = {
            p: make_bot(self.bot, p, self.seed)
            for p in range(self.game.num_players())
            if p not in self.humans
        }
        self.account.extend(self.state.take_messages())

    # ------------------------------------------------------------ reading

    def side_index(self, name: str | None) -> int | None:
        """The viewer's side; None ("both") only when people play every side."""
        sides = [s.name for s in self.game.rules.sides]
        if name in (None, "", "both"):
            if len(self.humans) < len(sides):
                raise TableError(
                    "this game has a bot: view it as one side (seat=" + "|".join(sides) + ")", 400
                )
            return None
        if name not in sides:
            raise TableError(f"unknown side {name!r}; the sides are {', '.join(sides)}", 400)
        return sides.index(name)

    def header(self) -> dict[str, Any]:
        return {
            "type": "header",
            "format": LOG_FORMAT,
            "ruleset": self.game.rules.name,
            "rules_hash": self.game.rules_hash,
            "seed": self.seed,
            "params": self.game.params,
            "bots": [
                "human" if p in self.humans else self.bot for p in range(self.game.num_players())
            ],
        }

    def log_lines(self) -> list[dict[str, Any]]:
        """The play log (the format of `engine.play`, hash-chained, so that `muster replay`
        certifies a finished game); a game loaded at a position logs from there, and its
        header's `start` holds that position (the engine's JSON; such a log shows the
        game in the replay viewer, but `muster replay` certifies only whole games)."""
        s = self.state
        header = self.header()
        if self.origin is not None:
            header["start"] = to_json(self.origin)
        lines = [header, *self.log]
        if s.is_terminal():
            lines.append({"type": "end", "moves": len(self.log), **ending(s)})
        return chained(lines)

    def waits_for_roll(self, s: State) -> bool:
        """A table roll waits for a person to press Roll (its odds and DRMs shown first)."""
        return s.is_chance_node() and explain.roll_preview(s) is not None

    # ------------------------------------------------------------ playing

    def _apply(self, s: State, action: int) -> None:
        record = move_record(s, action)
        s.apply_action(action)
        self.log.append(record)
        self.account.extend(s.take_messages())
        if record["player"] == "chance":
            self.chance_count += 1

    def _apply_checked(self, s: State, action: int) -> None:
        """Apply to a copy; a fault in the rule files is reported, the game kept as it was."""
        moves, account, chances = len(self.log), len(self.account), self.chance_count
        try:
            self._apply(s, action)
        except RULE_FAULTS as e:
            failure = rule_failure(e)
            if failure is None:
                raise
            del self.log[moves:]
            del self.account[account:]
            self.chance_count = chances
            if self.history and self.history[-1].state.move_number == self.state.move_number:
                self.history.pop()
            raise TableError(f"the rules could not go on: {failure}", 500) from e

    def run_on(self) -> None:
        """Let the bots decide and the dice fall until a person must act (or the game ends).

        Works on a copy and swaps it in at the end: readers see the state before or after.
        """
        with self.lock:
            s = self.state.clone()
            limit = self.game.max_game_length()
            while not s.is_terminal() and s.move_number < limit:
                if s.is_chance_node() and self.waits_for_roll(s):
                    break
                if not s.is_chance_node() and s.current_player() in self.humans:
                    break
                before = s.clone()
                try:
                    if s.is_chance_node():
                        self._apply(s, chance.sample(s, self.seed))
                    else:
                        self._apply(s, self.bots[s.current_player()].step(s))
                except RULE_FAULTS as e:
                    failure = rule_failure(e)
                    if failure is None:
                        raise
                    self.account.append(f"The game cannot go on, the rules fail: {failure}")
                    s = before
                    break
            self.state = s

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """The game's lock for a person's request: refused, not waited for, while a bot thinks
        (waiting would hold up the server's event loop, and every other game with it)."""
        if not self.lock.acquire(blocking=False):
            raise TableError("the bot is deciding: try again in a moment")
        try:
            yield
        finally:
            self.lock.release()

    def act(self, viewer: int | None, move: Any, action: Any) -> None:
        """A person's decision, checked: the move number they saw and a legal action."""
        with self._turn():
            s = self.state
            self._check_move(move)
            player = self._deciding(viewer)
            if not isinstance(action, int) or isinstance(action, bool):
                raise TableError("'action' must be an integer action id", 400)
            if action not in s.legal_actions():
                reason = explain.why_not(s, action)
                text = str(reason) if reason else "not a legal action here"
                raise TableError(
                    f"action {action} is not legal: {text}",
                    reason=reason
                    and {"text": reason.text, "title": reason.title, "cite": reason.cite},
                )
            self.history.append(
                Snapshot(s.clone(), player, len(self.log), len(self.account), self.chance_count)
            )
            nxt = s.clone()
            self._apply_checked(nxt, action)
            self.state = nxt

    def paths(self, viewer: int | None, unit: int) -> dict[int, MovePath]:
        """Where the viewer's unit can go now in one move, the cheapest way (searched on a
        copy: the game's state is shared with readers)."""
        self._deciding(viewer)
        if not 0 <= unit < len(self.game.rules.units):
            raise TableError(f"no unit {unit}", 400)
        return self._paths_of(self.state, unit)

    def _paths_of(self, s: State, unit: int) -> dict[int, MovePath]:
        """`cheapest_paths`, searched once a position and unit (a search takes tenths of a
        second; the page asks on every click and the explanations on every pointing)."""
        kept = self._paths
        if kept is None or kept[0] is not s or kept[1] != unit:
            kept = self._paths = (s, unit, cheapest_paths(s.clone(), unit))
        return kept[2]

    def why_not_reach(self, unit: int, hex_: int) -> explain.Reason | None:
        """Why the unit cannot get to the hex in this move, or None: the rule that stops it
        one hex short (a unit not moving now: why it does not)."""
        s = self.state
        return why_out_of_reach(s, unit, hex_, self._paths_of(s, unit))

    def move_to(self, viewer: int | None, move: Any, unit: Any, hex_: int) -> None:
        """A person's one-click move: the unit takes the cheapest legal path to the hex,
        each step an action of the log; undo takes back the whole move."""
        with self._turn():
            self._check_move(move)
            player = self._deciding(viewer)
            s = self.state
            if not isinstance(unit, int) or isinstance(unit, bool):
                raise TableError("'unit' must be an integer unit id", 400)
            if not 0 <= unit < len(s.game.rules.units):
                raise TableError(f"no unit {unit}", 400)
            path = self._paths_of(s, unit).get(hex_)
            if path is None:
                reason = self.why_not_reach(unit, hex_)
                where = s.game.rules.board.labels[hex_]
                text = str(reason) if reason else f"it cannot reach {where} in this move"
                raise TableError(
                    f"{describe_unit(s, unit)} cannot move to {where}: {text}",
                    reason=reason
                    and {"text": reason.text, "title": reason.title, "cite": reason.cite},
                )
            self.history.append(
                Snapshot(s.clone(), player, len(self.log), len(self.account), self.chance_count)
            )
            moves, account, chances = len(self.log), len(self.account), self.chance_count
            nxt = s.clone()
            try:
                for action in path.steps:
                    self._apply_checked(nxt, action)
            except TableError:
                del self.log[moves:]
                del self.account[account:]
                self.chance_count = chances
                raise
            self.state = nxt

    def _deciding(self, viewer: int | None) -> int:
        """The side to decide now, if it is the viewer's (a person's) decision."""
        s = self.state
        if s.is_terminal():
            raise TableError("the game is over")
        if s.is_chance_node():
            raise TableError("a die is to be rolled: press Roll", reason=None)
        player = s.current_player()
        if viewer is not None and viewer != player:
            who = self.game.rules.sides[player].title
            raise TableError(f"it is {who}'s decision, not yours")
        if player not in self.humans:
            raise TableError("the bot is deciding")
        return player

    def roll(self, move: Any) -> None:
        """Roll the die a table roll waits for (the outcome is the seed's, as in `muster play`)."""
        with self._turn():
            self._check_move(move)
            s = self.state
            if not self.waits_for_roll(s):
                raise TableError("no die is waiting to be rolled")
            nxt = s.clone()
            self._apply_checked(nxt, chance.sample(nxt, self.seed))
            self.state = nxt

    def _last_of(self, viewer: int | None) -> int | None:
        """The index in the history of the viewer's last decision, if any."""
        mine = [i for i, snap in enumerate(self.history) if viewer is None or snap.side == viewer]
        return mine[-1] if mine else None

    def undo_refusal(self, viewer: int | None) -> str | None:
        """Why the viewer may not undo now (None: they may): against a bot or another
        person, never past a roll (they have seen it), nor past the other person's
        decisions. The page disables its Undo button with this reason."""
        last = self._last_of(viewer)
        if last is None:
            return "there is no earlier decision of yours to go back to"
        snap = self.history[last]
        shared = self.seats.shared()
        if (self.bots or shared) and snap.chance < self.chance_count:
            against = "a bot" if self.bots else "another person"
            return (
                f"a die has been rolled since your last decision: against {against}, "
                "undo stops at the dice"
            )
        if shared and any(s.side != snap.side for s in self.history[last:]):
            return "the other side has decided since your last decision: undo stops there"
        return None

    def undo(self, viewer: int | None, move: Any) -> None:
        """Back to the viewer's previous decision, unless `undo_refusal` says why not."""
        with self._turn():
            self._check_move(move)
            reason = self.undo_refusal(viewer)
            if reason is not None:
                raise TableError(reason)
            last = self._last_of(viewer)
            assert last is not None  # undo_refusal says so otherwise
            snap = self.history[last]
            del self.history[last:]
            del self.log[snap.moves :]
            del self.account[snap.account :]
            self.chance_count = snap.chance
            self.state = snap.state

    def _check_move(self, move: Any) -> None:
        if not isinstance(move, int) or isinstance(move, bool):
            raise TableError("'move' must be the move number the page shows", 400)
        if move != self.state.move_number:
            raise TableError(
                f"stale move number {move}: the game is at move {self.state.move_number}; "
                "reload the game"
            )
