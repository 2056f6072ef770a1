"""Playing, logging and replaying whole games.

A log is JSONL: a header with the ruleset, the hash of its compiled rules,
the seed and the parameters; one line per action (its integer, its text, and
for chance nodes the outcome); and a last line with the final state hash.
Replaying a log re-applies every action and checks that the hashes agree.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine import chance
from engine.bots import make_bot
from engine.explain import why_not
from engine.game import Game
from engine.state import State

LOG_FORMAT = "muster.log/1"


@dataclass
class GameRecord:
    header: dict[str, Any]
    moves: list[dict[str, Any]]
    final: dict[str, Any]
    state: State


def play_game(
    game: Game,
    bots: list[str],
    seed: int,
    on_move: Callable[[State, dict[str, Any], list[str]], None] | None = None,
) -> GameRecord:
    """Play one game to the end with the named bots; chance by the seed."""
    s = game.new_initial_state()
    players = [make_bot(name, p, seed) for p, name in enumerate(bots)]
    header = {
        "type": "header",
        "format": LOG_FORMAT,
        "ruleset": game.rules.name,
        "rules_hash": game.rules_hash,
        "seed": seed,
        "params": game.params,
        "bots": bots,
    }
    moves: list[dict[str, Any]] = []
    messages = s.take_messages()
    if on_move is not None and messages:
        on_move(s, {}, messages)
    limit = game.max_game_length()
    while not s.is_terminal():
        if s.move_number >= limit:
            raise RuntimeError(f"game longer than max_game_length ({limit})")
        if s.is_chance_node():
            action = chance.sample(s, seed)
            record = {"move": s.move_number, "player": "chance", "action": action}
        else:
            player = s.current_player()
            action = players[player].step(s)
            if action not in s.legal_actions():
                reason = why_not(s, action) if isinstance(action, int) else None
                raise ValueError(
                    f"move {s.move_number}: bot {bots[player]!r} chose {action!r}, not legal"
                    + (f": {reason}" if reason else "")
                )
            record = {
                "move": s.move_number,
                "player": game.rules.sides[player].name,
                "action": action,
            }
        record["text"] = s.action_to_string(action)
        s.apply_action(action)
        moves.append(record)
        if on_move is not None:
            on_move(s, record, s.take_messages())
        else:
            s.take_messages()
    final = {
        "type": "end",
        "moves": len(moves),
        "hash": s.state_hash(),
        "returns": s.returns(),
        "winner": game.rules.sides[s.winner].name if s.winner >= 0 else None,
        "level": s.level or None,
    }
    return GameRecord(header, moves, final, s)


def write_log(record: GameRecord, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for line in [record.header, *record.moves, record.final]:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


def read_log(path: str) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    header: dict[str, Any] | None = None
    moves: list[dict[str, Any]] = []
    final = None
    with open(path, encoding="utf-8") as f:
        for n, text in enumerate(f, start=1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except json.JSONDecodeError as e:
                raise ReplayError(f"{path}:{n}: not JSON ({e.msg})") from e
            if line.get("type") == "header":
                header = line
            elif line.get("type") == "end":
                final = line
            else:
                moves.append(line)
    if header is None or header.get("format") != LOG_FORMAT:
        raise ReplayError(f"{path}: no Muster log header")
    return header, moves, final


class ReplayError(Exception):
    """A log that does not replay: another ruleset, an illegal action, another ending."""


def replay(game: Game, moves: list[dict[str, Any]]) -> Iterator[State]:
    """Apply the logged actions one by one, yielding the state after each."""
    s = game.new_initial_state()
    s.take_messages()
    for m in moves:
        if s.is_terminal():
            raise ReplayError(f"move {m.get('move')}: the game was already over")
        action = m["action"]
        if action not in s.legal_actions():
            reason = why_not(s, action) if isinstance(action, int) else None
            raise ReplayError(
                f"move {m.get('move')}: action {action} ({m.get('text')}) is not legal here"
                + (f": {reason}" if reason else "")
            )
        s.apply_action(action)
        yield s
