"""Screenshots of the table for docs/table.md: every shipped scenario at its start, a close
combat about to be rolled (in a game played on the page), and the replay viewer.

    .venv/bin/python -m table.screenshots docs/table

Or one position of a logged game, from one side's seat (what that side's page shows,
its hidden information held back), for any battle:

    .venv/bin/python -m table.screenshots OUT.png --battle PATH --log GAME.jsonl \
        --side SIDE --move N

Needs the dev extra (Playwright) and Debian's chromium at /usr/bin/chromium; it serves
each battle on a free local port and drives the page as a player would.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from PIL import Image
from playwright.sync_api import Page, sync_playwright

from engine.play import play_game, read_log
from table import pilot
from table.guard import addresses
from table.server import Table, make_app, open_table

CHROMIUM = "/usr/bin/chromium"
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
SIZE = {"width": 1360, "height": 820}


@contextmanager
def serving(table: Table) -> Iterator[str]:
    """The table's app on a free port of this machine, for as long as the block runs."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = make_app(table, addresses("127.0.0.1", port))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def open_game(page: Page, url: str, query: str) -> None:
    page.goto(f"{url}/{query}")
    page.wait_for_load_state("networkidle")
    page.wait_for_function("view !== null")


def shoot(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    shots = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport=SIZE)
        for battle in ("monmouth", "newtown", "training"):
            table = open_table(battle)
            with serving(table) as url:
                for sc in table.rules.scenarios:
                    side = table.defaults["side"]
                    tg = table.make_game(sc.name, side, table.defaults["bot"], 1)
                    tg.run_on()
                    open_game(page, url, table.take_seats(tg, side))
                    shots.append(out / f"{battle}-{sc.name}.png")
                    page.screenshot(path=str(shots[-1]))
                if battle == "monmouth":
                    shots += _combat_and_replay(page, table, url, out)
                    shots += _results_and_refusal(page, table, url, out)
                    shots.append(rule_choices(page, url, out))
        browser.close()
    return shots


def _combat_and_replay(page: Page, table: Table, url: str, out: Path) -> list[Path]:
    """Lee's Advance played on the page against the bot, as the browser test plays it, to
    an American close combat about to be rolled; then a logged game in the replay viewer."""
    tg = table.make_game("lees_advance", "american", table.defaults["bot"], 1)
    tg.run_on()
    open_game(page, url, table.take_seats(tg, "american"))
    contact = pilot.declare_close_combat(page)
    if contact is None or not pilot.to_close_combat_roll(page, contact):
        raise RuntimeError("no American close combat came to be rolled in Lee's Advance")
    combat = out / "monmouth-close-combat.png"
    page.screenshot(path=str(combat))
    game = table.package.load_game({"scenario": "lees_advance"})
    record = play_game(game, ["heuristic", "heuristic"], 4)
    lines = [record.header, *record.moves, record.final]
    rid = page.evaluate(
        "async (log) => (await api('POST', '/api/replays', {log})).replay",
        "\n".join(json.dumps(x) for x in lines),
    )
    open_game(page, url, f"?replay={rid}")
    page.evaluate(f"stepReplay({len(record.moves) // 2})")
    page.wait_for_function(f"view.step === {len(record.moves) // 2}")
    replay = out / "monmouth-replay.png"
    page.screenshot(path=str(replay))
    return [combat, replay]


def rule_choices(page: Page, url: str, out: Path) -> Path:
    """The Rules list of Monmouth's campaign game, open: Molly Pitcher ticked with her
    Historical Deployment Option under her, and Pro-British (Pro-American unticked)."""
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.select_option("#scenario", "campaign")
    page.click("#rulesbox summary")
    for name in ("molly_pitcher", "historical_molly_pitcher", "pro_british"):
        page.check(f'#rulechoices input[name="{name}"]')
    box = page.locator("#rulechoices").bounding_box()
    assert box is not None
    shot = out / "monmouth-rules.png"
    pad = 12
    clip = {
        "x": max(box["x"] - pad, 0),
        "y": 0,
        "width": box["width"] + 2 * pad,
        "height": box["y"] + box["height"] + pad,
    }
    page.screenshot(path=str(shot), clip=clip)
    return shot


def _account_shows(words: str) -> Callable[[Page], bool]:
    """Whether the account's last lines hold `words` (the panel shows the newest)."""

    def shows(page: Page) -> bool:
        return any(words in line for line in page.locator("#lines li").all_text_contents()[-6:])

    return shows


def _results_and_refusal(page: Page, table: Table, url: str, out: Path) -> list[Path]:
    """Lee's Advance against the bot, played on the page: a move the rules refuse, with
    the rule that refuses it; a unit's whole move lit, the way to its farthest hex drawn;
    a fire result in the account (hit or miss, and the number needed), and a Morale
    Check (passed or failed, and the number needed)."""
    tg = table.make_game("lees_advance", "american", table.defaults["bot"], 1)
    tg.run_on()
    open_game(page, url, table.take_seats(tg, "american"))
    if not pilot.play_until(page, pilot.in_movement, limit=2000):
        raise RuntimeError("no American movement phase came in Lee's Advance")
    unit = pilot.movers(page)[0]
    pilot.choose_unit(page, unit["unit"])
    pilot.click_hex(page, pilot.out_of_reach(page, unit["unit"], unit["hex"]))
    page.wait_for_selector("#reason-text")
    shots = [out / "monmouth-refusal.png"]
    page.screenshot(path=str(shots[-1]))
    pilot.point_at_destination(page, pilot.farthest_destination(page)["hex"])
    page.wait_for_selector(".path-step")
    shots.append(out / "monmouth-one-click-move.png")
    page.screenshot(path=str(shots[-1]))
    for words, name in (("Fire at", "fire"), ("Morale Check:", "morale")):
        if not pilot.play_until(page, _account_shows(words), limit=2000):
            raise RuntimeError(f"no {words!r} line came in a game of Lee's Advance")
        shots.append(out / f"monmouth-{name}.png")
        page.screenshot(path=str(shots[-1]))
    return shots


def shoot_position(battle: str, log: str, side: str, move: int, out: Path) -> Path:
    """The page of `side`'s seat at move `move` of a logged game (its scenario and
    switches, its actions replayed by the table as it plays them)."""
    record = read_log(log)
    params = record.header["params"]
    table = open_table(battle, scenario=params.get("scenario"))
    game = table.package.load_game(params)
    tg = table.seat(game, game.new_initial_state(), side, table.defaults["bot"], 1)
    for line in record.moves[:move]:
        tg._apply(tg.state, line["action"])
    with sync_playwright() as pw, serving(table) as url:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport=SIZE)
        open_game(page, url, table.take_seats(tg, side))
        page.screenshot(path=str(out))
        browser.close()
    return out


def shrink(path: Path) -> None:
    """A screenshot in 256 colours: a third of the bytes, and the counters still read."""
    Image.open(path).convert("RGB").quantize(256, dither=Image.Dither.NONE).save(
        path, optimize=True
    )


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m table.screenshots")
    ap.add_argument("out", nargs="?", default="docs/table", help="folder (or PNG with --log)")
    ap.add_argument("--battle", help="the ruleset of the logged game")
    ap.add_argument("--log", help="a play log (`muster play --log`): shoot one of its positions")
    ap.add_argument("--side", help="whose seat")
    ap.add_argument("--move", type=int, default=0, help="the position after this many moves")
    args = ap.parse_args(argv)
    if args.log:
        if not (args.battle and args.side):
            ap.error("--log needs --battle and --side")
        paths = [shoot_position(args.battle, args.log, args.side, args.move, Path(args.out))]
    else:
        paths = shoot(Path(args.out))
    for path in paths:
        shrink(path)
        print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
