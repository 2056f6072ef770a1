"""A player at the table's page: drives it in Chromium (Playwright) by clicking, as a person
would, for the browser tests and the screenshots of docs/table.md.

The pilot reads what the page shows (`view`, the server's view of the seated side, and
`battle`, the map's hex centres) to choose what to click; it never asks the engine, so it
plays whatever position a change of the rules or of the bot leads to. Its plan for a close
combat is a player's: in a movement phase, take the unit nearest the enemy and step it,
one lit hex at a time, towards the nearest enemy until it stands next to one; in the close
combat phase, click the designation that attacks from that unit's hex.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from playwright.sync_api import Locator, Page

# Hex distances on the page, from the hex centres it is sent: a hex's neighbours are
# sqrt(3) radii away, the next ring at least 3 radii, so 1.3 steps tells them apart.
_GEOMETRY = """
const step = Math.sqrt(3) * battle.map.radius;
const at = (h) => battle.map.centres[h];
const dist = (a, b) => Math.hypot(at(a)[0] - at(b)[0], at(a)[1] - at(b)[1]) / step;
const mine = (u) => battle.units[u].side === view.decision.side;
const enemies = battle.units.map((u, i) => [u, i])
  .filter(([u, i]) => !mine(i) && view.units[u.name] && view.units[u.name].status === "map")
  .map(([u]) => view.units[u.name].hex)
  .concat(Object.keys(view.concealed || {}));  // stacks it may not examine: the enemy's
const nearest = (h) => Math.min(Infinity, ...enemies.map((e) => dist(h, e)));
"""

# The units that may move now, each with its hex and hex distance to the nearest enemy.
_MOVERS = (
    "() => {"
    + _GEOMETRY
    + """
  return Object.keys(view.decision.moves).map(Number).map((u) => {
    const hex = view.units[battle.units[u].name].hex;
    return { unit: u, hex, enemy: nearest(hex) };
  }).sort((a, b) => a.enemy - b.enemy);
}"""
)

# The chosen unit's lit hexes, nearest the enemy first.
_OPTIONS = (
    "(u) => {"
    + _GEOMETRY
    + """
  return (view.decision && view.decision.moves[u] || [])
    .map((m) => ({ hex: m.hex, cost: m.cost, enemy: nearest(m.hex) }))
    .sort((a, b) => a.enemy - b.enemy);
}"""
)

# Hexes next to `hex` (by their centres) holding no unit, inside the page's viewport.
_EMPTY_NEAR = """([hex, rings]) => {
  const step = Math.sqrt(3) * battle.map.radius;
  const [x, y] = battle.map.centres[hex];
  const taken = new Set(Object.values(view.units).map((st) => st.hex));
  const vp = document.getElementById("viewport").getBoundingClientRect();
  const box = document.getElementById("board").getBoundingClientRect();
  return Object.entries(battle.map.centres).filter(([label, [cx, cy]]) => {
    const d = Math.hypot(cx - x, cy - y) / step;
    const px = box.left + cx * zoom, py = box.top + cy * zoom;
    return d > rings - 0.3 && d < rings + 0.3 && !taken.has(label)
      && px > vp.left + 20 && px < vp.right - 20 && py > vp.top + 20 && py < vp.bottom - 20;
  }).map(([label]) => label).sort();
}"""

# Where a hex's centre is on the screen.
_SCREEN = """(hex) => {
  const box = document.getElementById("board").getBoundingClientRect();
  const [cx, cy] = battle.map.centres[hex];
  return [box.left + cx * zoom, box.top + cy * zoom];
}"""


@dataclass(frozen=True, slots=True)
class Contact:
    """A unit the pilot moved next to the enemy: its index, its title and where it stands."""

    unit: int
    title: str
    hex: str


def move_number(page: Page) -> int:
    return page.evaluate("view ? view.move : -1")


def decide(page: Page, target: Locator) -> None:
    """Click something that sends a decision, and wait until the page shows the next move."""
    move = move_number(page)
    target.click()
    page.wait_for_function("m => view && view.move !== m", arg=move)


def show_hex(page: Page, hex_label: str) -> None:
    """Drag the map, as a person does, until a hex stands well inside the view."""
    x, y = page.evaluate(_SCREEN, hex_label)
    box = page.locator("#viewport").bounding_box()
    left, top, right, bottom = box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]
    if left + 60 < x < right - 60 and top + 60 < y < bottom - 60:
        return
    cx, cy = (left + right) / 2, (top + bottom) / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + (cx - x), cy + (cy - y), steps=5)
    page.mouse.up()


def move_to(page: Page, hex_label: str) -> None:
    """Click a lit hex (on its counters, if friendly units stand there) to move the chosen
    unit into it, and wait until the page shows the next move."""
    move = move_number(page)
    show_hex(page, hex_label)
    click_hex(page, hex_label)
    page.wait_for_function("m => view && view.move !== m", arg=move)


def over(page: Page) -> bool:
    return page.text_content("#whose").startswith("Game over")


def default_decision(page: Page) -> None:
    """One decision as a quick player makes it: roll a waiting die; pass where passing is
    offered; else the first button; else the first hex lit for a choice on the map (a
    set-up's hexes); else (only steps on the map are offered: "the unit must move on")
    the first lit hex of the first unit that may move."""
    if page.locator("#rollbutton").count():
        decide(page, page.locator("#rollbutton"))
        return
    buttons = page.locator("#decision button")
    passes = page.locator('#decision button[data-kind="pass"]')
    if passes.count():
        decide(page, passes.first)
    elif buttons.count():
        decide(page, buttons.first)
    elif page.locator(".target.choice").count():
        move = move_number(page)
        hex_label = page.locator(".target.choice").first.get_attribute("data-hex")
        show_hex(page, hex_label)
        click_hex(page, hex_label)
        page.wait_for_function("m => view && view.move !== m", arg=move)
    else:
        choose_unit(page, int(page.evaluate("Object.keys(view.decision.moves)[0]")))
        decide(page, page.locator(".target:not(.combat)").first)


def in_movement(page: Page) -> bool:
    """The seated side moves its units now (units with a dashed edge may move)."""
    return page.evaluate("!!(view && view.decision && Object.keys(view.decision.moves).length)")


def can_designate(page: Page) -> bool:
    return page.locator('#decision button[data-kind="designate"]').count() > 0


def play_until(page: Page, done: Callable[[Page], bool], limit: int = 400) -> bool:
    """Default decisions until `done(page)` or the game is over; whether `done` came."""
    for _ in range(limit):
        if done(page):
            return True
        if over(page):
            return False
        default_decision(page)
    return done(page)


def click_hex(page: Page, hex_label: str) -> None:
    """Click the map at a hex's centre (where the page's own hit-test finds it)."""
    x, y = page.evaluate(_SCREEN, hex_label)
    page.mouse.click(x, y)


def empty_hexes(page: Page, hex_label: str, rings: int) -> list[str]:
    """Hexes `rings` hexes from `hex_label` with no unit in them, on the screen."""
    return page.evaluate(_EMPTY_NEAR, [hex_label, rings])


def click_counter(page: Page, unit: int) -> None:
    """Click a unit's counter as a person does: point at its stack first, which fans the
    stack out, so a counter under others can be clicked."""
    counter = page.locator(f'.counter[data-unit="{unit}"]')
    counter.hover(force=True)  # over the stack, wherever the counter lies in it
    counter.click()


def choose_unit(page: Page, unit: int) -> None:
    """Click a unit's counter: the hexes it can reach in this move light up, with their MP
    costs (once the server has found the ways there)."""
    if page.evaluate("u => chosen !== u", unit):  # a second click would put it down
        other = page.evaluate("chosen")
        if other >= 0:  # put the chosen unit down first: a click on a hex it may enter moves it
            click_counter(page, other)
            page.wait_for_function("chosen === -1")
        click_counter(page, unit)
    page.wait_for_function("u => chosen === u", arg=unit)
    page.wait_for_function("u => reach && reach.unit === u && reach.move === view.move", arg=unit)


def out_of_reach(page: Page, unit: int, hex_label: str) -> str:
    """An empty hex on the screen that the chosen unit cannot reach in this move: two
    rings beyond its farthest destination."""
    farthest = page.evaluate("() => Math.max(0, ...reach.paths.map((p) => p.hexes.length))")
    lit = set(page.evaluate("() => reach.paths.map((p) => p.hex)"))
    return next(h for h in empty_hexes(page, hex_label, farthest + 2) if h not in lit)


def farthest_destination(page: Page) -> dict:
    """The chosen unit's destination the most steps away (its path and MP cost)."""
    return page.evaluate(
        "() => reach.paths.reduce((a, b) => (b.hexes.length > a.hexes.length ? b : a))"
    )


def point_at_destination(page: Page, hex_label: str) -> None:
    """Rest the pointer on a lit destination: the page draws the way there."""
    show_hex(page, hex_label)
    page.locator(f'.target:not(.combat)[data-hex="{hex_label}"]').hover(force=True)


def movers(page: Page) -> list[dict]:
    """The units that may move, nearest the enemy first (hex, distance in hexes)."""
    return page.evaluate(_MOVERS)


def move_into_contact(page: Page, tries: int = 4) -> Contact | None:
    """Step a unit, lit hex by lit hex, until it stands next to an enemy unit.

    Takes the movers nearest the enemy (not already next to one) in turn, and steps each
    into the lit hex nearest the enemy while that brings it nearer; None when none gets
    there this phase."""
    for candidate in [m for m in movers(page) if m["enemy"] > 1.3][:tries]:
        unit = candidate["unit"]
        if not in_movement(page) or str(unit) not in page.evaluate("view.decision.moves"):
            continue
        choose_unit(page, unit)
        contact = _step_nearer(page, unit, candidate["enemy"])
        if contact is not None:
            return contact
    return None


def _step_nearer(page: Page, unit: int, distance: float) -> Contact | None:
    """Step the chosen unit into the lit hex nearest the enemy while that brings
    it nearer; its contact once next to an enemy, None if it stops short."""
    while True:
        options = page.evaluate(_OPTIONS, unit)
        if not options or options[0]["enemy"] >= distance - 0.3:
            return None
        best = options[0]
        move_to(page, best["hex"])
        distance = best["enemy"]
        if distance < 1.3:
            title = page.evaluate("u => battle.units[u].title", unit)
            return Contact(unit, title, best["hex"])
        if page.evaluate("u => chosen !== u", unit):
            return None  # it had to stop (its move is over)


def designation_from(page: Page, hex_label: str) -> Locator | None:
    """The button of a close combat to designate that attacks from `hex_label`."""
    action = page.evaluate(
        """(h) => {
          const a = view.decision && view.decision.actions.find(
            (a) => a.kind === "designate" && a.attack.includes(h));
          return a ? a.action : null;
        }""",
        hex_label,
    )
    if action is None:
        return None
    return page.locator(f'#decision button[data-action="{action}"]')


def to_close_combat_roll(page: Page, contact: Contact, limit: int = 200) -> bool:
    """From a designation made, on to the roll on the Close Combat Table of the combat
    `contact` attacks in (picking it where the next combat is chosen, rolling the others'
    dice on the way); whether it came, False once that combat is off the list."""
    for _ in range(limit):
        if over(page):
            return False
        state = page.evaluate(
            """(title) => {
              const open = (view.combats || []).filter((c) => !c.resolved);
              const ours = open.find((c) => c.attackers.includes(title));
              return { listed: !!ours, now: !!(ours && ours.now) };
            }""",
            contact.title,
        )
        if not state["listed"]:
            return False
        rolling = page.locator("#rollbutton").count() > 0
        if state["now"] and rolling and "Close Combat" in page.text_content("#rolltable"):
            return True
        ours = page.locator("#decision button", has_text=contact.title).filter(has_text="combat")
        if ours.count():
            decide(page, ours.first)
        else:
            default_decision(page)
    return False


def finish_movement(page: Page) -> None:
    """End the seated side's movement: pass (or move on where a unit must)."""
    while in_movement(page) and not over(page):
        default_decision(page)


def declare_close_combat(page: Page, phases: int = 8) -> Contact | None:
    """Move a unit next to the enemy and designate a close combat from its hex, in the first
    of the seated side's next `phases` movement phases where that works; the unit, or None.

    A unit that got there may be gone by the close combat phase (fired on and retreated,
    or the enemy withdrew): then the pilot tries again in the next movement phase."""
    for _ in range(phases):
        if not play_until(page, in_movement):
            return None
        contact = move_into_contact(page)
        finish_movement(page)
        if contact is None:
            continue
        if not play_until(page, lambda p: can_designate(p) or in_movement(p)):
            return None
        here = page.evaluate("u => view.units[battle.units[u].name].hex", contact.unit)
        button = designation_from(page, here) if can_designate(page) else None
        if button is not None:
            decide(page, button)
            return Contact(contact.unit, contact.title, here)
    return None
