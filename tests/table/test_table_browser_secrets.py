"""Newtown from the American seat, in a real headless Chromium: every JSON answer the page
receives is read, and none names an Indian unit the rules conceal from the American side
at that moment, nor a marker in an Indian hand or any bag private to the Indians. The
Indian seat's data is then asked for with the page's own token, with none and with a
forged one: 403 each time.

Skips when Playwright or /usr/bin/chromium is missing (`.ci/run` installs chromium).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from table import pilot, screenshots  # noqa: E402
from table.seats import PLAYER_COOKIE, new_token  # noqa: E402
from table.server import open_table  # noqa: E402
from table.views import private_bags  # noqa: E402

if not Path(screenshots.CHROMIUM).exists():
    pytest.skip("no /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)

pytestmark = pytest.mark.slow  # a real browser: seconds a page


@pytest.fixture(scope="module")
def newtown(tmp_path_factory):
    saves = tmp_path_factory.mktemp("s")
    table = open_table("newtown", "historical", "american", "heuristic", seed=11, saves=saves)
    with screenshots.serving(table) as url:
        yield table, url


def hidden_words(table, s, viewer: int) -> set[str]:
    """The names and titles the viewer may not be sent at position `s`."""
    units = table.rules.units
    words = {w for u in s.concealed_from(viewer) for w in (units[u].name, units[u].title)}
    for bag in private_bags(s, table.markers, viewer):
        words |= {w for t in s.bags[bag] for w in (t, table.markers.title.get(t, "")) if w}
    return words


def positions(tg) -> dict[int, object]:
    """Every position of a table game along its log, by move number."""
    s = tg.game.new_initial_state()
    out = {s.move_number: s.clone()}
    for line in tg.log:
        s.apply_action(line["action"])
        out[s.move_number] = s.clone()
    return out


def play_to_the_end(page, limit: int = 3000) -> None:
    """The American side as an eager player: in each movement phase, up to three units
    stepped towards the Indians (into their hidden stacks' reach); a close combat
    designated whenever one is offered; otherwise the pilot's default decision."""
    for _ in range(limit):
        if pilot.over(page):
            return
        if pilot.in_movement(page):
            for _unit in range(3):
                if pilot.move_into_contact(page) is None:
                    break
            pilot.finish_movement(page)
        elif pilot.can_designate(page):
            pilot.decide(page, page.locator('#decision button[data-kind="designate"]').first)
        else:
            pilot.default_decision(page)
    raise AssertionError(f"the game did not end in {limit} decisions")


def test_the_american_page_is_never_sent_an_indian_secret(newtown):
    table, url = newtown
    answers: list[tuple[str, int, str]] = []

    def record(route):
        response = route.fetch()
        answers.append((route.request.url, response.status, response.text()))
        route.fulfill(response=response)

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=screenshots.CHROMIUM, args=screenshots.ARGS)
        context = browser.new_context(viewport=screenshots.SIZE)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/api/**", record)
        page.goto(url)
        page.wait_for_load_state("networkidle")
        page.select_option("#scenario", "historical")
        page.select_option("#side", "american")
        page.select_option("#bot", "heuristic")
        pilot.decide(page, page.locator("#new"))
        gid = page.evaluate("gameId")
        # Why may the American not pick an Indian stack? The answer names none of it.
        for hex_label in page.evaluate("Object.keys(view.concealed)")[:3]:
            page.evaluate(
                "h => api('POST', `/api/games/${gameId}/explain`, {side: seat, hex: h})", hex_label
            )
        play_to_the_end(page)
        turns = page.evaluate("view.turn")

        # The Indian seat, asked for by this page's player, by nobody and by a forger.
        indian = f"{url}/api/games/{gid}?side=indian"
        assert context.request.get(f"{url}/api/games/{gid}?side=american").status == 200
        assert context.request.get(indian).status == 403
        stranger = browser.new_context()
        assert stranger.request.get(indian).status == 403
        forger = browser.new_context()
        forger.add_cookies([{"name": PLAYER_COOKIE, "value": new_token(), "url": url}])
        assert forger.request.get(indian).status == 403
        assert forger.request.get(f"{url}/api/games/{gid}?side=american").status == 403
        browser.close()
    assert not errors, errors

    tg = table.games[gid]
    at = positions(tg)
    american = [s.name for s in table.rules.sides].index("american")
    move, checked, with_secrets = 0, 0, 0
    for address, _status, text in answers:
        if address.endswith("/api/battle") or not text.startswith("{"):
            continue  # the counter sheet's list (public, as printed), the pictures
        body = json.loads(text)
        move = body.get("move", (body.get("view") or {}).get("move", move))
        words = hidden_words(table, at[move], american)
        for word in words:
            assert not re.search(rf"\b{re.escape(word)}(?!\w)", text), (address, move, word)
        checked += 1
        with_secrets += bool(words)
    # A whole game (11 turns from 5 on, with seed 11): some 80 answers, each with secrets.
    assert checked > 60 and with_secrets > 60, (checked, with_secrets, turns)
