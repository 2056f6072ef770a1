"""The table's page in a real headless Chromium (Debian's `chromium`, driven by Playwright):
a game of Lee's Advance as the American player against the heuristic bot, played through
the page from its first decision to its last: units moved by clicking their lit hexes, a
close combat designated from the hex a unit was moved to, its odds and DRMs read before
the roll. The pilot (table/pilot.py) picks its unit and targets from the page's state, so
the test follows whatever position the rules and the bot lead to.

Skips when Playwright or /usr/bin/chromium is missing (`.ci/run` installs chromium).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.move_paths import cheapest_paths
from engine.play import certify, read_log

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from table import pilot, screenshots  # noqa: E402
from table.pilot import decide  # noqa: E402

CHROMIUM = Path(screenshots.CHROMIUM)

if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)

pytestmark = pytest.mark.slow  # a real browser: seconds a page


@pytest.fixture(scope="module")
def server(monmouth_table):
    with screenshots.serving(monmouth_table) as url:
        yield monmouth_table, url


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=screenshots.ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
        assert not errors, errors


def settle(page) -> None:
    page.wait_for_load_state("networkidle")


def account(page) -> list[str]:
    return page.locator("#lines li").all_text_contents()


def test_play_lees_advance_as_the_american_player(server, page):
    """The American player against the heuristic bot, every decision made on the page."""
    table, url = server
    page.goto(url)
    settle(page)
    page.select_option("#scenario", "lees_advance")
    page.select_option("#side", "american")
    page.select_option("#bot", "heuristic")
    decide(page, page.locator("#new"))
    gid = page.evaluate("gameId")
    assert table.games[gid].bot == "heuristic"
    assert "against the heuristic bot" in page.text_content("#status")

    # On to the American Movement Phase, the British bot playing its half of the turn.
    assert pilot.play_until(page, pilot.in_movement)
    assert page.text_content("#whose") == "Continental Army to decide"

    # Click the unit nearest the enemy: the hexes it can reach in this move light up with
    # their MP cost — exactly the engine's, found by playing its legal steps.
    unit = next(m for m in pilot.movers(page) if m["enemy"] > 1.3)
    pilot.choose_unit(page, unit["unit"])
    targets = page.locator(".target:not(.combat)")
    assert targets.count() > 0
    assert all(t.endswith(" MP") for t in targets.all_text_contents())
    s = table.games[gid].state
    board = s.game.rules.board
    reachable = {board.labels[h]: p for h, p in cheapest_paths(s.clone(), unit["unit"]).items()}
    assert {t.get_attribute("data-hex") for t in targets.all()} == set(reachable)
    assert all(
        t.text_content() == f"{reachable[t.get_attribute('data-hex')].cost} MP"
        for t in targets.all()
    )

    # Click the map beyond its reach: the page says which rule stops it, with its citation.
    far = pilot.out_of_reach(page, unit["unit"], unit["hex"])
    assert far not in reachable
    pilot.click_hex(page, far)
    page.wait_for_selector("#reason-text")
    assert page.text_content("#reason-text").startswith(f"{far} is out of reach")
    assert "§ " in page.text_content("#reason")

    # Point at a destination some hexes away: its way is drawn; one click takes it there,
    # each step an action of the log, told in the account.
    dest = max(reachable, key=lambda h: (len(reachable[h].steps), h))
    way = [board.labels[h] for h in reachable[dest].hexes]
    assert len(way) >= 2
    assert len(pilot.farthest_destination(page)["hexes"]) == len(way)
    pilot.point_at_destination(page, dest)
    mark = page.locator(f'.target:not(.combat)[data-hex="{dest}"]')
    assert sorted(
        page.locator(".path-step").evaluate_all("ds => ds.map((d) => d.dataset.hex)")
    ) == sorted(way[:-1])
    moves = len(table.games[gid].log)
    decide(page, mark)
    assert page.locator(f'.counter[data-unit="{unit["unit"]}"]').get_attribute("data-hex") == dest
    assert len(table.games[gid].log) == moves + len(way)
    assert [line.split(" → ")[-1].rstrip(".") for line in account(page)[-len(way) :]] == way

    # Move it, lit hex by lit hex, next to a British unit; pass the rest of the movement;
    # in the Close Combat Phase, designate the combat from its hex by its button.
    contact = pilot.declare_close_combat(page)
    assert contact is not None, "no American unit got next to the enemy to attack"
    counter = page.locator(f'.counter[data-unit="{contact.unit}"]')
    assert counter.get_attribute("data-hex") == contact.hex
    assert any(f"→ {contact.hex}" in line for line in account(page))
    assert any(contact.title in c for c in page.locator("#combats li").all_text_contents())

    # Its odds column and its DRMs, each with its citation, before the die is rolled.
    assert pilot.to_close_combat_roll(page, contact)
    assert contact.title in page.text_content("#combats li.now")
    heading = page.text_content("#rolltable")
    assert heading.startswith("Close Combat Table — column ") and ":" in heading
    drms = page.locator("#drms tr").all_text_contents()
    modifiers = [row for row in drms if row != "no modifier applies"]
    assert modifiers and all(re.search(r"^[+-]?\d+.+§ \w+ \d", row) for row in modifiers)
    decide(page, page.locator("#rollbutton"))
    assert any("Close Combat Table: rolled" in line for line in account(page))

    # The log is the other side's secret until the game is over: the buttons the server
    # would refuse are disabled, with the reason; Undo too, once a die has been rolled.
    for button in ("#log", "#replay"):
        assert page.is_disabled(button)
        assert "when the game is over" in page.get_attribute(button, "title")
    assert page.is_disabled("#undo")
    assert "undo stops at the dice" in page.get_attribute("#undo", "title")

    # Save, reload the page (the game comes back), load the save.
    pilot.play_until(page, lambda p: p.locator("#decision button").count() > 0)
    where = page.evaluate("view.units")
    page.click("#save")
    page.wait_for_selector("#saved")
    saved = page.input_value("#saves")
    before = table.games[gid].state.state_hash()
    page.reload()
    settle(page)
    assert page.evaluate("view.units") == where
    page.select_option("#saves", saved)
    page.click("#load")
    page.wait_for_function("g => gameId !== g", arg=gid)
    loaded = page.evaluate("gameId")
    assert table.games[loaded].state.state_hash() == before
    assert page.evaluate("view.units") == where

    # Play on to the end through the page: pass where offered, else the first choice.
    assert not pilot.play_until(page, lambda p: False, limit=3000)
    assert pilot.over(page)
    final = table.games[loaded].state
    assert final.is_terminal()

    # The log, now that the game is over; then the replay viewer, back and forth.
    with page.expect_download() as download:
        page.click("#log")
    lines = Path(download.value.path()).read_text().splitlines()
    assert json.loads(lines[0])["format"] == "muster.log/2"
    assert json.loads(lines[0])["bots"] == ["heuristic", "human"]
    assert json.loads(lines[-1])["hash"] == final.state_hash()
    # A log `muster replay` certifies: the bot's moves legal, every die the seed's.
    done = certify(final.game, read_log(download.value.path()))
    assert done.finished and done.seeded > 0 and done.state.state_hash() == final.state_hash()
    page.select_option("#scenario", "campaign")
    page.click("#replay")
    page.wait_for_function("replayId !== null && view && view.step === 0")
    assert page.input_value("#scenario") == "lees_advance"  # the replayed game's
    page.click("#fwd")
    page.wait_for_function("view.step === 1")
    assert page.text_content("#replaytext").startswith("Step 1 of ")
    page.click("#last")
    page.wait_for_function("view.step === view.length")
    page.click("#back")
    page.wait_for_function("view.step === view.length - 1")


def test_the_players_tick_the_rules_they_play_with(server, page):
    """The Rules list beside the scenario offers the rules the chosen scenario leaves
    to the players, ticked as it sets them; the game plays with the boxes as ticked
    and the panel says which rules it plays with and which it leaves out."""
    table, url = server
    page.goto(url)
    settle(page)
    page.select_option("#scenario", "campaign")
    page.click("#rulesbox summary")
    assert page.is_checked('#rulechoices input[name="diversion"]')
    assert not page.is_checked('#rulechoices input[name="molly_pitcher"]')
    # 4.4's Historical Deployment Option is ticked only with Molly Pitcher.
    option = '#rulechoices input[name="historical_molly_pitcher"]'
    assert page.is_disabled(option)
    page.check('#rulechoices input[name="molly_pitcher"]')
    page.check(option)
    page.uncheck('#rulechoices input[name="molly_pitcher"]')
    assert page.is_disabled(option) and not page.is_checked(option)
    page.select_option("#scenario", "holding_action")  # Molly Pitcher is not used there
    assert page.locator('#rulechoices input[name="molly_pitcher"]').count() == 0
    assert page.locator(option).count() == 0
    assert "Molly Pitcher" in page.text_content("#rules-set-off")  # (6.27, said)
    assert "Hedgerow" in page.text_content("#rules-set-on")
    page.uncheck('#rulechoices input[name="diversion"]')
    page.check('#rulechoices input[name="pro_british"]')
    page.check('#rulechoices input[name="pro_american"]')  # (never both: V, 5.1/5.2)
    assert not page.is_checked('#rulechoices input[name="pro_british"]')
    page.select_option("#side", "american")
    page.select_option("#bot", "random")
    decide(page, page.locator("#new"))
    game = table.games[page.evaluate("gameId")].game
    assert game.scenario.name == "holding_action"
    assert not game.switch_on["diversion"] and game.switch_on["pro_american"]
    assert not game.switch_on["pro_british"]
    assert "Pro-American" in page.text_content("#rules-on")
    assert "Diversion" in page.text_content("#rules-off")
