"""The table's page in a real headless Chromium (Debian's `chromium`, driven by Playwright):
a game of Lee's Advance as the American player against the bot, played through the page.

Skips when Playwright or /usr/bin/chromium is missing (`.ci/run` installs chromium).
"""

from __future__ import annotations

import random
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from engine import chance  # noqa: E402
from engine.save import to_json  # noqa: E402
from table.server import make_app, open_table  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    table = open_table("monmouth", "lees_advance", "american", saves=tmp_path_factory.mktemp("s"))
    port = free_port()
    srv = uvicorn.Server(
        uvicorn.Config(make_app(table), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)
    yield table, f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
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


def combat_position(table) -> dict:
    """Lee's Advance played on by the engine (seeded, rarely passing) to the first American
    Close Combat Phase with a combat to designate: where the page declares one."""
    game = table.package.load_game({"scenario": "lees_advance"})
    space = game.actions
    s = game.new_initial_state()
    rng = random.Random(1)
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance.sample(s, 1))
            continue
        legal = s.legal_actions()
        if s.current_player() == 1 and any(space.kind_of(a) == "designate" for a in legal):
            break
        moving = [a for a in legal if a != 0]
        s.apply_action(rng.choice(moving) if moving and rng.random() < 0.97 else legal[0])
    assert not s.is_terminal()
    return to_json(s)


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
        combat_position(table),
    )
    page.goto(f"{url}/?game={r}&side=american")
    settle(page)
    decide(page, page.locator('#decision button[data-kind="designate"]').first)
    for _ in range(200):
        if page.locator("#rollbutton").count() and "Close Combat" in page.text_content("#roll h3"):
            break
        if page.locator("#rollbutton").count():
            decide(page, page.locator("#rollbutton"))
        else:
            passes = page.locator('#decision button[data-kind="pass"]')
            decide(page, passes.first if passes.count() else page.locator("#decision button").first)
    heading = page.text_content("#roll h3")
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
