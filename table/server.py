"""The table's web server: a Starlette app serving the page and a JSON API.

Every request passes the table's door first (table/guard.py: its own address and
page only, bounded bodies) and carries its player's id (table/seats.py). Every
request that reads or acts for a side must come from the player holding that
side's seat; any other gets 403. Then it is checked before it touches a game: an
unknown game, a side that is not the game's, a stale move number, an action
outside `legal_actions()`, a body that is not a JSON object all get a JSON error
`{"error": …}` with a 4xx status, and the game stays as it was. The server
reads no file a request names: pictures are drawn in memory (table/board.py),
saves live in the battle's own `saves/` folder under names the server makes,
and the page's files are the package's own. Bots run in a worker thread. The
table draws each game's seed, and tells it only when the game is over: a player
who knew it could rehearse the dice in another game.

API (all JSON; S is a side's name, or `both` for a player holding every side):

    GET  /api/battle                         title, sides, scenarios (each with the rules
                                             its players choose), bots, map geometry, units
    GET  /api/map.png, /api/face/NAME.png    the map and counter faces
    POST /api/games {scenario, side, bot, invite, rules}   a new game → {"game", "view"};
                                             with invite, the other sides wait for people
                                             who open their invitations (view.invitations);
                                             rules: {NAME: true|false}, the optional,
                                             advanced and play-balance rules the scenario
                                             leaves to the players
    GET  /api/games                          the games this player holds a seat in
    POST /api/games/ID/join {invitation}     take the seats an invitation offers → {"seat", "view"}
    GET  /api/games/ID?side=S                that side's view
    POST /api/games/ID/act {side, move, action}       a decision
    POST /api/games/ID/roll {side, move}     roll the die a table roll waits for
    POST /api/games/ID/undo {side, move}     back to the side's previous decision
    POST /api/games/ID/explain {side, unit?, hex?} | {side, action}   why it is not legal
    POST /api/games/ID/save {side}           → {"save": NAME} in the saves folder
    GET  /api/saves                          this player's saves
    POST /api/load {save | state, side, bot, scenario}   a game from a save
    GET  /api/games/ID/log?side=S            the play log (JSONL), once the game is over
    POST /api/games/ID/replay {side}         the game in the replay viewer → {"replay", "length"}
    POST /api/replays {log}                  a play log in the replay viewer
    GET  /api/replays/ID/N                   the position after N actions, with the account
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
import types
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from compiler import ir
from compiler.backends.engine_codegen import generate
from compiler.build import load_generated, output_dir
from compiler.check import compile_ruleset
from compiler.load import resolve_ruleset
from dsl.source import SourceFiles
from engine import explain
from engine.bots import BOTS
from engine.bots.registry import BotSpecError, check_spec
from engine.errors import BadInput
from engine.game import Game
from engine.nodes import RULE_FAULTS
from engine.play import LOG_FORMAT, SEED_LIMIT
from engine.rule_switches import (
    PLAYERS_CHOOSE,
    players_choice,
    scenario_defaults,
    set_by_scenario,
)
from engine.rules import Rules, ScenarioSpec
from engine.save import check_depth, from_json, to_json
from engine.sources import rule_failure
from table.board import Board, draw_board
from table.games import TableError, TableGame, move_record
from table.guard import Guard, body_of
from table.seats import SeatRefused, fingerprint
from table.views import Markers, Redactor, reason_json, view

STATIC = Path(__file__).with_name("static")
SAVE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


@dataclass
class Replay:
    game: Game
    states: list[Any]  # the state after each action, the initial state first
    accounts: list[list[str]]  # the account lines of each action
    texts: list[str]
    used: float = 0.0


# How long a game or replay no request has asked for is kept, and how many are kept
# at most (the least recently used go first): a table left running frees them.
IDLE_SECONDS = 6 * 3600
MAX_GAMES = 64
MAX_REPLAYS = 16


@dataclass
class Table:
    """Everything the server holds: the battle, its pictures, the games and replays."""

    package: types.ModuleType  # the battle's generated engine package
    rules: ir.Ruleset
    board: Board
    saves: Path
    defaults: dict[str, Any]  # scenario, side and bot the page starts with
    # The seed of the table's first game (`muster table --seed`); each later game plays
    # the next. None: every game's seed is drawn at random.
    seed: int | None = None
    games: dict[str, TableGame] = field(default_factory=dict)
    replays: dict[str, Replay] = field(default_factory=dict)
    clock: Any = time.monotonic
    idle_seconds: float = IDLE_SECONDS
    max_games: int = MAX_GAMES
    max_replays: int = MAX_REPLAYS

    def __post_init__(self) -> None:
        self.markers = Markers(
            {m.name: m.side for m in self.rules.markers},
            {m.name: m.title for m in self.rules.markers},
        )
        self.made = 0  # games made, for the seed of the next

    def next_seed(self) -> int:
        """The seed of a new game: the table's next, or one drawn at random."""
        self.made += 1
        if self.seed is None:
            return secrets.randbits(62)
        return (self.seed + self.made - 1 + SEED_LIMIT - 1) % (2 * SEED_LIMIT - 1) - SEED_LIMIT + 1

    def make_game(
        self,
        scenario: str | None,
        side: str,
        bot: str,
        seed: int | None = None,
        invite: bool = False,
        rules: Any = None,
    ) -> TableGame:
        """A new game at its start, its seats not yet taken (`take_seats`). `seed` is for
        the table's own callers (tests, screenshots); a player's game draws its own.
        `rules`: the players' choice of rule switches ({name: on}), among those the
        scenario leaves to them (`players_choice`); the others as the scenario sets them."""
        params: dict[str, Any] = {"scenario": scenario} if scenario else {}
        try:
            game = self.package.load_game(params)
            if rules is not None:
                params["rules"] = _chosen_rules(game, rules)
                game = self.package.load_game(params)
        except BadInput as e:
            raise TableError(str(e), 400) from e
        try:
            state = game.new_initial_state()
        except RULE_FAULTS as e:
            failure = rule_failure(e)
            if failure is None:
                raise
            raise TableError(f"the game cannot start, the rules fail: {failure}", 500) from e
        return self.seat(game, state, side, bot, seed, invite)

    def seat(
        self, game: Game, state: Any, side: str, bot: str, seed: int | None, invite: bool = False
    ) -> TableGame:
        """A game at the table: the people's sides (`side`, every side for `both` or with
        `invite`), the bot's, and the seed."""
        sides = [s.name for s in game.rules.sides]
        if why := _bot_refusal(bot):
            raise TableError(why, 400)
        if seed is None:
            seed = self.next_seed()
        if not -SEED_LIMIT < seed < SEED_LIMIT:  # its log's header could not be replayed
            raise TableError("'seed' must lie between -2**63 and 2**63", 400)
        if side == "both" and invite:
            raise TableError("a game with an invitation is played from one side, not both", 400)
        if side == "both" or (invite and side in sides):
            humans = frozenset(range(len(sides)))
        elif side in sides:
            humans = frozenset({sides.index(side)})
        else:
            raise TableError(f"unknown side {side!r}; choose {', '.join(sides)} or both", 400)
        gid = secrets.token_hex(8)
        tg = TableGame(gid, game, seed, humans, bot, state, used=self.clock())
        self.games[gid] = tg
        self.sweep()
        return tg

    def take_seats(self, tg: TableGame, side: str, player: str | None = None) -> str | None:
        """Give `side`'s seat (every side's, for `both`) to `player`, and every other
        person's side an invitation of its own. With no player (the table's own start,
        a test), the seat goes to an invitation too: its address (after the host) is
        returned, for whoever opens it first."""
        seat = tg.humans if side == "both" else frozenset({tg.side_index(side)})
        link = None
        if player is None:
            link = f"?game={tg.id}&side={side}#invite={tg.seats.invite(seat)}"
        else:
            tg.seats.grant(player, seat)
        for other in sorted(tg.humans - seat):
            tg.seats.invite(frozenset({other}))
        return link

    def sweep(self) -> None:
        """Free the games and replays idle too long, and the least recently used beyond
        the table's limits."""
        now = self.clock()
        for store, limit in ((self.games, self.max_games), (self.replays, self.max_replays)):
            idle = [k for k, v in store.items() if now - v.used > self.idle_seconds]
            by_use = sorted((k for k in store if k not in idle), key=lambda k: store[k].used)
            for k in idle + by_use[: max(0, len(by_use) - limit)]:
                del store[k]

    def view_of(self, tg: TableGame, side: str | None) -> dict[str, Any]:
        """What the page shows `side` (None: both sides, at one screen)."""
        viewer = tg.side_index(side)
        s = tg.state
        out = view(s, self.markers, viewer, list(tg.account))
        sides = tg.game.rules.sides
        undo, log = tg.undo_refusal(viewer), log_refusal(tg, viewer)
        out.update(
            game=tg.id,
            seat=side or "both",
            humans=[sides[p].name for p in sorted(tg.humans)],
            bot=tg.bot,
            scenario=tg.game.scenario.name if tg.game.scenario else None,
            rules=_rules_played(tg.game),
            waits_for_roll=tg.waits_for_roll(s),
            can_undo=undo is None,
            # Why the page's buttons would be refused now (None: they would not).
            refusals={"undo": undo, "log": log, "replay": log},
            invitations={sides[p].name: token for p, token in tg.seats.pending().items()},
            seed=tg.seed if s.is_terminal() else None,
        )
        return out


# ------------------------------------------------------------------ requests


def error(message: str, status: int = 400, reason: dict | None = None) -> JSONResponse:
    body: dict[str, Any] = {"error": message}
    if reason:
        body["reason"] = reason
    return JSONResponse(body, status_code=status)


def table_of(request: Request) -> Table:
    return request.app.state.table


def player_of(request: Request) -> str:
    """The id of the player making the request (table/guard.py gives every request one)."""
    return request.scope["state"]["player"]


def game_of(request: Request) -> TableGame:
    t = table_of(request)
    t.sweep()
    gid = request.path_params["gid"]
    tg = t.games.get(gid)
    if tg is None:
        raise TableError(f"unknown game {gid!r}", 404)
    tg.used = t.clock()
    return tg


def seat_of(request: Request, tg: TableGame, side: Any) -> int | None:
    """The side a request reads or acts for (None: every side, a hot seat), if its
    player holds that seat; else 403, whoever may know the game's id."""
    viewer = tg.side_index(side)
    held = tg.seats.held_by(player_of(request))
    if viewer is None and held != tg.humans:
        raise TableError("you do not hold every seat of this game", 403)
    if viewer is not None and viewer not in held:
        raise TableError(f"you do not hold the {tg.game.rules.sides[viewer].title} seat", 403)
    return viewer


def _int(data: dict[str, Any], key: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise TableError(f"{key!r} must be an integer", 400)
    return value


def _chosen_rules(game: Game, chosen: Any) -> dict[str, bool]:
    """The players' rule switches for a game, checked: each one the scenario leaves to
    them, on (true) or off (false)."""
    if not isinstance(chosen, dict):
        raise TableError("'rules' maps rule switches to true or false", 400)
    open_ = {sw.name for sw in players_choice(game.rules, game.scenario)}
    for name, on in chosen.items():
        if name not in open_:
            where = game.scenario.title if game.scenario else "this battle"
            raise TableError(
                f"{name!r} is not a rule the players choose in {where}; they choose: "
                f"{', '.join(sorted(open_)) or 'none'}",
                400,
            )
        if not isinstance(on, bool):
            raise TableError(f"rule {name!r}: true (played) or false (left out)", 400)
    return dict(chosen)


def _rule_choices(rules: Rules, scenario: ScenarioSpec | None) -> list[dict[str, Any]]:
    """The rules the players choose for a game of `scenario`, as the scenario sets
    them before they do: name, title, flag and whether on, the rule it is part of
    (played only with it) and the rules it excludes (the page keeps them so)."""
    defaults = scenario_defaults(rules, scenario)
    titles = {sw.name: sw.title for sw in rules.switches}
    return [
        {
            "name": sw.name,
            "title": sw.title,
            "flag": next(f for f in sw.flags if f in PLAYERS_CHOOSE),
            "on": defaults[sw.name],
            "part_of": sw.part_of or None,
            "part_of_title": titles[sw.part_of] if sw.part_of else None,
            "excludes": list(sw.excludes),
        }
        for sw in players_choice(rules, scenario)
    ]


def _rules_set(rules: Rules, scenario: ScenarioSpec | None) -> dict[str, list[str]]:
    """The rules a game of `scenario` plays or leaves out whatever the players choose,
    by title: the battle's special rules and the scenario's on, and the rules the
    scenario says it does not use."""
    played, not_used = set_by_scenario(rules, scenario)
    return {"on": [sw.title for sw in played], "off": [sw.title for sw in not_used]}


def _rules_played(game: Game) -> list[dict[str, Any]]:
    """The players' rules of a game in play, each on or off (the page lists them)."""
    return [
        {"title": sw.title, "on": game.switch_on[sw.name]}
        for sw in players_choice(game.rules, game.scenario)
    ]


async def page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def battle(request: Request) -> Response:
    t = table_of(request)
    game = t.package.load_game({})
    rules = game.rules
    return JSONResponse(
        {
            "name": rules.name,
            "title": rules.title,
            "sides": [{"name": s.name, "title": s.title, "color": s.color} for s in rules.sides],
            "scenarios": [
                {
                    "name": sc.name,
                    "title": sc.title,
                    "rules": _rule_choices(rules, sc),
                    "rules_set": _rules_set(rules, sc),
                }
                for sc in rules.scenarios
            ],
            # A battle without scenarios: the rules its players choose.
            "rules": [] if rules.scenarios else _rule_choices(rules, None),
            "rules_set": _rules_set(rules, None),
            "bots": table_bots(),
            "bot_titles": {b: bot_title(b) for b in {*table_bots(), t.defaults["bot"]}},
            "defaults": t.defaults,
            "map": {
                "width": t.board.width,
                "height": t.board.height,
                "radius": t.board.radius,
                "centres": t.board.centres,
            },
            "units": [
                {
                    "name": u.name,
                    "title": u.title,
                    "side": rules.sides[u.side].name,
                    "kind": u.kind,
                    "steps": max(len(u.strengths), 1),
                    "faces": t.board.steps[u.name],
                }
                for u in rules.units
            ],
        }
    )


async def map_png(request: Request) -> Response:
    return Response(table_of(request).board.map_png, media_type="image/png")


async def face_png(request: Request) -> Response:
    data = table_of(request).board.faces.get(request.path_params["name"])
    if data is None:
        return error("no such counter face", 404)
    return Response(data, media_type="image/png", headers={"Cache-Control": "max-age=3600"})


async def new_game(request: Request) -> Response:
    t = table_of(request)
    data = await body_of(request)
    _no_seed(data)
    d = t.defaults
    side = data.get("side", d["side"])
    invite = data.get("invite", False)
    if not isinstance(invite, bool):
        raise TableError("'invite' must be true or false", 400)
    bot = data.get("bot", d["bot"])
    scenario = data.get("scenario", d["scenario"])
    tg = t.make_game(scenario, side, bot, invite=invite, rules=data.get("rules"))
    t.take_seats(tg, side, player_of(request))
    await asyncio.to_thread(tg.run_on)
    return JSONResponse({"game": tg.id, "view": t.view_of(tg, _seat(side))})


def _no_seed(data: dict[str, Any]) -> None:
    """A player may not choose the dice: with the seed known, a game's dice can be
    rehearsed in another game before they are rolled in this one."""
    if "seed" in data:
        raise TableError(
            "the table draws each game's seed (shown when the game is over); "
            "start the table with --seed to fix the first game's",
            400,
        )


def _seat(side: Any) -> str | None:
    return None if side == "both" else side


async def join(request: Request) -> Response:
    """Take the seats an invitation offers (a person invited to a two-person game)."""
    tg = game_of(request)
    data = await body_of(request)
    try:
        sides = tg.seats.join(data.get("invitation"), player_of(request))
    except SeatRefused as e:
        raise TableError(str(e), 403) from e
    names = [tg.game.rules.sides[p].name for p in sorted(sides)]
    side = "both" if sides == tg.humans and len(sides) > 1 else names[0]
    return JSONResponse({"seat": side, "view": table_of(request).view_of(tg, _seat(side))})


async def list_games(request: Request) -> Response:
    t = table_of(request)
    player = player_of(request)
    return JSONResponse(
        {
            "games": [
                {"game": g.id, "move": g.state.move_number}
                for g in t.games.values()
                if g.seats.held_by(player)
            ]
        }
    )


async def game_view(request: Request) -> Response:
    tg = game_of(request)
    side = request.query_params.get("side")
    seat_of(request, tg, side)
    return JSONResponse(table_of(request).view_of(tg, side))


async def act(request: Request) -> Response:
    tg = game_of(request)
    data = await body_of(request)
    side = data.get("side")
    tg.act(seat_of(request, tg, side), data.get("move"), data.get("action"))
    await asyncio.to_thread(tg.run_on)
    return JSONResponse(table_of(request).view_of(tg, side))


async def paths(request: Request) -> Response:
    """Where a unit of the viewer's can go now in one move: each hex with the cheapest
    path there and its MP, for the page to light and draw before the click."""
    tg = game_of(request)
    data = await body_of(request)
    viewer = seat_of(request, tg, data.get("side"))
    u = _int(data, "unit")
    found = await asyncio.to_thread(tg.paths, viewer, u)
    labels = tg.game.rules.board.labels
    return JSONResponse(
        {
            "unit": u,
            "move": tg.state.move_number,
            "paths": [
                {"hex": labels[h], "cost": p.cost, "hexes": [labels[x] for x in p.hexes]}
                for h, p in sorted(found.items(), key=lambda hp: (hp[1].cost, labels[hp[0]]))
            ],
        }
    )


async def move_to(request: Request) -> Response:
    """A one-click move: the unit goes the cheapest legal way to the hex, step by step."""
    tg = game_of(request)
    data = await body_of(request)
    side = data.get("side")
    viewer = seat_of(request, tg, side)
    if "hex" not in data:
        raise TableError("give 'unit' and 'hex'", 400)
    h = _asked_hex(tg.game, data)
    await asyncio.to_thread(tg.move_to, viewer, data.get("move"), data.get("unit"), h)
    await asyncio.to_thread(tg.run_on)
    return JSONResponse(table_of(request).view_of(tg, side))


async def roll(request: Request) -> Response:
    tg = game_of(request)
    data = await body_of(request)
    side = data.get("side")
    seat_of(request, tg, side)
    tg.roll(data.get("move"))
    await asyncio.to_thread(tg.run_on)
    return JSONResponse(table_of(request).view_of(tg, side))


async def undo(request: Request) -> Response:
    tg = game_of(request)
    data = await body_of(request)
    side = data.get("side")
    tg.undo(seat_of(request, tg, side), data.get("move"))
    return JSONResponse(table_of(request).view_of(tg, side))


async def explain_action(request: Request) -> Response:
    tg = game_of(request)
    data = await body_of(request)
    viewer = seat_of(request, tg, data.get("side"))
    s = tg.state
    space = tg.game.actions
    u = _asked_unit(s, data, viewer) if "unit" in data else None
    h = _asked_hex(tg.game, data) if "hex" in data else None
    if "action" in data:
        reason = explain.why_not(s, _int(data, "action"))
    elif u is not None and h is not None:  # may this unit get there in this move?
        reason = await asyncio.to_thread(tg.why_not_reach, u, h)
    elif h is not None and data.get("attack") is True:  # a close combat against this hex
        reason = _why_not_attacked(s, h, viewer)
    elif h is not None:  # this hex, for a choice of hexes
        reason = explain.why_not(s, space.hex(h))
    elif u is not None:  # this unit: why it cannot move now, or is not among the choices
        stays = explain.why_unit_stays(s, u) if explain.units_move(s) else None
        reason = stays or explain.why_not(s, space.unit(u))
    else:
        raise TableError("give 'action', or 'unit' and/or 'hex'", 400)
    t = table_of(request)
    out = {"legal": reason is None, "reason": reason_json(reason)}
    return JSONResponse(Redactor(s, t.markers, viewer)(out))


def _why_not_attacked(s: Any, h: int, viewer: int | None) -> explain.Reason | None:
    """Why no close combat against hex h can be designated; about a hex holding units
    the viewer may not examine, only that none can (the reason could tell what is there)."""
    reason = explain.why_not_attacked(s, h)
    hidden = set(s.concealed_from(viewer)) if viewer is not None else set()
    if reason is not None and hidden and any(s.unit_hex[u] == h for u in hidden):
        return explain.Reason(
            f"No close combat against {s.game.rules.board.labels[h]} can be designated now."
        )
    return reason


def _asked_unit(s: Any, data: dict[str, Any], viewer: int | None) -> int:
    """The unit a request names (by index), if the viewer may see it."""
    u = _int(data, "unit")
    if not 0 <= u < len(s.game.rules.units) or (
        viewer is not None and u in s.concealed_from(viewer)
    ):
        raise TableError(f"no unit {u}", 400)
    return u


def _asked_hex(game: Game, data: dict[str, Any]) -> int:
    """The hex a request names (by label)."""
    if not isinstance(data["hex"], str) or data["hex"] not in game.hex_by_label:
        raise TableError(f"no hex {data['hex']!r} on the map", 400)
    return game.hex_by_label[data["hex"]]


async def save(request: Request) -> Response:
    t = table_of(request)
    tg = game_of(request)
    data = await body_of(request)
    seat_of(request, tg, data.get("side"))
    t.saves.mkdir(parents=True, exist_ok=True)
    name = f"{tg.game.rules.name}-{tg.id}-{tg.state.move_number}"
    player = player_of(request)
    record = {
        "table": {
            "seed": tg.seed,
            "humans": sorted(tg.humans),
            "seats": sorted(tg.seats.held_by(player)),
            "owner": fingerprint(player),
            "bot": tg.bot,
            "params": tg.game.params,
            "log": tg.log,
            "log_from": to_json(tg.origin) if tg.origin is not None else None,
        },
        **to_json(tg.state),
    }
    (t.saves / f"{name}.json").write_text(json.dumps(record, indent=2, ensure_ascii=False))
    return JSONResponse({"save": name})


def _own_saves(t: Table, player: str) -> dict[str, Path]:
    """The saves this player made, by name: a save belongs to the seat that made it."""
    if not t.saves.is_dir():
        return {}
    mine = fingerprint(player)
    out = {}
    for path in sorted(t.saves.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8")).get("table") or {}
        except (OSError, ValueError, AttributeError):
            continue  # not a save the table wrote: not listed
        if isinstance(record, dict) and record.get("owner") == mine:
            out[path.stem] = path
    return out


async def list_saves(request: Request) -> Response:
    saves = await asyncio.to_thread(_own_saves, table_of(request), player_of(request))
    return JSONResponse({"saves": list(saves)})


async def load(request: Request) -> Response:
    t = table_of(request)
    data = await body_of(request)
    _no_seed(data)
    side = data.get("side")
    if "save" in data:
        name = data["save"]
        if not isinstance(name, str) or not SAVE_NAME.match(name):
            raise TableError("'save' must be the name of a save the server listed", 400)
        path = (await asyncio.to_thread(_own_saves, t, player_of(request))).get(name)
        if path is None:
            raise TableError(f"no save of yours named {name!r}", 404)
        saved = json.loads(path.read_text(encoding="utf-8"))
        side = _saved_seat(t, saved, side)
        tg, side = load_state(t, saved, side, data.get("bot"), data.get("scenario"))
    elif isinstance(data.get("state"), dict):
        # A position the player sent: theirs to see, but its seed is the table's unless
        # it is played at one screen (the dice of a bot's game are not to be rehearsed).
        saved = data["state"]
        tg, side = load_state(t, saved, side, data.get("bot"), data.get("scenario"), None)
    else:
        raise TableError("give 'save' (a save's name) or 'state' (the engine's JSON)", 400)
    t.take_seats(tg, side, player_of(request))
    await asyncio.to_thread(tg.run_on)
    return JSONResponse({"game": tg.id, "view": t.view_of(tg, _seat(side))})


def _saved_seat(t: Table, saved: dict[str, Any], side: Any) -> str:
    """The seat a save of the table's loads at: the seat that made it (a bot's or another
    person's side stays hidden from its maker), `side` if that is one of them."""
    record = saved.get("table") if isinstance(saved, dict) else None
    seats = record.get("seats") if isinstance(record, dict) else None
    names = [s.name for s in t.rules.sides]
    if not (isinstance(seats, list) and seats and all(type(p) is int for p in seats)):
        raise TableError("not a save of this table: its seats are malformed", 400)
    if not all(0 <= p < len(names) for p in seats):
        raise TableError("not a save of this table: its seats are malformed", 400)
    held = [names[p] for p in sorted(set(seats))]
    if side in (None, ""):
        return "both" if len(held) == len(names) else held[0]
    if side not in (*held, "both") or (side == "both" and len(held) < len(names)):
        seat = " and ".join(held)
        raise TableError(f"this save was made at the {seat} seat: load it there", 403)
    return side


def load_state(
    t: Table,
    saved: dict[str, Any],
    side: Any = None,
    bot: Any = None,
    scenario: Any = None,
    keep_seed: bool | None = True,
) -> tuple[TableGame, str]:
    """A game from the engine's saved JSON (with the table's own record, if it has one).

    An engine save does not name its scenario: the table's record does, else the request,
    else the table's scenario. With `keep_seed`, the game plays on with the record's seed
    and keeps its log; else (or with no seed recorded) the table draws the seed and the
    log starts here; `keep_seed` None keeps them for a game played at one screen only.
    Returns the game and the seat it is taken at."""
    if not isinstance(saved, dict):
        raise TableError(f"not a save: a save is a JSON object, not {type(saved).__name__}", 400)
    with _not_a_save():
        check_depth(saved)
    extra = _table_record(saved.get("table"))
    params = _object_or_empty(extra.get("params"))
    scenario = scenario or params.get("scenario") or t.defaults["scenario"]
    with _not_a_save():
        game = t.package.load_game(_saved_params(saved, scenario))
        state = from_json(game, {k: v for k, v in saved.items() if k != "table"})
    names = [s.name for s in game.rules.sides]
    saved_side, saved_seed, humans = _saved_seats(t, extra, names)
    side = side or saved_side
    if keep_seed is None:
        keep_seed = side == "both"
    invite = side != "both" and len(humans) > 1  # a two-person game: the other is invited
    tg = t.seat(
        game,
        state,
        side,
        bot or extra.get("bot") or t.defaults["bot"],
        saved_seed if keep_seed else None,
        invite=invite,
    )
    if keep_seed and saved_seed is not None:
        _restore_log(tg, extra)
    elif tg.state.move_number:
        tg.origin = tg.state.clone()
    tg.account.append(f"Loaded at move {state.move_number}.")
    return tg, side


def _saved_params(saved: dict[str, Any], scenario: str | None) -> dict[str, Any]:
    """The parameters of the game a save is loaded into: its scenario, and its rule
    switches as saved (a save plays on only under them, engine/save.py)."""
    params: dict[str, Any] = {"scenario": scenario} if scenario else {}
    switches = saved.get("switches")
    if isinstance(switches, dict):
        params["rules"] = switches
    return params


def _restore_log(tg: TableGame, extra: dict[str, Any]) -> None:
    """The log the table's record kept, from the position it started at; with
    no log, the log starts at the loaded position (unless that is the start).
    A kept log must play from that position to the saved one, line for line
    as the table writes it: the log is downloaded and replayed later."""
    log, log_from = extra.get("log"), extra.get("log_from")
    if log is None:
        if tg.state.move_number:
            tg.origin = tg.state.clone()
        return
    if not isinstance(log, list):
        raise TableError("not a save of this battle: $.table.log: expected a list of moves", 400)
    if log_from is not None:
        with _not_a_save():
            tg.origin = from_json(tg.game, log_from)
    tg.account[:0] = _check_log(tg, log)
    tg.log = list(log)


def _check_log(tg: TableGame, log: list[Any]) -> list[str]:
    """Refuse a kept log that does not lead from its start to the saved position; the
    account of the game it plays (the loaded game keeps its account)."""
    s = tg.origin.clone() if tg.origin is not None else tg.game.new_initial_state()
    account = s.take_messages()
    for i, line in enumerate(log):
        action = line.get("action") if isinstance(line, dict) else None
        if type(action) is not int or s.is_terminal() or action not in s.legal_actions():
            raise _bad_log(i, "not a legal move here")
        if line != move_record(s, action):
            raise _bad_log(i, "not the move line the table writes for its action")
        s.apply_action(action)
        account.extend(s.take_messages())
    if s.state_hash() != tg.state.state_hash():
        raise _bad_log(len(log), "the log does not lead to the saved position")
    return account


def _bad_log(i: int, reason: str) -> TableError:
    return TableError(f"not a save of this battle: $.table.log[{i}]: {reason}", 400)


# What the table's own record in a save holds (`save` writes it).
TABLE_RECORD = frozenset({"seed", "humans", "seats", "owner", "bot", "params", "log", "log_from"})


def _table_record(value: Any) -> dict[str, Any]:
    """The table's record of a save: absent (an engine save), or an object of
    the fields the table writes."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TableError("not a save of this table: $.table: expected an object", 400)
    unknown = sorted(set(value) - TABLE_RECORD)
    if unknown:
        raise TableError(f"not a save of this table: $.table.{unknown[0]}: unknown field", 400)
    return value


def _object_or_empty(value: Any) -> dict[str, Any]:
    """A part of a save the table wrote (an engine save lacks it: empty)."""
    return value if isinstance(value, dict) else {}


@contextmanager
def _not_a_save() -> Iterator[None]:
    """A save (or the scenario it names) the engine refuses, as a `TableError`;
    any other error is a fault of the table's, not of the save."""
    try:
        yield
    except BadInput as e:
        raise TableError(f"not a save of this battle: {e}", 400) from e


def _saved_seats(
    t: Table, extra: dict[str, Any], names: list[str]
) -> tuple[str, int | None, list[int]]:
    """The side the table's record seats (both when every side was human, else
    its first human's, else the table's), the seed it played with (None: none
    recorded) and its human sides."""
    humans = extra.get("humans") or []
    saved_seed = extra.get("seed")
    if not (
        isinstance(humans, list)
        and all(type(h) is int and 0 <= h < len(names) for h in humans)
        and (saved_seed is None or (type(saved_seed) is int and abs(saved_seed) < SEED_LIMIT))
    ):
        raise TableError("not a save of this table: its humans or seed are malformed", 400)
    if len(set(humans)) == len(names):
        return "both", saved_seed, sorted(set(humans))
    return (names[humans[0]] if humans else t.defaults["side"]), saved_seed, sorted(set(humans))


def log_refusal(tg: TableGame, viewer: int | None) -> str | None:
    """Why the log (and the replay) may not be shown to the viewer yet (None: it may)."""
    if viewer is not None and not tg.state.is_terminal():
        return "the log shows the other side's hidden moves: it opens when the game is over"
    return None


async def download_log(request: Request) -> Response:
    tg = game_of(request)
    reason = log_refusal(tg, seat_of(request, tg, request.query_params.get("side")))
    if reason is not None:
        raise TableError(reason)
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in tg.log_lines())
    return Response(
        text,
        media_type="application/x-ndjson",
        headers={
            "Content-Disposition": f'attachment; filename="{tg.game.rules.name}-{tg.id}.jsonl"'
        },
    )


async def new_replay(request: Request) -> Response:
    """A play log the player sends, in the replay viewer."""
    t = table_of(request)
    data = await body_of(request)
    if not isinstance(data.get("log"), str):
        raise TableError("give 'log' (a play log's text)", 400)
    return await _replay(t, _uploaded_log(data["log"]), None)


async def game_replay(request: Request) -> Response:
    """A game at this table in the replay viewer: once it is over, or at any time for a
    player who holds every seat (the replay shows every side)."""
    tg = game_of(request)
    data = await body_of(request)
    reason = log_refusal(tg, seat_of(request, tg, data.get("side")))
    if reason is not None:
        raise TableError(reason)
    return await _replay(table_of(request), tg.log_lines(), tg.origin)


async def _replay(t: Table, lines: list[Any], origin: Any) -> Response:
    rid = secrets.token_urlsafe(16)  # whoever has its address sees it: unguessable
    replay = await asyncio.to_thread(build_replay, t, lines, origin)
    replay.used = t.clock()
    t.replays[rid] = replay
    t.sweep()
    return JSONResponse({"replay": rid, "length": len(replay.states) - 1})


def _uploaded_log(text: str) -> list[Any]:
    """A play log's lines, from its text (JSON Lines)."""
    try:
        return [json.loads(x) for x in text.splitlines() if x.strip()]
    except RecursionError as e:
        raise TableError("the log is not JSON Lines: nested too deeply", 400) from e
    except ValueError as e:  # not JSON, a number of thousands of digits
        raise TableError(f"the log is not JSON Lines: {e}"[:200], 400) from e


def build_replay(t: Table, lines: list[Any], origin: Any = None) -> Replay:
    """Every position of a logged game, checked action by action, from the start (or from
    `origin`, the position a game was loaded at)."""
    game = _logged_game(t, lines)
    if origin is None:
        origin = _logged_start(game, lines[0])
    s = origin.clone() if origin is not None else game.new_initial_state()
    game = s.game
    states, accounts, texts = [s.clone()], [s.take_messages()], [""]
    for m in lines[1:]:
        if not isinstance(m, dict) or m.get("type") == "end":
            continue
        action = m.get("action")
        if s.is_terminal() or action not in s.legal_actions():
            raise TableError(f"move {m.get('move')}: {m.get('text')!r} is not legal there", 400)
        texts.append(s.action_to_string(action))
        s.apply_action(action)
        states.append(s.clone())
        accounts.append(s.take_messages())
    return Replay(game, states, accounts, texts)


def _logged_game(t: Table, lines: list[Any]) -> Game:
    """The game a log's header names."""
    if not lines or not isinstance(lines[0], dict) or lines[0].get("format") != LOG_FORMAT:
        raise TableError(f"not a Muster play log (no {LOG_FORMAT} header)", 400)
    header = lines[0]
    if header.get("ruleset") != t.rules.name:
        raise TableError(f"the log is of {header.get('ruleset')!r}, not {t.rules.name!r}", 400)
    params = header.get("params") or {}
    try:
        return t.package.load_game(dict(params))
    except BadInput as e:
        raise TableError(str(e), 400) from e


def _logged_start(game: Game, header: dict[str, Any]) -> Any:
    """The position a log's header starts from (None: the game's own start)."""
    if not isinstance(header.get("start"), dict):
        return None
    try:
        return from_json(game, header["start"])
    except BadInput as e:
        raise TableError(f"the log's start is not a position of this battle: {e}", 400) from e


async def replay_step(request: Request) -> Response:
    t = table_of(request)
    t.sweep()
    rp = t.replays.get(request.path_params["rid"])
    if rp is None:
        return error(f"unknown replay {request.path_params['rid']!r}", 404)
    rp.used = t.clock()
    try:
        n = int(request.path_params["n"])
    except ValueError:
        return error("the step must be a number", 400)
    if not 0 <= n < len(rp.states):
        return error(f"the replay has steps 0 to {len(rp.states) - 1}", 400)
    s = rp.states[n]
    out = view(s, t.markers, None, [line for acc in rp.accounts[: n + 1] for line in acc])
    out.update(
        step=n,
        length=len(rp.states) - 1,
        action=rp.texts[n],
        step_account=rp.accounts[n],
        scenario=rp.game.scenario.name if rp.game.scenario else None,
    )
    return JSONResponse(out)


# ------------------------------------------------------------------ the app


def _handler(endpoint: Any) -> Any:
    """Turn the refusals of a request into JSON errors."""

    async def run(request: Request) -> Response:
        try:
            return await endpoint(request)
        except TableError as e:
            return error(str(e), e.status, e.reason)

    run.__name__ = endpoint.__name__
    return run


async def _fault(request: Request, exc: Exception) -> Response:
    """A fault of the server or of the rules: a JSON error rather than a bare 500 page."""
    return error(f"internal error: {type(exc).__name__}: {exc}", 500)


def make_app(table: Table, hosts: Iterable[str]) -> Starlette:
    """The table's app, answering only to `hosts` (`table.guard.addresses`)."""
    routes = [
        Route("/", page),
        Route("/api/battle", _handler(battle)),
        Route("/api/map.png", map_png),
        Route("/api/face/{name}.png", face_png),
        Route("/api/games", _handler(new_game), methods=["POST"]),
        Route("/api/games", _handler(list_games), methods=["GET"]),
        Route("/api/games/{gid}", _handler(game_view)),
        Route("/api/games/{gid}/join", _handler(join), methods=["POST"]),
        Route("/api/games/{gid}/replay", _handler(game_replay), methods=["POST"]),
        Route("/api/games/{gid}/act", _handler(act), methods=["POST"]),
        Route("/api/games/{gid}/roll", _handler(roll), methods=["POST"]),
        Route("/api/games/{gid}/paths", _handler(paths), methods=["POST"]),
        Route("/api/games/{gid}/move", _handler(move_to), methods=["POST"]),
        Route("/api/games/{gid}/undo", _handler(undo), methods=["POST"]),
        Route("/api/games/{gid}/explain", _handler(explain_action), methods=["POST"]),
        Route("/api/games/{gid}/save", _handler(save), methods=["POST"]),
        Route("/api/games/{gid}/log", _handler(download_log)),
        Route("/api/saves", _handler(list_saves)),
        Route("/api/load", _handler(load), methods=["POST"]),
        Route("/api/replays", _handler(new_replay), methods=["POST"]),
        Route("/api/replays/{rid}/{n}", _handler(replay_step)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={Exception: _fault},
        middleware=[Middleware(Guard, hosts=frozenset(hosts))],
    )
    app.state.table = table
    return app


def _check_choices(rules: ir.Ruleset, scenario: str | None, side: str | None, bot: str) -> None:
    """The side, bot and scenario asked for exist (a usage error, status 2, if not)."""
    sides = [s.name for s in rules.sides]
    if side is not None and side != "both" and side not in sides:
        raise TableError(f"unknown side {side!r}; choose {', '.join(sides)} or both", 2)
    if why := _bot_refusal(bot):
        raise TableError(why, 2)
    if scenario is not None and scenario not in [sc.name for sc in rules.scenarios]:
        known = ", ".join(sc.name for sc in rules.scenarios) or "none"
        raise TableError(f"unknown scenario {scenario!r}; known: {known}", 2)


# A bot that takes a budget is offered at the table with one of seconds: a person waits
# about a second a move, where an iteration budget grows with the position (`mcts:30`
# took 5 to 9 s at the start of a player turn).
TABLE_BUDGET = "1s"


def table_bots() -> list[str]:
    """The bots offered at the table, each as its spec."""
    return sorted(
        f"{n}:{TABLE_BUDGET}" if hasattr(c, "parse_budget") else n for n, c in BOTS.items()
    )


def bot_title(spec: str) -> str:
    """A bot as the page names it: "mcts, 1 s a move", "mcts, 200 playouts a move"."""
    name, _, budget = spec.partition(":")
    if not budget:
        return name
    if budget.endswith("s"):
        return f"{name}, {budget[:-1]} s a move"
    return f"{name}, {budget} playouts a move"


def _bot_refusal(bot: str) -> str | None:
    """Why `bot` is no bot spec the engine knows (None: it is one)."""
    try:
        check_spec(bot)
    except BotSpecError as e:
        return f"{e}; the table offers {', '.join(table_bots())}"
    return None


def default_bot() -> str:
    """The bot a table plays when none is named: the heuristic where one is
    registered, else the random bot (`benchmarks/bench_bot_time.py --bot table`
    times it in every shipped scenario)."""
    return "heuristic" if "heuristic" in BOTS else "random"


def open_table(
    arg: str | Path,
    scenario: str | None = None,
    side: str | None = None,
    bot: str | None = None,
    seed: int | None = None,
    saves: Path | None = None,
    compiled: tuple[ir.Ruleset, SourceFiles] | None = None,
) -> Table:
    """Compile a battle (as `muster play` does), draw its board, and make an empty table.

    The bot is taken by name from the engine's registry (`engine.bots.BOTS`): the
    heuristic bot where one is registered, else the random bot. `seed` is the first
    game's seed (None: every game's is drawn at random). `compiled` passes rules
    already checked (`compile_ruleset(arg)`), to compile them once."""
    bot = bot or default_bot()
    rules, sources = compiled or compile_ruleset(arg)
    package = load_generated(generate(rules), rules.name)
    sides = [s.name for s in rules.sides]
    _check_choices(rules, scenario, side, bot)
    defaults = {
        "scenario": scenario or (rules.scenarios[0].name if rules.scenarios else None),
        "side": side or sides[-1],
        "bot": bot,
    }
    folder = saves or output_dir(rules, resolve_ruleset(arg)) / "saves"
    return Table(package, rules, draw_board(rules, sources), folder, defaults, seed)
