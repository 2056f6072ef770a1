"""The table's server through its HTTP API: the same game as `muster play`, refusals that
leave the game unchanged, hidden information kept from the other side, undo, save and load."""

from __future__ import annotations

import io
import json
import random
import re
import shutil
import threading
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from PIL import Image, ImageChops, ImageStat
from starlette.testclient import TestClient

from compiler.backends.print_and_play.mix import counter_mix
from compiler.backends.print_and_play.paint import paint
from dsl.diagnostics import Reporter
from dsl.source import SourceFiles
from engine import bots
from engine.effects import lose_step
from engine.play import certify, play_game, read_log
from engine.save import to_json
from muster.cli import main
from table.server import Table, make_app, open_table
from tests.conftest import RULESETS, STEPS, training_failing_in_combat

SEED = 3
HOSTS = {"testserver"}  # the Host header of Starlette's test client
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="session")
def newtown_table(tmp_path_factory):
    return open_table("newtown", seed=2, saves=tmp_path_factory.mktemp("n"))


@pytest.fixture()
def client(monmouth_table):
    return TestClient(make_app(monmouth_table, HOSTS))


def join(client: TestClient, table: Table, tg, side: str) -> dict:
    """Take `side`'s seat of a game the table made, by its invitation, as a page does."""
    token = table.take_seats(tg, side).split("#invite=")[1]
    r = client.post(f"/api/games/{tg.id}/join", json={"invitation": token})
    assert r.status_code == 200, r.text
    return r.json()["view"]


def final_hash(client: TestClient, gid: str) -> str:
    lines = client.get(f"/api/games/{gid}/log").text.splitlines()
    return json.loads(lines[-1])["hash"]


@pytest.mark.slow
def test_a_seeded_game_over_http_ends_as_muster_play_does(client, monmouth_table, tmp_path):
    # As `muster play monmouth --scenario lees_advance --bots random,random --seed 3` does.
    game = monmouth_table.package.load_game({"scenario": "lees_advance"})
    record = play_game(game, ["random", "random"], SEED)
    tg = monmouth_table.make_game("lees_advance", "both", "random", SEED)
    gid, view = tg.id, join(client, monmouth_table, tg, "both")
    for m in record.moves:
        assert view["move"] <= m["move"]
        if view["move"] > m["move"]:
            continue  # a chance outcome the server applied itself (not a table roll)
        if m["player"] == "chance":
            if view["move"] == m["move"]:
                assert view["waits_for_roll"], m
                view = client.post(f"/api/games/{gid}/roll", json={"move": view["move"]}).json()
            continue
        assert view["to_move"] == m["player"]
        assert m["action"] in [a["action"] for a in view["decision"]["actions"]]
        view = client.post(
            f"/api/games/{gid}/act", json={"move": view["move"], "action": m["action"]}
        ).json()
        assert "error" not in view, view
    assert view["over"] is not None
    assert final_hash(client, gid) == record.final["hash"]
    # The downloaded log is a certified record, as `muster replay` reads it.
    text = client.get(f"/api/games/{gid}/log").text
    path = tmp_path / "table.jsonl"
    path.write_text(text, encoding="utf-8")
    done = certify(game, read_log(str(path)))
    assert done.finished and done.seeded > 0
    assert done.state.state_hash() == record.final["hash"]


def _new(client: TestClient) -> tuple[str, dict]:
    """A game of Lee's Advance at the American seat against the random bot, seed 1."""
    table = client.app.state.table
    tg = table.make_game("lees_advance", "american", "random", 1)
    tg.run_on()
    gid, view = tg.id, join(client, table, tg, "american")
    while view["decision"] is None:
        view = client.post(
            f"/api/games/{gid}/roll", json={"side": "american", "move": view["move"]}
        ).json()
    return gid, view


def test_bad_requests_get_clear_errors_and_leave_the_game_unchanged(client, monmouth_table):
    gid, view = _new(client)
    before = monmouth_table.games[gid].state.state_hash()
    legal = [a["action"] for a in view["decision"]["actions"]]
    illegal = next(a for a in range(1, 100000) if a not in legal)
    url = f"/api/games/{gid}/act"
    cases = [
        (
            client.post("/api/games/nosuchgame/act", json={"move": 0, "action": 0}),
            404,
            "unknown game",
        ),
        (client.get("/api/games/nosuchgame?side=american"), 404, "unknown game"),
        (
            client.post(
                url, json={"side": "american", "move": view["move"] - 1, "action": legal[0]}
            ),
            409,
            "stale move number",
        ),
        (
            client.post(url, json={"side": "american", "move": view["move"], "action": illegal}),
            409,
            "is not legal",
        ),
        (client.post(url, content=b'{"side": "american", "move": ', headers=JSON), 400, "not JSON"),
        (client.post(url, content=b"[1, 2]", headers=JSON), 400, "JSON object"),
        (
            client.post(url, json={"side": "hessian", "move": view["move"], "action": 0}),
            400,
            "unknown side",
        ),
        (
            client.post(url, json={"side": "british", "move": view["move"], "action": legal[0]}),
            403,
            "do not hold the British Army seat",
        ),
        (
            client.post(url, json={"side": "american", "move": view["move"], "action": "pass"}),
            400,
            "integer",
        ),
        (
            client.post(f"/api/games/{gid}/roll", json={"side": "american", "move": view["move"]}),
            409,
            "no die",
        ),
        (client.post("/api/load", json={"save": "../../etc/passwd"}), 400, "name of a save"),
        (client.post("/api/load", json={"state": {"format": "nonsense"}}), 400, "not a save"),
        (client.get(f"/api/games/{gid}/log?side=american"), 409, "when the game is over"),
    ]
    for response, status, words in cases:
        assert response.status_code == status, response.text
        assert words in response.json()["error"], response.json()
        assert monmouth_table.games[gid].state.state_hash() == before
    assert client.get(f"/api/games/{gid}?side=american").json()["move"] == view["move"]


def test_an_illegal_move_is_refused_with_the_rule_that_refuses_it(client):
    gid, view = _new(client)
    units = {u["name"]: i for i, u in enumerate(client.get("/api/battle").json()["units"])}
    mover = int(next(iter(view["decision"]["moves"])))
    here = view["units"][client.get("/api/battle").json()["units"][mover]["name"]]["hex"]
    far = next(
        label
        for label in client.get("/api/battle").json()["map"]["centres"]
        if label[:2] != here[:2] and abs(int(label[:2]) - int(here[:2])) > 2
    )
    r = client.post(
        f"/api/games/{gid}/explain", json={"side": "american", "unit": mover, "hex": far}
    )
    reason = r.json()["reason"]
    assert not r.json()["legal"] and reason["text"].startswith(f"{far} is out of reach")
    assert reason["cite"].startswith("§ ")
    ok = view["decision"]["moves"][str(mover)][0]["hex"]
    r = client.post(
        f"/api/games/{gid}/explain", json={"side": "american", "unit": mover, "hex": ok}
    )
    assert r.json() == {"legal": True, "reason": None}
    assert units  # the battle lists its units by index, as the view's moves use


def test_one_click_moves_a_unit_the_cheapest_legal_way_step_by_step(client, monmouth_table):
    gid, view = _new(client)
    tg = monmouth_table.games[gid]
    battle = client.get("/api/battle").json()
    mover = int(next(iter(view["decision"]["moves"])))
    name = battle["units"][mover]["name"]
    r = client.post(f"/api/games/{gid}/paths", json={"side": "american", "unit": mover})
    assert r.status_code == 200 and r.json()["move"] == view["move"]
    paths = r.json()["paths"]
    # Every next step is a destination too, at its own cost.
    steps = {m["hex"]: m["cost"] for m in view["decision"]["moves"][str(mover)]}
    by_hex = {p["hex"]: p for p in paths}
    assert all(by_hex[h]["cost"] <= c for h, c in steps.items())
    far = max(paths, key=lambda p: (len(p["hexes"]), p["hex"]))
    assert len(far["hexes"]) >= 2 and far["hexes"][-1] == far["hex"]

    moves, before = len(tg.log), tg.state.state_hash()
    after = client.post(
        f"/api/games/{gid}/move",
        json={"side": "american", "move": view["move"], "unit": mover, "hex": far["hex"]},
    ).json()
    assert after["units"][name]["hex"] == far["hex"]
    # Each step is an action of the log, and the account tells each, in order.
    taken = tg.log[moves:]
    assert len(taken) == len(far["hexes"]) and {m["player"] for m in taken} == {"american"}
    told = [line for line in after["account"][-len(far["hexes"]) :]]
    assert [line.split(" → ")[-1].rstrip(".") for line in told] == far["hexes"]
    # Undo takes the whole move back.
    back = client.post(f"/api/games/{gid}/undo", json={"side": "american", "move": after["move"]})
    assert back.status_code == 200
    assert tg.state.state_hash() == before and len(tg.log) == moves

    # A hex out of reach is refused with the rule that stops the unit; nothing changes.
    here = view["units"][name]["hex"]
    out = next(
        label
        for label in battle["map"]["centres"]
        if label not in by_hex
        and label != here
        and abs(int(label[:2]) - int(here[:2])) == 1
        and abs(int(label[2:]) - int(here[2:])) > len(far["hexes"]) + 1
    )
    r = client.post(
        f"/api/games/{gid}/move",
        json={"side": "american", "move": view["move"], "unit": mover, "hex": out},
    )
    assert r.status_code == 409 and f"{out} is out of reach" in r.json()["error"]
    assert r.json()["reason"]["cite"].startswith("§ ")
    assert tg.state.state_hash() == before and len(tg.log) == moves
    # Requests that name no unit or hex of the game are refused as bad requests.
    for body in ({"unit": -1, "hex": far["hex"]}, {"unit": mover, "hex": ["0101"]}, {"unit": "x"}):
        r = client.post(
            f"/api/games/{gid}/move", json={"side": "american", "move": view["move"], **body}
        )
        assert r.status_code == 400, body
    assert (
        client.post(f"/api/games/{gid}/paths", json={"side": "american", "unit": 10**6}).status_code
        == 400
    )
    assert tg.state.state_hash() == before


def test_a_unit_that_cannot_move_on_is_explained_by_its_rule(client, monmouth_table):
    gid, view = _new(client)
    mover = int(next(iter(view["decision"]["moves"])))
    paths = client.post(f"/api/games/{gid}/paths", json={"side": "american", "unit": mover})
    dearest = max(paths.json()["paths"], key=lambda p: (p["cost"], p["hex"]))
    view = client.post(
        f"/api/games/{gid}/move",
        json={"side": "american", "move": view["move"], "unit": mover, "hex": dearest["hex"]},
    ).json()
    assert str(mover) not in view["decision"]["moves"]  # its allowance is spent
    r = client.post(f"/api/games/{gid}/explain", json={"side": "american", "unit": mover})
    reason = r.json()["reason"]
    assert not r.json()["legal"] and "has spent" in reason["text"]
    assert reason["title"] == "Movement allowance this turn" and reason["cite"].startswith("§ ")


def test_undo_goes_back_to_ones_own_decision_not_past_a_roll(client, monmouth_table):
    gid, view = _new(client)
    first = monmouth_table.games[gid].state.state_hash()
    move = view["decision"]["moves"][next(iter(view["decision"]["moves"]))][0]["action"]
    after = client.post(
        f"/api/games/{gid}/act", json={"side": "american", "move": view["move"], "action": move}
    ).json()
    back = client.post(f"/api/games/{gid}/undo", json={"side": "american", "move": after["move"]})
    assert back.status_code == 200 and back.json()["move"] == view["move"]
    assert monmouth_table.games[gid].state.state_hash() == first
    view = back.json()
    while view["to_move"] != "over":  # pass on until a die has been rolled
        if view["waits_for_roll"]:
            view = client.post(
                f"/api/games/{gid}/roll", json={"side": "american", "move": view["move"]}
            ).json()
            break
        view = client.post(
            f"/api/games/{gid}/act", json={"side": "american", "move": view["move"], "action": 0}
        ).json()
    r = client.post(f"/api/games/{gid}/undo", json={"side": "american", "move": view["move"]})
    assert r.status_code == 409 and "die has been rolled" in r.json()["error"]
    # The view says so beforehand: the page disables Undo with the reason.
    refused = client.get(f"/api/games/{gid}?side=american").json()["refusals"]
    assert "die has been rolled" in refused["undo"] and not view["can_undo"]
    assert "when the game is over" in refused["log"]
    assert refused["replay"] == refused["log"]


def test_save_and_load_resume_the_same_position(client, monmouth_table):
    gid, view = _new(client)
    name = client.post(f"/api/games/{gid}/save", json={"side": "american"}).json()["save"]
    assert name in client.get("/api/saves").json()["saves"]
    saved = json.loads((monmouth_table.saves / f"{name}.json").read_text())
    assert saved["format"] == "muster.state/1"
    r = client.post("/api/load", json={"save": name, "side": "american"}).json()
    assert r["view"]["move"] == view["move"] and r["game"] != gid
    assert (
        monmouth_table.games[r["game"]].state.state_hash()
        == monmouth_table.games[gid].state.state_hash()
    )
    # The loaded game keeps its account: the game's lines, then the loading.
    assert r["view"]["account"] == [*view["account"], f"Loaded at move {view['move']}."]


def test_no_enemy_card_reaches_the_other_sides_page(newtown_table):
    """Play Newtown in hot seat; whenever a side holds cards, the other side's every
    response (view, explain) names none of them; nor any unit concealed from it."""
    client = TestClient(make_app(newtown_table, HOSTS))
    rules = newtown_table.rules
    sides = [s.name for s in rules.sides]
    cards = {m.name: m for m in rules.markers if m.side}
    r = client.post("/api/games", json={"side": "both"}).json()
    gid, view = r["game"], r["view"]
    tg = newtown_table.games[gid]
    checked = concealed = 0
    while view["to_move"] != "over" and checked < 40:
        s = tg.state
        for p, side in enumerate(sides):
            hidden = [rules.units[u] for u in s.concealed_from(p)]
            if hidden:
                text = client.get(f"/api/games/{gid}?side={side}").text
                for unit in hidden:
                    assert not re.search(rf"\b{re.escape(unit.title)}(?!\w)", text), unit.title
                    assert f'"{unit.name}"' not in text
                concealed += 1
        for bag, tokens in s.bags.items():
            if not bag.endswith("_hand"):
                continue
            for t in tokens:
                owner = cards[t].side
                for other in (x for x in sides if x != owner):
                    texts = [
                        client.get(f"/api/games/{gid}?side={other}").text,
                        client.post(
                            f"/api/games/{gid}/explain", json={"side": other, "action": 0}
                        ).text,
                    ]
                    for text in texts:
                        assert t not in text and cards[t].title not in text
                    checked += 1
                mine = client.get(f"/api/games/{gid}?side={owner}").text
                assert cards[t].title in mine  # the owner sees his own hand
        if view["waits_for_roll"]:
            view = client.post(f"/api/games/{gid}/roll", json={"move": view["move"]}).json()
            continue
        actions = [a["action"] for a in view["decision"]["actions"]]
        picks = sorted(actions, reverse=True) if view["decision"]["yes_no"] else actions
        for pick in picks[len(picks) // 3 :] + picks:
            r = client.post(f"/api/games/{gid}/act", json={"move": view["move"], "action": pick})
            if r.status_code == 200:  # (500: a fault of the rule files, the game unchanged)
                break
        view = r.json()
    assert checked > 0, "no side ever held a card: the test saw nothing to hide"
    assert concealed > 0, "no unit was ever concealed: the test saw nothing to hide"


def test_a_game_loaded_at_a_position_replays_from_there(client, monmouth_table):
    """A bare engine save has no history: the game's log and replay start where it was loaded."""
    gid, view = _new(client)
    state = to_json(monmouth_table.games[gid].state)
    r = client.post("/api/load", json={"state": state, "side": "both"}).json()
    loaded, view = r["game"], r["view"]
    for _ in range(3):
        if view["waits_for_roll"]:
            view = client.post(f"/api/games/{loaded}/roll", json={"move": view["move"]}).json()
            continue
        action = view["decision"]["actions"][0]["action"]
        url = f"/api/games/{loaded}/act"
        view = client.post(url, json={"move": view["move"], "action": action}).json()
    log = client.get(f"/api/games/{loaded}/log").text
    assert json.loads(log.splitlines()[0])["start"]["move_number"] == state["move_number"]
    rid = client.post("/api/replays", json={"log": log}).json()["replay"]
    first = client.get(f"/api/replays/{rid}/0").json()
    assert first["move"] == state["move_number"] and first["units"] == state["units"]
    last = client.post(f"/api/games/{loaded}/replay", json={}).json()
    end = client.get(f"/api/replays/{last['replay']}/{last['length']}").json()
    assert end["move"] == view["move"]


def test_several_games_at_once_keep_apart(client, monmouth_table):
    a, view_a = _new(client)
    b, _view_b = _new(client)
    before = monmouth_table.games[b].state.state_hash()
    step = view_a["decision"]["moves"][next(iter(view_a["decision"]["moves"]))][0]["action"]
    r = client.post(
        f"/api/games/{a}/act", json={"side": "american", "move": view_a["move"], "action": step}
    )
    assert r.status_code == 200 and r.json()["move"] > view_a["move"]
    assert monmouth_table.games[b].state.state_hash() == before
    listed = {g["game"] for g in client.get("/api/games").json()["games"]}
    assert {a, b} <= listed


def test_a_thinking_bot_holds_up_no_request(client, monmouth_table, monkeypatch):
    """While a bot decides (in its worker thread), the game's view is served at once from
    the state before its move, and a person's request is refused at once, not queued."""
    go = threading.Event()
    thinking = threading.Event()

    class Slow:
        name = "slow"

        def __init__(self, player, rng):
            self.player = player

        def step(self, s):
            thinking.set()
            go.wait(10)
            return s.legal_actions()[0]

    monkeypatch.setitem(bots.BOTS, "slow", Slow)
    tg = monmouth_table.make_game("lees_advance", "american", "slow", 1)
    join(client, monmouth_table, tg, "american")
    worker = threading.Thread(target=tg.run_on)
    worker.start()
    assert thinking.wait(10)
    start = time.monotonic()
    view = client.get(f"/api/games/{tg.id}?side=american")
    refused = client.post(f"/api/games/{tg.id}/undo", json={"side": "american", "move": 0})
    assert time.monotonic() - start < 5
    assert view.status_code == 200 and view.json()["move"] == 0
    assert refused.status_code == 409 and "bot is deciding" in refused.json()["error"]
    go.set()
    worker.join(10)


def test_table_files_that_cannot_be_read_are_bad_input(tmp_path, capsys):
    # The error contract (docs/reliability.md): a file the user named that is missing or
    # not JSON ends in a one-line message naming it, with exit status 1, not a server.
    missing = tmp_path / "missing.jsonl"
    assert main(["table", "training", "--replay", str(missing)]) == 1
    assert "missing.jsonl" in capsys.readouterr().err
    log = tmp_path / "bad.jsonl"
    log.write_text('{"type": "header"}\n{not json\n', encoding="utf-8")
    assert main(["table", "training", "--replay", str(log)]) == 1
    assert f"{log}:2:2: not JSON" in capsys.readouterr().err
    save = tmp_path / "bad.json"
    save.write_text("{\n  oops", encoding="utf-8")
    assert main(["table", "training", "--load", str(save)]) == 1
    assert f"{save}:2:3: not JSON" in capsys.readouterr().err


@pytest.fixture(scope="module")
def training_client(tmp_path_factory):
    table = open_table("training", seed=SEED, saves=tmp_path_factory.mktemp("t"))
    return TestClient(make_app(table, HOSTS))


def test_a_three_step_unit_shows_the_face_of_the_steps_it_has_lost(tmp_path):
    """The page draws `faces[steps_lost]` of /api/battle: the counter's front, its back,
    then its replacement counter's front (docs/print_and_play.md), as the sheets print them."""
    table = open_table(STEPS, "skirmish", "red", seed=SEED, saves=tmp_path)
    client = TestClient(make_app(table, HOSTS))
    [unit] = [u for u in client.get("/api/battle").json()["units"] if u["name"] == "red_grenadiers"]
    assert unit["steps"] == 3
    mix = {c.name: c for c in counter_mix(table.rules, Reporter(SourceFiles()))}
    printed = [
        mix["red_grenadiers"].front,
        mix["red_grenadiers"].back,
        mix["red_grenadiers-step3"].front,
    ]
    gid = client.post("/api/games", json={"side": "both"}).json()["game"]
    tg = table.games[gid]
    grenadiers = tg.game.unit_by_name["red_grenadiers"]
    for lost in range(3):
        lost_now = client.get(f"/api/games/{gid}").json()["units"]["red_grenadiers"]["steps_lost"]
        assert lost_now == lost
        r = client.get(f"/api/face/{unit['faces'][lost_now]}.png")
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        served = Image.open(io.BytesIO(r.content)).convert("RGB")
        assert served.size == (96, 96)
        drawn = [paint(f).convert("RGB").resize(served.size, Image.LANCZOS) for f in printed]
        differences = [_difference(served, d) for d in drawn]
        assert differences.index(min(differences)) == lost and min(differences) < 1
        lose_step(tg.state, grenadiers)
    assert client.get("/api/face/red_grenadiers-step3-back.png").status_code == 200
    # a two-step unit: its front and back, as before
    [guard] = [u for u in client.get("/api/battle").json()["units"] if u["name"] == "red_guard"]
    assert guard["faces"] == ["red_guard-front", "red_guard-back"]


def _difference(a: Image.Image, b: Image.Image) -> float:
    """The mean difference of two images' pixels, 0 to 255."""
    return ImageStat.Stat(ImageChops.difference(a, b).convert("L")).mean[0]


def test_a_table_save_is_refused_unless_its_log_leads_to_it(training_client, training):
    """A kept log is downloaded and replayed later: one that does not play from
    its start to the saved position is refused at load, never a 500 after."""
    client = training_client
    r = client.post("/api/games", json={"side": "both"}).json()
    gid, view = r["game"], r["view"]
    while len(client.app.state.table.games[gid].log) < 4:
        if view["waits_for_roll"]:
            view = client.post(f"/api/games/{gid}/roll", json={"move": view["move"]}).json()
        else:
            action = view["decision"]["actions"][0]["action"]
            move = {"move": view["move"], "action": action}
            view = client.post(f"/api/games/{gid}/act", json=move).json()
    name = client.post(f"/api/games/{gid}/save", json={}).json()["save"]
    saved = json.loads((client.app.state.table.saves / f"{name}.json").read_text())
    assert client.post("/api/load", json={"state": saved}).status_code == 200
    log = saved["table"]["log"]
    for garbage, words in (
        ("a string", "$.table.log: expected a list"),
        ([1, 2, 3], "$.table.log[0]: not a legal move"),
        ([{**log[0], "text": "forged"}, *log[1:]], "$.table.log[0]: not the move line"),
        (log[:-1], f"$.table.log[{len(log) - 1}]: the log does not lead"),
    ):
        bad = {**saved, "table": {**saved["table"], "log": garbage}}
        answer = client.post("/api/load", json={"state": bad})
        assert answer.status_code == 400 and words in answer.json()["error"], answer.json()
    deep = {
        **saved,
        "table": {
            **saved["table"],
            "bot": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
        },
    }
    answer = client.post("/api/load", json={"state": deep})
    assert answer.status_code == 400 and "nested more than 32 deep" in answer.json()["error"]
    for seed in (2**63, -(2**63)):
        bad = {**saved, "table": {**saved["table"], "seed": seed}}
        answer = client.post("/api/load", json={"state": bad})
        assert answer.status_code == 400 and "seed are malformed" in answer.json()["error"]
    for body in (
        b'{"state": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'{"scenario": ' + b"9" * 5000 + b"}",
    ):
        answer = client.post("/api/load", content=body, headers=JSON)
        assert answer.status_code == 400 and "not JSON" in answer.json()["error"]


def test_the_panel_shows_the_rulebooks_tracks_and_bags_in_its_words(client, newtown_table):
    _gid, view = _new(client)
    titles = [t["title"] for t in view["tracks"]]
    assert titles == ["Victory Points", "Army Morale", "Momentum Chits"]
    tg = newtown_table.make_game(None, "american", "random", 1)
    shown = newtown_table.view_of(tg, "american")["tracks"]
    assert [t["title"] for t in shown] == ["Victory Points", "Army Morale", "Momentum Chits"]
    # Each a number per side, as on the printed tracks.
    assert all(set(t["values"]) == {"american", "indian"} for t in shown)
    # The cups, decks and hands by their titles; what the side may not see only counted.
    bags = newtown_table.view_of(tg, "american")["bags"]
    assert bags["american_deck"] == {
        "title": "American Opportunity deck",
        "markers": [],
        "face_down": len(tg.state.bags["american_deck"]),
    }
    assert all("_" not in b["title"] and "hidden" not in b["markers"] for b in bags.values())


def test_a_rule_that_fails_in_play_is_named_at_its_place(tmp_path):
    """A rule that fails at run time (a division by zero before each close combat's
    roll) is reported by the table with the rule's file:line:column, the game kept
    as it was before the move; never a fault of the server."""
    statement = "let b = 1 / (turn - turn)"
    folder = training_failing_in_combat(tmp_path, statement)
    lines = (folder / "battle.mst").read_text(encoding="utf-8").splitlines()
    line, text = next((n, t) for n, t in enumerate(lines, 1) if statement in t)
    place = f"procedure close_combat at {folder / 'battle.mst'}:{line}:{text.index(statement) + 1}"
    table = open_table(folder, "skirmish", bot="random", seed=SEED, saves=tmp_path / "saves")
    client = TestClient(make_app(table, HOSTS))
    tg = table.make_game("skirmish", "both", "random", SEED)
    view = join(client, table, tg, "both")
    rng = random.Random(SEED)
    for _ in range(400):
        assert view["over"] is None, "the game ended without a close combat"
        move = view["move"]
        if view["waits_for_roll"]:
            r = client.post(f"/api/games/{tg.id}/roll", json={"move": move})
        else:
            action = rng.choice([a["action"] for a in view["decision"]["actions"]])
            r = client.post(f"/api/games/{tg.id}/act", json={"move": move, "action": action})
        if r.status_code != 200:
            break
        view = r.json()
    assert r.status_code == 500
    error = r.json()["error"]
    assert error.startswith("the rules could not go on: ") and f"(in the rules, {place})" in error
    assert client.get(f"/api/games/{tg.id}").json()["move"] == view["move"]


def test_a_game_whose_rules_fail_before_its_first_decision_is_refused(tmp_path):
    """A rule failing before the first decision: the new game is refused with the
    rule's file:line:column."""
    folder = tmp_path / "training"
    shutil.copytree(RULESETS / "training", folder)
    battle = folder / "battle.mst"
    text = battle.read_text(encoding="utf-8")
    begin = "    step begin: set phasing = side\n"
    battle.write_text(text.replace(begin, begin + "    step odd: let b = 1 / 0\n"), "utf-8")
    line = text[: text.index(begin)].count("\n") + 2
    table = open_table(folder, "skirmish", bot="random", seed=SEED, saves=tmp_path / "saves")
    r = TestClient(make_app(table, HOSTS)).post("/api/games", json={"side": "both"})
    assert r.status_code == 500
    error = r.json()["error"]
    assert error.startswith("the game cannot start, the rules fail: ")
    assert f"(in the rules, procedure player_turn at {battle}:{line}:15)" in error


def test_a_bot_with_a_budget_is_offered_with_seconds_and_named_in_words(client):
    """The page offers the search bot with a seconds budget (a person waits about a second
    a move, however busy the position) and names each bot in words; a game may name any
    budget the engine takes, and a budget it does not take is refused with what is offered."""
    battle = client.get("/api/battle").json()
    budgeted = [b for b in battle["bots"] if ":" in b]
    assert budgeted and all(b.endswith(":1s") for b in budgeted)
    assert {b: battle["bot_titles"][b] for b in budgeted} == {
        b: f"{b.partition(':')[0]}, 1 s a move" for b in budgeted
    }
    assert all(battle["bot_titles"][b] == b for b in battle["bots"] if ":" not in b)
    name = budgeted[0].partition(":")[0]
    made = client.post("/api/games", json={"side": "american", "bot": f"{name}:5"})
    assert made.status_code == 200, made.text
    refused = client.post("/api/games", json={"side": "american", "bot": f"{name}:-1s"})
    assert refused.status_code == 400
    assert "the table offers" in refused.json()["error"] and budgeted[0] in refused.json()["error"]
    assert (
        client.post("/api/games", json={"side": "american", "bot": "random:3"}).status_code == 400
    )


def test_the_players_choose_the_optional_advanced_and_play_balance_rules(client, monmouth_table):
    """Series 1.0: the advanced rules may be left out; monmouth 5.1/5.2 and 4.4 are
    for the players to take up. The battle lists, per scenario, the rules its players
    choose, as the scenario sets them; a game plays with their choice, shows it, and
    keeps it through a save. A rule the scenario sets is not theirs to change."""
    scenarios = {sc["name"]: sc["rules"] for sc in client.get("/api/battle").json()["scenarios"]}
    holding = {r["name"]: (r["flag"], r["on"]) for r in scenarios["holding_action"]}
    assert holding["diversion"] == ("advanced", True)
    assert holding["pro_american"] == ("play_balance", False)
    assert "molly_pitcher" not in holding  # (among the scenario's rules not used)
    assert "historical_molly_pitcher" not in holding  # (an option of Molly Pitcher's)
    assert "hedgerow_holds" not in holding and "heat_game_turns" not in holding
    campaign = {r["name"]: (r["flag"], r["on"]) for r in scenarios["campaign"]}
    assert campaign["molly_pitcher"] == ("optional", False)
    option = next(r for r in scenarios["campaign"] if r["name"] == "historical_molly_pitcher")
    assert (option["part_of"], option["part_of_title"]) == ("molly_pitcher", "Molly Pitcher")
    pro = {r["name"]: r["excludes"] for r in scenarios["campaign"] if r["name"].startswith("pro_")}
    assert pro == {"pro_british": ["pro_american"], "pro_american": ["pro_british"]}
    # What the scenario sets, not the players (6.18: the rules Lee's Advance does not use).
    set_by = {sc["name"]: sc["rules_set"] for sc in client.get("/api/battle").json()["scenarios"]}
    assert "Heat Game Turns" in set_by["lees_advance"]["on"]
    assert set(set_by["lees_advance"]["off"]) == {
        "Molly Pitcher",
        "British Rear Guard Maneuver Zone",
        "Restrictions and penalties associated with Lee's movement",
        "Procedures and consequences for relieving Lee of command",
    }
    assert set_by["campaign"]["off"] == [] and "Diversion" not in set_by["campaign"]["on"]

    chosen = {"diversion": False, "pro_american": True}
    r = client.post(
        "/api/games",
        json={"scenario": "holding_action", "side": "american", "bot": "random", "rules": chosen},
    )
    assert r.status_code == 200, r.text
    gid, view = r.json()["game"], r.json()["view"]
    game = monmouth_table.games[gid].game
    assert game.switch_on["diversion"] is False and game.switch_on["pro_american"] is True
    assert game.switch_on["hedgerow_holds"] is True  # (the scenario's, untouched)
    played = {x["title"]: x["on"] for x in view["rules"]}
    assert played["Diversion"] is False and played["Pro-American"] is True
    assert played["Momentum Chits"] is True

    name = client.post(f"/api/games/{gid}/save", json={"side": "american"}).json()["save"]
    loaded = client.post("/api/load", json={"save": name, "side": "american"}).json()["game"]
    assert monmouth_table.games[loaded].game.switch_on == game.switch_on


@pytest.mark.parametrize(
    ("rules", "says"),
    [
        ({"molly_pitcher": True}, "not a rule the players choose in Scenario II"),
        ({"hedgerow_holds": False}, "not a rule the players choose"),
        ({"no_such_rule": True}, "not a rule the players choose"),
        ({"diversion": "off"}, "true (played) or false (left out)"),
        ({"pro_british": True, "pro_american": True}, "exclude each other: choose one"),
        ({"historical_molly_pitcher": True}, "not a rule the players choose"),
        (["diversion"], "'rules' maps rule switches to true or false"),
    ],
)
def test_a_rule_the_players_may_not_choose_is_refused(client, monmouth_table, rules, says):
    before = set(monmouth_table.games)
    r = client.post(
        "/api/games",
        json={"scenario": "holding_action", "side": "american", "bot": "random", "rules": rules},
    )
    assert r.status_code == 400 and says in r.json()["error"]
    assert set(monmouth_table.games) == before


def test_an_option_is_refused_without_the_rule_it_is_part_of(client, monmouth_table):
    """Monmouth 4.4: the Historical Deployment Option is an option of Molly Pitcher's."""
    before = set(monmouth_table.games)
    rules = {"molly_pitcher": False, "historical_molly_pitcher": True}
    r = client.post(
        "/api/games",
        json={"scenario": "campaign", "side": "american", "bot": "random", "rules": rules},
    )
    assert r.status_code == 400
    assert (
        "is part of 'molly_pitcher' (Molly Pitcher), which the game leaves out" in r.json()["error"]
    )
    assert set(monmouth_table.games) == before
