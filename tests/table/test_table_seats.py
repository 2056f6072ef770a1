"""Who may see and play a game at the table (table/seats.py) and what reaches the server at
all (table/guard.py): a seat is its holder's, an invitation is spent once, a save stays at
the seat that made it, the seed is the table's; a request from another site or address,
or with a body too deep or too big, is refused with a 4xx and changes nothing."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient

from engine import chance
from engine.save import to_json
from muster.cli import main
from table.seats import PLAYER_COOKIE, new_token
from table.server import make_app, open_table

HOSTS = {"testserver"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return open_table("training", seed=5, saves=tmp_path_factory.mktemp("seats"))


def client_of(table, cookie: str | None = None) -> TestClient:
    client = TestClient(make_app(table, HOSTS))
    if cookie is not None:
        client.cookies.set(PLAYER_COOKIE, cookie)
    return client


def new_game(client: TestClient, **body) -> tuple[str, dict]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()["game"], r.json()["view"]


def snapshot(table) -> tuple:
    """Everything a refused request must leave as it was: the games, their positions and
    logs, the saves and the replays."""
    saves = sorted(p.name for p in table.saves.glob("*.json")) if table.saves.is_dir() else []
    games = {
        gid: (g.state.state_hash(), len(g.log), dict(g.seats.holders))
        for gid, g in table.games.items()
    }
    return games, saves, sorted(table.replays)


def game_requests(gid: str, side: str, move: int) -> list[tuple[str, str, dict | None]]:
    """Every request that reads or acts for a side of game `gid`."""
    body = {"side": side, "move": move}
    return [
        ("GET", f"/api/games/{gid}?side={side}", None),
        ("POST", f"/api/games/{gid}/act", {**body, "action": 0}),
        ("POST", f"/api/games/{gid}/roll", body),
        ("POST", f"/api/games/{gid}/undo", body),
        ("POST", f"/api/games/{gid}/explain", {"side": side, "action": 0}),
        ("POST", f"/api/games/{gid}/save", {"side": side}),
        ("GET", f"/api/games/{gid}/log?side={side}", None),
        ("POST", f"/api/games/{gid}/replay", {"side": side}),
    ]


def send(client: TestClient, method: str, url: str, body: dict | None):
    return client.get(url) if method == "GET" else client.post(url, json=body)


def test_a_seat_answers_only_its_holder(table):
    owner = client_of(table)
    gid, view = new_game(owner, side="blue", bot="random")
    assert view["seat"] == "blue" and PLAYER_COOKIE in owner.cookies
    cookie = owner.cookies[PLAYER_COOKIE]
    assert owner.get(f"/api/games/{gid}?side=blue").status_code == 200
    before = snapshot(table)
    strangers = {
        "the holder, for the other side": (owner, "red"),
        "the holder, for both sides": (owner, "both"),
        "no token": (client_of(table), "blue"),
        "a forged token": (client_of(table, new_token()), "blue"),
        "a malformed token": (client_of(table, cookie[:-1] + "!"), "blue"),
    }
    for who, (client, side) in strangers.items():
        for method, url, body in game_requests(gid, side, view["move"]):
            r = send(client, method, url, body)
            expected = 400 if side == "both" else 403  # "both" is no seat of a bot's game
            assert r.status_code == expected, (who, url, r.text)
            assert "error" in r.json()
    assert snapshot(table) == before
    # The games a player lists are theirs only.
    listed = {g["game"] for g in client_of(table).get("/api/games").json()["games"]}
    assert gid not in listed
    assert gid in {g["game"] for g in owner.get("/api/games").json()["games"]}


def test_an_invitation_seats_one_person_once(table):
    host, guest, late = client_of(table), client_of(table), client_of(table)
    gid, view = new_game(host, side="blue", invite=True)
    assert sorted(view["humans"]) == ["blue", "red"] and list(view["invitations"]) == ["red"]
    token = view["invitations"]["red"]
    # Before the guest comes, nobody holds red: not even the host.
    assert host.get(f"/api/games/{gid}?side=red").status_code == 403
    r = guest.post(f"/api/games/{gid}/join", json={"invitation": token})
    assert r.status_code == 200 and r.json()["seat"] == "red"
    assert r.json()["view"]["invitations"] == {}
    assert guest.get(f"/api/games/{gid}?side=red").status_code == 200
    assert guest.get(f"/api/games/{gid}?side=blue").status_code == 403
    assert host.get(f"/api/games/{gid}?side=red").status_code == 403
    for forged in (token, new_token(), "", None, 7):
        r = late.post(f"/api/games/{gid}/join", json={"invitation": forged})
        assert r.status_code == 403 and "not valid" in r.json()["error"]
    # Two people: neither sees the log nor the replay before the end.
    assert host.get(f"/api/games/{gid}/log?side=blue").status_code == 409
    assert guest.post(f"/api/games/{gid}/replay", json={"side": "red"}).status_code == 409


def test_a_save_loads_only_for_its_maker_and_at_its_seat(table):
    maker, other = client_of(table), client_of(table)
    gid, _view = new_game(maker, side="blue", bot="random")
    name = maker.post(f"/api/games/{gid}/save", json={"side": "blue"}).json()["save"]
    assert name in maker.get("/api/saves").json()["saves"]
    assert name not in other.get("/api/saves").json()["saves"]
    r = other.post("/api/load", json={"save": name})
    assert r.status_code == 404 and "no save of yours" in r.json()["error"]
    # A hot-seat copy of a game against a bot would show the bot's side: refused.
    for side in ("both", "red"):
        r = maker.post("/api/load", json={"save": name, "side": side})
        assert r.status_code == 403 and "made at the blue seat" in r.json()["error"], r.text
    r = maker.post("/api/load", json={"save": name})
    assert r.status_code == 200 and r.json()["view"]["seat"] == "blue"
    loaded = table.games[r.json()["game"]]
    blue = [side.name for side in table.rules.sides].index("blue")
    assert loaded.humans == {blue} and loaded.seed == table.games[gid].seed
    # The save keeps a fingerprint of its maker, never the maker's token.
    text = (table.saves / f"{name}.json").read_text()
    assert maker.cookies[PLAYER_COOKIE] not in text


def test_the_seed_is_the_tables_and_told_at_the_end(table):
    client = client_of(table)
    r = client.post("/api/games", json={"side": "blue", "seed": 1})
    assert r.status_code == 400 and "draws each game's seed" in r.json()["error"]
    gid, view = new_game(client, side="blue", bot="random")
    again, _ = new_game(client, side="blue", bot="random")
    assert view["seed"] is None
    assert table.games[gid].seed != table.games[again].seed  # no game rehearses another's dice
    assert "seed" not in client.get("/api/battle").json()["defaults"]
    # A position sent back to play against a bot gets the table's seed, not its own.
    saved = {
        **to_json(table.games[gid].state),
        "table": {"seed": 424242, "humans": [0], "bot": "random"},
    }
    r = client.post("/api/load", json={"state": saved, "side": "blue"})
    assert r.status_code == 200 and table.games[r.json()["game"]].seed != 424242
    r = client.post("/api/load", json={"state": saved, "side": "both"})  # one screen: its own
    assert r.status_code == 200 and table.games[r.json()["game"]].seed == 424242
    # Played to its end, the game tells its seed.
    finished = table.make_game(None, "both", "random", 77)
    s = finished.state
    while not s.is_terminal():
        s.apply_action(chance.sample(s, 77) if s.is_chance_node() else s.legal_actions()[0])
    token = table.take_seats(finished, "both").split("#invite=")[1]
    joined = client.post(f"/api/games/{finished.id}/join", json={"invitation": token})
    assert joined.json()["view"]["seed"] == 77


ENDPOINTS = [
    ("POST", "/api/games"),
    ("POST", "/api/load"),
    ("POST", "/api/replays"),
    ("POST", "/api/games/{gid}/act"),
    ("POST", "/api/games/{gid}/roll"),
    ("POST", "/api/games/{gid}/undo"),
    ("POST", "/api/games/{gid}/explain"),
    ("POST", "/api/games/{gid}/save"),
    ("POST", "/api/games/{gid}/join"),
    ("POST", "/api/games/{gid}/replay"),
    ("GET", "/api/games/{gid}?side=blue"),
    ("GET", "/api/games"),
    ("GET", "/api/saves"),
    ("GET", "/api/battle"),
    ("GET", "/api/games/{gid}/log?side=blue"),
]


def test_the_door_refuses_other_sites_and_other_addresses(table):
    client = client_of(table)
    gid, view = new_game(client, side="blue", bot="random")
    good = {"side": "blue", "move": view["move"], "action": 0}
    before = snapshot(table)
    refusals = {
        "a page of another site": {"Origin": "http://evil.example"},
        "a page of another port": {"Origin": "http://testserver:9999"},
        "another site's fetch": {"Sec-Fetch-Site": "cross-site"},
        "a name pointed at this machine": {"Host": "evil.example"},
        "no name at all": {"Host": ""},
    }
    for who, headers in refusals.items():
        for method, path in ENDPOINTS:
            url = path.format(gid=gid)
            body = good if method == "POST" else None
            r = client.request(method, url, json=body, headers=headers)
            assert r.status_code == 403, (who, url, r.status_code, r.text)
            assert "error" in r.json()
    # A cross-site form posts text/plain: refused before it is read.
    for method, path in ENDPOINTS:
        if method == "POST":
            url = path.format(gid=gid)
            r = client.post(url, content=json.dumps(good), headers={"Content-Type": "text/plain"})
            assert r.status_code == 415, (url, r.text)
    assert snapshot(table) == before
    # The table's own page is let through.
    r = client.get(f"/api/games/{gid}?side=blue", headers={"Origin": "http://testserver"})
    assert r.status_code == 200


def test_bodies_too_deep_or_too_big_are_refused(table):
    client = client_of(table)
    gid, _view = new_game(client, side="blue", bot="random")
    before = snapshot(table)
    deep = b'{"side": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"  # 100 kB of nesting
    shallow_but_deep = {"side": json.loads("[" * 40 + "]" * 40)}
    big = b'{"log": "' + b"x" * (10 * 1024 * 1024) + b'"}'  # 10 MB
    for method, path in ENDPOINTS:
        if method != "POST":
            continue
        url = path.format(gid=gid)
        r = client.post(url, content=deep, headers=JSON)
        assert r.status_code in (400, 413), (url, r.text)
        r = client.post(url, json=shallow_but_deep)
        assert r.status_code == 400 and "nested more than" in r.json()["error"], (url, r.text)
        r = client.post(url, content=big, headers=JSON)
        assert r.status_code == 413, (url, r.text)
        # A body sent without its length is counted as it comes.
        r = client.post(url, content=iter([big[:65536]] * 80), headers=JSON)
        assert r.status_code == 413, (url, r.text)
    assert snapshot(table) == before


def test_idle_games_are_freed(tmp_path):
    t = open_table("training", seed=1, saves=tmp_path)
    now = [0.0]
    t.clock = lambda: now[0]
    t.max_games = 3
    client = client_of(t)
    first, _ = new_game(client, side="blue", bot="random")
    now[0] += 10
    ids = [new_game(client, side="blue", bot="random")[0] for _ in range(3)]
    assert first not in t.games and set(ids) == set(t.games)  # the least recently used went
    now[0] += 10
    assert client.get(f"/api/games/{ids[0]}?side=blue").status_code == 200  # used: kept
    now[0] += t.idle_seconds - 5
    assert client.get(f"/api/games/{ids[0]}?side=blue").status_code == 200
    assert client.get(f"/api/games/{ids[1]}?side=blue").status_code == 404  # idle: freed
    assert set(t.games) == {ids[0]}


def test_a_table_on_a_network_says_so(monkeypatch, capsys):
    started = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: started.append(kw))
    assert main(["table", "training", "--host", "0.0.0.0", "--allow-host", "table.lan"]) == 0
    err = capsys.readouterr().err
    assert "on a network" in err and "--allow-host" in err
    assert started and started[0]["host"] == "0.0.0.0"
    assert main(["table", "training"]) == 0
    assert "on a network" not in capsys.readouterr().err
