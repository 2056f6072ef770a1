"""Playing, logging and certifying whole games.

A log is JSONL (`muster.log/2`, `docs/reliability.md`): a header naming the
ruleset by battle name and rules hash (never by path), the seed and the
parameters; one line per action — its integer, its text, who took it, and
for a chance node where the outcome came from (`seed`: the seeded sampler;
`physical`: a player's own roll); and an end line with the final state hash.
Every line carries `chain`, the SHA-256 of the line itself and of the chain
before it, so an edit anywhere is reported at the first line it touches.

Certifying a log replays it: each seeded outcome is drawn again from the
header's seed and must be the logged one, each action must be legal and
read as its logged text, and the final state must hash as the end line says.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from engine import chance
from engine.bots import BotSpecError, check_spec, make_bot
from engine.errors import BadInput
from engine.explain import why_not
from engine.game import Game
from engine.state import State

LOG_FORMAT = "muster.log/2"
SEEDED = "seed"
PHYSICAL = "physical"

# A log is read line by line within these bounds, so that a damaged or
# hostile file (`/dev/zero`, a 100,000-deep nest) is refused, not swallowed.
MAX_LINE_BYTES = 1 << 20
MAX_LOG_BYTES = 256 << 20
SEED_LIMIT = 2**63
HASH = re.compile(r"[0-9a-f]{64}")

HEADER_FIELDS = {"type", "format", "ruleset", "rules_hash", "seed", "params", "bots", "chain"}
MOVE_FIELDS = {"type", "move", "player", "action", "text", "source", "chain"}
END_FIELDS = {"type", "moves", "hash", "returns", "winner", "level", "chain"}
# What a header's params may say: nothing in them names a file.
PARAM_FIELDS = {"scenario", "rules"}


class ReplayError(BadInput):
    """A log that is malformed, was changed, or does not replay; the message
    names the file and line."""


@dataclass
class GameRecord:
    header: dict[str, Any]
    moves: list[dict[str, Any]]
    final: dict[str, Any]
    state: State


@dataclass
class Log:
    """A log as read and chain-checked: its lines and where each one was."""

    path: str
    header: dict[str, Any]
    moves: list[dict[str, Any]]
    end: dict[str, Any] | None
    lines: list[int] = field(default_factory=list)  # file line of each move, then of the end


def chain_next(previous: str, line: dict[str, Any]) -> str:
    """The running hash after `line`: it covers the line (without its own
    chain) and, through `previous`, every line before it."""
    body = {k: v for k, v in line.items() if k != "chain"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(f"{previous}\n{text}".encode()).hexdigest()


def chained(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines with their running hashes set."""
    out, previous = [], ""
    for line in lines:
        previous = chain_next(previous, line)
        out.append({**line, "chain": previous})
    return out


# ------------------------------------------------------------------ playing


def play_game(
    game: Game,
    bots: list[str],
    seed: int,
    on_move: Callable[[State, dict[str, Any], list[str]], None] | None = None,
    roll: Callable[[State], int] | None = None,
) -> GameRecord:
    """Play one game to the end with the named bots.

    Chance comes from the seed, or from `roll` (a player's physical dice:
    the log marks those outcomes so a replay takes them on its word).
    """
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
        record = _move_record(s, players, bots, seed, roll)
        s.apply_action(record["action"])
        moves.append(record)
        if on_move is not None:
            on_move(s, record, s.take_messages())
        else:
            s.take_messages()
    final = {"type": "end", "moves": len(moves), **ending(s)}
    return GameRecord(header, moves, final, s)


def _move_record(
    s: State,
    players: list[Any],
    bots: list[str],
    seed: int,
    roll: Callable[[State], int] | None,
) -> dict[str, Any]:
    """The log line of the next move: a chance outcome (the seed's, or a
    physical roll) or the deciding side's bot's action, in words."""
    record: dict[str, Any] = {"type": "move", "move": s.move_number}
    if s.is_chance_node():
        action = chance.sample(s, seed) if roll is None else roll(s)
        record.update(player="chance", source=SEEDED if roll is None else PHYSICAL)
    else:
        player = s.current_player()
        action = _bot_action(s, players[player], bots[player])
        record["player"] = s.game.rules.sides[player].name
    record["action"] = action
    record["text"] = s.action_to_string(action)
    return record


def _bot_action(s: State, bot: Any, name: str) -> int:
    """The bot's choice, refused (naming the bot and why) unless legal."""
    action = bot.step(s)
    if action not in s.legal_actions():
        reason = why_not(s, action) if isinstance(action, int) else None
        raise ValueError(
            f"move {s.move_number}: bot {name!r} chose {action!r}, not legal"
            + (f": {reason}" if reason else "")
        )
    return action


def ending(s: State) -> dict[str, Any]:
    """What an end line says of the final state."""
    sides = s.game.rules.sides
    return {
        "hash": s.state_hash(),
        "returns": s.returns(),
        "winner": sides[s.winner].name if s.winner >= 0 else None,
        "level": s.level or None,
    }


def write_log(record: GameRecord, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for line in chained([record.header, *record.moves, record.final]):
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


# ------------------------------------------------------------------ reading


def read_log(path: str, partial: bool = False) -> Log:
    """Read a log and check its hash chain; raises only `ReplayError`.

    Without `partial` the log must end with its end line and final hash.
    """
    try:
        with open(path, "rb") as f:
            return _read(path, f, partial)
    except OSError as e:
        raise ReplayError(f"{path}: cannot read the log ({e.strerror or e})") from e


def parse_log(name: str, data: bytes, partial: bool = False) -> Log:
    """`read_log` of a log's bytes already in memory (a fuzzer's edits, an
    upload); `name` stands for the file's path in messages."""
    return _read(name, io.BytesIO(data), partial)


def _read(path: str, f: BinaryIO, partial: bool) -> Log:
    previous = ""
    header: dict[str, Any] | None = None
    moves: list[dict[str, Any]] = []
    lines: list[int] = []
    end: dict[str, Any] | None = None
    n = 0
    for n, line in _raw_lines(path, f):
        if line is None:
            continue
        where = f"{path}:{n}"
        if end is not None:
            raise ReplayError(f"{where}: a line after the end line")
        kind = line.get("type")
        if header is None:
            header = _header(line, where)
        elif kind == "move":
            moves.append(_move(line, where))
            lines.append(n)
        elif kind == "end":
            end = _end(line, where)
            lines.append(n)
        else:
            raise ReplayError(f"{where}: a line of unknown type {_short(kind)}")
        previous = _chained(previous, line, where)
    if header is None:
        raise ReplayError(f"{path}: an empty file, not a Muster log")
    if end is None and not partial:
        raise ReplayError(
            f"{path}:{n}: the log has no end line with the final hash "
            "(a game in progress replays with --partial)"
        )
    return Log(path, header, moves, end, lines)


def _raw_lines(path: str, f: BinaryIO) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Each line of the log with its number, as a JSON object (None when blank),
    within the sizes a log's lines and the log may have."""
    total = 0
    n = 0
    while True:
        raw = f.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        n += 1
        where = f"{path}:{n}"
        total += len(raw)
        if len(raw) > MAX_LINE_BYTES or total > MAX_LOG_BYTES:
            raise ReplayError(f"{where}: longer than a Muster log's line can be")
        yield n, _parse(raw, where, first=n == 1)


def _end(line: dict[str, Any], where: str) -> dict[str, Any]:
    _fields(line, END_FIELDS, END_FIELDS, where)
    if not isinstance(line["hash"], str) or not HASH.fullmatch(line["hash"]):
        raise ReplayError(f"{where}: the final hash is not a state hash")
    return line


def _chained(previous: str, line: dict[str, Any], where: str) -> str:
    """The running hash after `line`, which must carry it."""
    if not isinstance(line.get("chain"), str):
        raise ReplayError(f"{where}: the line carries no running hash (chain)")
    previous = chain_next(previous, line)
    if line["chain"] != previous:
        raise ReplayError(
            f"{where}: the running hash does not match: this line "
            "(or the one before it was removed) has been changed"
        )
    return previous


def _parse(raw: bytes, where: str, first: bool) -> dict[str, Any] | None:
    if first and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]  # a byte-order mark some editors add
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ReplayError(f"{where}: not UTF-8 text (byte {e.start + 1})") from e
    if not text.strip():
        return None
    try:
        line = json.loads(text, object_pairs_hook=_no_repeated_keys)
    except RecursionError as e:
        raise ReplayError(f"{where}: not a log line (nested too deeply)") from e
    except _RepeatedKey as e:
        raise ReplayError(f"{where}: {e}") from e
    except ValueError as e:
        reason = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
        raise ReplayError(f"{where}: not JSON ({reason})"[:200]) from e
    if not isinstance(line, dict):
        raise ReplayError(f"{where}: a log line is a JSON object, not {type(line).__name__}")
    return line


class _RepeatedKey(ValueError):
    """A JSON object that names one field twice: readers disagree on which counts."""


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it names a field twice (the chain covers the
    parsed object, so a reader keeping the first of two values would see
    another game than the one certified)."""
    line = dict(pairs)
    if len(line) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise _RepeatedKey(f"the field {_short(twice)} appears twice")
    return line


def _fields(line: dict[str, Any], allowed: set[str], required: set[str], where: str) -> None:
    for key in line:
        if key not in allowed:
            raise ReplayError(f"{where}: unknown field {_short(key)}")
    for key in sorted(required):
        if key not in line:
            raise ReplayError(f"{where}: the line has no {key!r}")


def _move(line: dict[str, Any], where: str) -> dict[str, Any]:
    _fields(line, MOVE_FIELDS, {"move", "player", "action", "text", "chain"}, where)
    for key, what in (("move", "move number"), ("action", "action")):
        if type(line[key]) is not int or not 0 <= line[key] < SEED_LIMIT:
            raise ReplayError(f"{where}: the {what} is a whole number, not {_short(line[key])}")
    if not isinstance(line["player"], str) or not isinstance(line["text"], str):
        raise ReplayError(f"{where}: the player and the text are strings")
    if line.get("source", SEEDED) not in (SEEDED, PHYSICAL):
        raise ReplayError(f"{where}: a chance outcome comes from {SEEDED!r} or {PHYSICAL!r}")
    return line


def _header(line: dict[str, Any], where: str) -> dict[str, Any]:
    """The log's first line: its header."""
    if line.get("type") != "header":
        raise ReplayError(f"{where}: expected the log's header line first")
    if line.get("format") != LOG_FORMAT:
        raise ReplayError(
            f"{where}: not a {LOG_FORMAT} log (format {_short(line.get('format'))}); "
            "older logs carry no hash chain and cannot be certified"
        )
    _fields(line, HEADER_FIELDS, {"ruleset", "rules_hash", "seed", "params", "chain"}, where)
    _rules_named(line, where)
    seed = line["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool) or not -SEED_LIMIT < seed < SEED_LIMIT:
        raise ReplayError(f"{where}: the seed is not a whole number ({_short(seed)})")
    _params(line["params"], where)
    _bots(line.get("bots", []), where)
    return line


def _bots(bots: Any, where: str) -> None:
    """Who the header says decided: informational (a person's choice or a
    bot's search cannot be re-derived), but each a known bot or `human`."""
    if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
        raise ReplayError(f"{where}: bots is a list of bot names")
    for spec in bots:
        if spec == "human":
            continue
        try:
            check_spec(spec)
        except BotSpecError as e:
            raise ReplayError(f"{where}: bots: {e}") from e


def _rules_named(line: dict[str, Any], where: str) -> None:
    """A header names its ruleset by the battle's name, and the rules' hash."""
    if not isinstance(line["ruleset"], str) or not re.fullmatch(
        r"[a-z_][a-z0-9_]*", line["ruleset"]
    ):
        raise ReplayError(
            f"{where}: the ruleset is named by its battle name, not {_short(line['ruleset'])}"
        )
    if not isinstance(line["rules_hash"], str) or not HASH.fullmatch(line["rules_hash"]):
        raise ReplayError(f"{where}: the rules hash is not a hash")


def _params(params: Any, where: str) -> None:
    """A header's params: the scenario and rule switches only."""
    if not isinstance(params, dict):
        raise ReplayError(f"{where}: params is a JSON object, not {_short(params)}")
    for key in params:
        if key not in PARAM_FIELDS:
            raise ReplayError(
                f"{where}: params asks for {_short(key)}: a log may say only the scenario "
                "and rule switches (never a file to read)"
            )
    if "scenario" in params and not isinstance(params["scenario"], str):
        raise ReplayError(f"{where}: the scenario is a name")
    rules = params.get("rules", {})
    if not isinstance(rules, dict) or not all(isinstance(v, bool) for v in rules.values()):
        raise ReplayError(f"{where}: params.rules maps rule switches to true or false")


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if _jsonable(value) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _jsonable(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


# ------------------------------------------------------------------ certifying


@dataclass(frozen=True, slots=True)
class Certified:
    """What a replay found: the final state and how its chance was decided."""

    state: State
    actions: int
    seeded: int
    physical: int
    finished: bool


def certify(
    game: Game,
    log: Log,
    on_move: Callable[[State, dict[str, Any], list[str]], None] | None = None,
) -> Certified:
    """Replay `log` in `game`, checking every line; raises `ReplayError` at the
    first line that does not follow (naming its file line and move).

    `on_move` sees each position as the replay reaches it, with the account of
    how it got there: the start (with `{}` for its line), then after each move
    its line (what a `.vlog` of the game is written from).
    """
    if log.header["rules_hash"] != game.rules_hash:
        raise ReplayError(
            f"{log.path}:1: the log was written with other rules or charts "
            f"(hash {log.header['rules_hash'][:12]}, these are {game.rules_hash[:12]})"
        )
    bots = log.header.get("bots", [])
    if bots and len(bots) != game.num_players():
        raise ReplayError(
            f"{log.path}:1: bots names {len(bots)} players; the game has {game.num_players()} sides"
        )
    seed = log.header["seed"]
    s = game.new_initial_state()
    messages = s.take_messages()
    if on_move is not None:
        on_move(s, {}, messages)
    sources = {SEEDED: 0, PHYSICAL: 0}
    for m, n in zip(log.moves, log.lines, strict=False):
        where = f"{log.path}:{n}: move {_short(m['move'])}"
        _check_turn_of_move(s, m, where)
        if s.is_chance_node():
            sources[_check_chance(s, m, seed, where)] += 1
        else:
            _check_decision(s, m, where)
        _check_action(s, m, where)
        s.apply_action(m["action"])
        messages = s.take_messages()
        if on_move is not None:
            on_move(s, m, messages)
    if log.end is not None:
        _check_end(log, s)
    finished = log.end is not None
    return Certified(s, len(log.moves), sources[SEEDED], sources[PHYSICAL], finished)


def _check_turn_of_move(s: State, m: dict[str, Any], where: str) -> None:
    """The line is the next move of a game not over, and plays a whole number."""
    if type(m["move"]) is not int or m["move"] != s.move_number:
        raise ReplayError(f"{where}: expected move {s.move_number} here")
    if s.is_terminal():
        raise ReplayError(f"{where}: the game was already over")
    if type(m["action"]) is not int:
        raise ReplayError(f"{where}: the action is a whole number, not {_short(m['action'])}")


def _check_chance(s: State, m: dict[str, Any], seed: int, where: str) -> str:
    """A chance outcome's line: the seed's outcome, or a physical roll taken on
    the log's word. Returns where it came from."""
    if m["player"] != "chance":
        raise ReplayError(f"{where}: a chance node, not a decision of {_short(m['player'])}")
    source = m.get("source")
    if source == SEEDED:
        expected = chance.sample(s, seed)
        if m["action"] != expected:
            raise ReplayError(
                f"{where}: the seed gives {expected} "
                f"({s.action_to_string(expected)}), the log says {_short(m['action'])}"
            )
    elif source != PHYSICAL:
        raise ReplayError(f"{where}: a chance outcome says where it came from (seed or physical)")
    return source


def _check_decision(s: State, m: dict[str, Any], where: str) -> None:
    """A decision's line names the side that decides here, and no source."""
    player = s.game.rules.sides[s.current_player()].name
    if m["player"] != player:
        raise ReplayError(f"{where}: {player} decides here, not {_short(m['player'])}")
    if "source" in m:
        raise ReplayError(f"{where}: only a chance outcome has a source")


def _check_action(s: State, m: dict[str, Any], where: str) -> None:
    """The line's action is legal here and reads as the line's text."""
    action = m["action"]
    if action not in s.legal_actions():
        reason = why_not(s, action)
        raise ReplayError(
            f"{where}: action {action} ({_short(m['text'])}) is not legal here"
            + (f": {reason}" if reason else "")
        )
    text = s.action_to_string(action)
    if m["text"] != text:
        raise ReplayError(f"{where}: action {action} reads {_short(text)}, not {_short(m['text'])}")


def _check_result(end: dict[str, Any], got: dict[str, Any], where: str) -> None:
    """The returns, winner and level the end line states are the game's."""
    for key in ("returns", "winner", "level"):
        if end[key] != got[key]:
            raise ReplayError(
                f"{where}: the game ends with {key} {_short(got[key])}, not {_short(end[key])}"
            )


def _check_end(log: Log, s: State) -> None:
    where = f"{log.path}:{log.lines[-1]}"
    end = log.end
    assert end is not None
    if type(end["moves"]) is not int or end["moves"] != len(log.moves):
        raise ReplayError(
            f"{where}: the end line counts {_short(end['moves'])} moves, "
            f"the log holds {len(log.moves)}"
        )
    if not s.is_terminal():
        raise ReplayError(f"{where}: the log ends but the game is not over")
    got = ending(s)
    _check_result(end, got, where)
    if got["hash"] != end["hash"]:
        raise ReplayError(
            f"{where}: final state {got['hash'][:16]} differs from the log's {end['hash'][:16]}"
        )
