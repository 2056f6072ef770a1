"""The table's page in a real headless Chromium (Debian's `chromium`, driven by Playwright):
a game of Lee's Advance as the American player against the bot, played through the page.

Skips when Playwright or /usr/bin/chromium is missing (`.ci/run` installs chromium).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from table import screenshots  # noqa: E402

CHROMIUM = Path(screenshots.CHROMIUM)

if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)


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


def decide(page, target) -> None:
    """Click something that sends a decision, and wait until the page shows the next move."""
    move = page.evaluate("view ? view.move : -1")
    target.click()
    page.wait_for_function("m => view && view.move !== m", arg=move)


def roll_through(page) -> None:
    """Press Roll while a table roll waits (its column and DRMs shown)."""
    while page.locator("#rollbutton").count():
        decide(page, page.locator("#rollbutton"))


def test_play_lees_advance_as_the_american_player(server, page, tmp_path):
    table, url = server
    page.goto(url)
    settle(page)
    page.select_option("#scenario", "lees_advance")
    page.select_option("#side", "american")
    decide(page, page.locator("#new"))
    roll_through(page)
    assert page.text_content("#whose") == "Continental Army to decide"

    # Click a unit: the hexes it may enter light up with their MP cost.
    unit = page.locator(".counter.can-move").first
    unit_id = unit.get_attribute("data-unit")
    unit.click()
    targets = page.locator(".target:not(.combat)")
    assert targets.count() > 0
    assert all(t.endswith(" MP") for t in targets.all_text_contents())

    # A hex it may not enter: the page says which rule refuses, with its citation.
    here = unit.get_attribute("data-hex")
    col = int(here[:2])
    far = f"{col - 4 if col > 5 else col + 4:02d}{here[2:]}"
    page.evaluate(f"explainHex('{far}')")
    page.wait_for_selector("#reason-text")
    assert "one hex at a time" in page.text_content("#reason-text")
    assert "§ series 9" in page.text_content("#reason")

    # Move it by clicking a lit hex.
    target = targets.first
    to = target.get_attribute("data-hex")
    decide(page, target)
    assert page.locator(f'.counter[data-unit="{unit_id}"]').get_attribute("data-hex") == to
    assert any(f"→ {to}" in line for line in page.locator("#lines li").all_text_contents())

    # The log is the other side's secret until the game is over.
    page.click("#log")
    page.wait_for_selector("#reason .error")
    assert "when the game is over" in page.text_content("#reason")

    # Save, reload the page (the game comes back), load the save.
    page.click("#save")
    page.wait_for_selector("#saved")
    saved = page.input_value("#saves")
    move = table.games[page.evaluate("gameId")].state.move_number
    page.reload()
    settle(page)
    assert page.locator(f'.counter[data-unit="{unit_id}"]').get_attribute("data-hex") == to
    page.select_option("#saves", saved)
    page.click("#load")
    settle(page)
    loaded = page.evaluate("gameId")
    assert table.games[loaded].state.move_number == move
    assert page.locator(f'.counter[data-unit="{unit_id}"]').get_attribute("data-hex") == to

    # A position further on, in the American Close Combat Phase: declare a combat by its
    # button, answer the combat's choices, and read its odds column and DRMs before rolling.
    r = page.evaluate(
        "async (state) => (await api('POST', '/api/load', {state, side: 'american'})).game",
        screenshots.first_american_combat(table),
    )
    page.goto(f"{url}/?game={r}&side=american")
    settle(page)
    decide(page, page.locator('#decision button[data-kind="designate"]').first)
    for _ in range(200):
        if page.locator("#rollbutton").count() and "Close Combat" in page.text_content(
            "#rolltable"
        ):
            break
        if page.locator("#rollbutton").count():
            decide(page, page.locator("#rollbutton"))
        else:
            passes = page.locator('#decision button[data-kind="pass"]')
            decide(page, passes.first if passes.count() else page.locator("#decision button").first)
    heading = page.text_content("#rolltable")
    assert heading.startswith("Close Combat Table — column ") and ":" in heading
    drms = page.locator("#drms tr").all_text_contents()
    assert drms and all("§ series" in row for row in drms if row != "no modifier applies")
    page.screenshot(path=str(tmp_path / "combat.png"))
    decide(page, page.locator("#rollbutton"))
    assert any(
        "Close Combat Table: rolled" in x for x in page.locator("#lines li").all_text_contents()
    )

    # Play on to the end through the page: the first offered choice (pass where offered).
    for _ in range(3000):
        if page.text_content("#whose").startswith("Game over"):
            break
        if page.locator("#rollbutton").count():
            decide(page, page.locator("#rollbutton"))
            continue
        buttons = page.locator("#decision button")
        if buttons.count() == 0:
            # Only moves on the map are offered ("the unit must move on"): click one.
            page.locator(".counter.can-move").first.click()
            decide(page, page.locator(".target:not(.combat)").first)
        else:
            passes = page.locator('#decision button[data-kind="pass"]')
            decide(page, passes.first if passes.count() else buttons.first)
    assert page.text_content("#whose").startswith("Game over")
    assert table.games[page.evaluate("gameId")].state.is_terminal()

    # The log, now that the game is over; then the replay viewer, back and forth.
    with page.expect_download() as download:
        page.click("#log")
    lines = Path(download.value.path()).read_text().splitlines()
    assert json.loads(lines[0])["format"] == "muster.log/2"
    assert json.loads(lines[-1])["hash"] == table.games[page.evaluate("gameId")].state.state_hash()
    page.click("#replay")
    page.wait_for_function("replayId !== null && view && view.step === 0")
    page.click("#fwd")
    page.wait_for_function("view.step === 1")
    assert page.text_content("#replaytext").startswith("Step 1 of ")
    page.click("#last")
    page.wait_for_function("view.step === view.length")
    page.click("#back")
    page.wait_for_function("view.step === view.length - 1")
