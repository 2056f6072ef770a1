"""Effects: immediate changes of the game state that rule files call.

An effect never asks anyone anything (that is a primitive's job); it changes
the state, says what happened in the game's account, and emits the events
that triggers listen to.
"""

from __future__ import annotations

from fractions import Fraction

from engine.describe import hex_label, marker_title, side_name, unit_name, value_text
from engine.events import emit, say
from engine.information import SecretLine, guarded_text, variable_reader
from engine.nodes import RulesError
from engine.queries import enemies_adjacent, unit_steps
from engine.rules import TerrainChangeSpec
from engine.state import (
    CAPTURED,
    ELIMINATED,
    EXITED,
    NOT_ENTERED,
    ON_MAP,
    OUT_OF_PLAY,
    REVEALED,
    Combat,
    State,
)
from engine.terrain_state import (
    CHANGED_TERRAIN,
    change_index,
    made_entry,
    place_of,
    sorted_entries,
    split_entry,
)
from engine.vocabulary import effect

# Found here too (engine/events.py, engine/describe.py, engine/information.py): the
# generated rules call them as `e.say`, `e.value_text` and `e.guarded_text` (a `say`
# with values, some of them secret).
__all__ = ["emit", "guarded_text", "say", "value_text"]

# The rules' `say "…"`: written with the events (below every layer that talks).
effect(("text", "str"))(say)


def place_unit(s: State, u: int, h: int) -> None:
    """Move a unit to a hex (no cost, no checks: the caller checked)."""
    before = s.unit_hex[u] if s.unit_status[u] == ON_MAP else -1
    s.unit_hex[u] = h
    s.unit_status[u] = ON_MAP
    arrived(s, u, before, h)


def arrived(s: State, u: int, before: int, h: int) -> None:
    """Events of a unit entering hex h from `before` (-1 from off the map)."""
    emit(s, "entered", unit=u, hex=h)
    if s.game.triggers_by_event.get("became_adjacent"):
        side = s.game.rules.units[u].side
        was = set(enemies_adjacent(s, before, side)) if before >= 0 else set()
        if set(enemies_adjacent(s, h, side)) - was:
            emit(s, "became_adjacent", unit=u, hex=h)


def set_var(s: State, name: str, value: object) -> None:
    """Set a variable; triggers `on changed NAME` hear of it."""
    old = s.vars[name]
    s.vars[name] = value
    if old != value:
        _hidden_again(s, name)
        if name in s.game.announced:
            was, now = variable_text(s, name, old), variable_text(s, name, value)
            text = f"{s.game.announced[name]}: {was} → {now}."
            _announce(s, name, 0, text, "")
        emit(s, f"changed:{name}", old=old, new=value)


def set_at(s: State, name: str, index: int, value: object) -> None:
    """Set one side's, one unit's or one hex's value of a variable."""
    values = list(s.vars[name])
    old = values[index]
    values[index] = value
    s.vars[name] = tuple(values)
    if old != value:
        _hidden_again(s, name)
        scope = s.game.variable_scopes.get(name, "side")
        if name in s.game.announced:
            whose = _whose(s, scope, index)
            was, now = variable_text(s, name, old), variable_text(s, name, value)
            text = f"{s.game.announced[name]} ({whose}): {was} → {now}."
            _announce(s, name, index, text, f" ({whose})")
        emit(s, f"changed:{name}", old=old, new=value, **{scope: index})


def _whose(s: State, scope: str, index: int) -> str:
    """Whose value of a variable it is, as a player reads it."""
    if scope == "side":
        return side_name(s, index)
    return hex_label(s, index) if scope == "hex" else unit_name(s, index)


def _hidden_again(s: State, name: str) -> None:
    """A secret variable set anew is secret again until revealed again."""
    if name in s.vars.get(REVEALED, ()):
        s.vars[REVEALED] = tuple(n for n in s.vars[REVEALED] if n != name)


def _announce(s: State, name: str, index: int, text: str, where: str) -> None:
    """Tell a variable's change; a secret variable's, in full to its reader only:
    the other side reads that it was set, face down."""
    var = s.game.secret_variables.get(name)
    if var is None:
        say(s, text)
        return
    reader = variable_reader(var, index)
    public = f"{side_name(s, reader)} sets {var.title}{where}, face down."
    say(s, SecretLine(text, reader, public))


def variable_text(s: State, name: str, value: object) -> str:
    """An announced variable's value as a player reads it: yes/no, names, a
    marker's title, none."""
    typ = s.game.variable_types.get(name, "")
    if typ == "marker":
        return marker_title(s, value) if value else "none"
    return value_text(s, typ, value)


@effect(("bag", "bag"), ("token", "marker"))
def put_in(s: State, bag: str, token: str) -> None:
    """Add a marker to a bag (a marker that joins the cup when something happens)."""
    s.bags[bag] = tuple(sorted((*s.bags[bag], token)))


@effect(("bag", "bag"), ("token", "marker"))
def take_out(s: State, bag: str, token: str) -> None:
    """Remove one copy of a marker from a bag, if it holds one."""
    contents = list(s.bags[bag])
    if token in contents:
        contents.remove(token)
    s.bags[bag] = tuple(contents)


@effect(("bag", "bag"))
def refill(s: State, bag: str) -> None:
    """Put the markers drawn from the bag back into it."""
    s.bags[bag] = tuple(sorted((*s.bags[bag], *s.drawn[bag])))
    s.drawn[bag] = ()


@effect(("u", "unit"), ("h", "hex"))
def advance_to(s: State, u: int, h: int) -> None:
    """Move the unit into hex h at no cost (advance after combat, 12.23 step 9)."""
    a = s.unit_hex[u]
    place_unit(s, u, h)
    say(s, f"{unit_name(s, u)} advances {hex_label(s, a)} → {hex_label(s, h)}.")


@effect(("u", "unit"), ("h", "hex"))
def carry(s: State, u: int, h: int) -> None:
    """Move the unit along with the unit it is attached to, at no cost."""
    a = s.unit_hex[u]
    place_unit(s, u, h)
    say(s, f"{unit_name(s, u)} goes along, {hex_label(s, a)} → {hex_label(s, h)}.")


@effect(("u", "unit"), ("h", "hex"))
def place(s: State, u: int, h: int) -> None:
    """Put a unit that is off the map into hex h at no cost (a unit returning to play)."""
    place_unit(s, u, h)
    say(s, f"{unit_name(s, u)} is placed in {hex_label(s, h)}.")
    emit(s, "entered_map", unit=u, hex=h)


@effect(("u", "unit"))
def hold_back(s: State, u: int) -> None:
    """Take a reinforcement back off the map to wait on the game-turn track; it is due
    again from the next placement of its side's reinforcements (9.61)."""
    h = s.unit_hex[u]
    s.unit_status[u] = NOT_ENTERED
    s.unit_hex[u] = -1
    say(s, f"{unit_name(s, u)} goes back off the map at {hex_label(s, h)} to enter later.")


@effect(("u", "unit"))
def remove_from_play(s: State, u: int) -> None:
    """Take the unit out of the game, neither eliminated nor captured."""
    s.unit_status[u] = OUT_OF_PLAY
    s.unit_hex[u] = -1
    say(s, f"{unit_name(s, u)} leaves the game.")


@effect(("c", "combat"))
def resolve_combat(s: State, c: int) -> None:
    """Mark a designated close combat resolved."""
    s.combats[c].resolved = True


@effect(("u", "unit"))
def leave_combat(s: State, u: int) -> None:
    """The unit takes no part in its designated close combat after all (it
    retreated before combat); a combat left without attackers or defenders is
    called off."""
    for c in s.combats:
        if not c.resolved and _takes_part(c, u):
            _take_out_of_combat(s, c, u)


def _takes_part(c: Combat, u: int) -> bool:
    """The unit is among the combat's attackers or defenders."""
    return u in c.attackers or u in c.defenders


def _take_out_of_combat(s: State, c: Combat, u: int) -> None:
    """The combat without the unit, its hexes those of the units left; called off
    when a side is left with none."""
    c.attackers = tuple(x for x in c.attackers if x != u)
    c.defenders = tuple(x for x in c.defenders if x != u)
    c.attack_hexes = tuple(sorted({s.unit_hex[x] for x in c.attackers}))
    c.defense_hexes = tuple(sorted({s.unit_hex[x] for x in c.defenders}))
    if not c.attackers or not c.defenders:
        c.resolved = True
        say(s, "That close combat is called off.")


@effect(("u", "unit"))
def join_combats(s: State, u: int) -> None:
    """The unit, having retreated into a hex of a close combat still to be
    resolved, joins that combat on its own side (series 13.25): it is among the
    combat's attackers or defenders, which the rules read for what it may
    and may not do there (add no strength, never lead, check morale)."""
    h = s.unit_hex[u]
    side = s.game.rules.units[u].side
    for c in s.combats:
        if c.resolved or _takes_part(c, u):
            continue
        if side == c.side and h in c.attack_hexes:
            c.attackers = (*c.attackers, u)
        elif side != c.side and h in c.defense_hexes:
            c.defenders = (*c.defenders, u)


@effect(("u", "unit"))
def halt(s: State, u: int) -> None:
    """The unit moves no further in its side's movement phase: given during it, the
    unit has finished its move; given before it in the same turn (a step at the
    start of the player turn, an earlier phase), the unit does not move in it. A
    halt given once its side has moved that turn lapses with the turn."""
    side = s.game.rules.units[u].side
    for frame in reversed(s.stack):
        if frame.prim and frame.proc == "move_units" and frame.b["side"] == side:
            if frame.b["active"] == u:
                frame.b["active"] = -1
            if u not in frame.b["moved"]:
                frame.b["moved"] = (*frame.b["moved"], u)
            return
    s.halted[u] = s.vars["turn"]


@effect(("side", "side"), ("points", "number"))
def score(s: State, side: int, points: int | Fraction) -> None:
    """Add victory points to a side; points may come in halves (`score(red, 1/2)`)."""
    vp = list(s.vars["vp"])
    total = Fraction(vp[side]) + points
    vp[side] = total.numerator if total.denominator == 1 else total  # 3, not Fraction(3)
    s.vars["vp"] = tuple(vp)
    say(s, f"{side_name(s, side)} scores {_points(points)} VP (now {_points(vp[side])}).")


def _points(value: int | Fraction) -> str:
    """Victory points as a player writes them: 3, 1/2, 3 1/2."""
    value = Fraction(value)
    if value < 0:
        return f"-{_points(-value)}"
    whole, part = divmod(value, 1)
    if not part:
        return str(whole)
    return f"{part}" if whole == 0 else f"{whole} {part}"


@effect(("u", "unit"))
def lose_step(s: State, u: int) -> None:
    """The unit loses one step: it shows its next step's values (a two-step unit flips;
    past the second step, a replacement counter), and after its last step it is eliminated."""
    steps = len(s.game.rules.units[u].strengths)
    if s.unit_loss[u] + 1 < steps:
        s.unit_loss[u] += 1
        say(s, f"{unit_name(s, u)} loses a step.")
        emit(s, "step_lost", unit=u, hex=s.unit_hex[u])
    else:
        eliminate(s, u)


@effect(("u", "unit"))
def eliminate(s: State, u: int) -> None:
    """Remove the unit to the eliminated box."""
    h = s.unit_hex[u]
    steps = unit_steps(s, u)
    s.unit_status[u] = ELIMINATED
    s.unit_hex[u] = -1
    say(s, f"{unit_name(s, u)} is eliminated in {hex_label(s, h)}.")
    emit(s, "eliminated", unit=u, hex=h, steps=steps)


@effect(("u", "unit"))
def capture(s: State, u: int) -> None:
    """Remove the unit to the captured box."""
    h = s.unit_hex[u]
    s.unit_status[u] = CAPTURED
    s.unit_hex[u] = -1
    say(s, f"{unit_name(s, u)} is captured in {hex_label(s, h)}.")
    emit(s, "captured", unit=u, hex=h)


def exit_map(s: State, u: int) -> None:
    """The unit leaves the map on purpose by an `exit` of the rules: out of play as
    exited (neither eliminated nor captured), where `exited_units` counts it."""
    h = s.unit_hex[u]
    s.unit_status[u] = EXITED
    s.unit_hex[u] = -1
    say(s, f"{unit_name(s, u)} exits the map at {hex_label(s, h)}.")
    emit(s, "exited", unit=u, hex=h)


def _applies(s: State, victory: object) -> bool:
    scenario = s.game.scenario
    scenarios = victory.scenarios  # type: ignore[attr-defined]
    return not scenarios or (scenario is not None and scenario.name in scenarios)


def end_game(s: State, winner: int, level: str, why: str) -> None:
    s.winner, s.level = winner, level
    if winner >= 0:
        say(s, f"{why}: {side_name(s, winner)} wins a {level} victory.")
    else:
        say(s, f"{why}: the game is a draw.")
    s.terminal = True
    s.stack.clear()


@effect()
def check_automatic_victory(s: State) -> None:
    """End the game if a victory checked at the end of each turn holds (5 D)."""
    for v in s.game.rules.victory:
        if v.check == "end_of_turn" and _applies(s, v) and v.condition(s, {}):
            end_game(s, v.winner, v.level, v.title)
            return


@effect()
def determine_victory(s: State) -> None:
    """End the game: the first victory condition that holds names the winner."""
    for v in s.game.rules.victory:
        if _applies(s, v) and v.condition(s, {}):
            end_game(s, v.winner, v.level, v.title)
            return
    end_game(s, -1, "", "No victory condition holds")


@effect(("side", "side"), ("level", "level"))
def win(s: State, side: int, level: str) -> None:
    """End the game at once: `side` wins at `level` (16.3: a demoralized army)."""
    end_game(s, side, level, "The game ends at once")


@effect(("change", "terrain_change"), ("at", "place"), optional=("at",))
def change_terrain(s: State, change: str, at: str = "") -> None:
    """Make a terrain change of the rules (a bridge blown, a ford flooded) — one with
    `one_of` places at the place given (`at: where`): from now on movement, retreats,
    ZOC, line of sight and every map question read it. Made elsewhere already, it moves."""
    rules = s.game.rules
    spec = rules.terrain_changes[change_index(rules, change)]
    places = [label for label, _h, _s in spec.places]
    if places and at not in places:
        raise RulesError(f"{change} is made at one of {', '.join(places)}, not {at or 'nowhere'}")
    if at and not places:
        raise RulesError(f"{change} has no places to choose from; it is made where declared")
    entry = made_entry(change, at)
    before = s.vars[CHANGED_TERRAIN]
    if entry in before:
        return
    kept = {e for e in before if split_entry(e)[0] != change}
    s.vars[CHANGED_TERRAIN] = sorted_entries(rules, kept | {entry})
    say(s, f"{spec.title} at {at}." if at else f"{spec.title} ({_where(s, spec)}).")


@effect(("change", "terrain_change"))
def restore_terrain(s: State, change: str) -> None:
    """Undo a terrain change (a bridge repaired): the map is as printed there again."""
    rules = s.game.rules
    at = place_of(s, change)
    if at is None:
        return
    before = s.vars[CHANGED_TERRAIN]
    s.vars[CHANGED_TERRAIN] = tuple(e for e in before if split_entry(e)[0] != change)
    spec = rules.terrain_changes[change_index(rules, change)]
    say(s, f"{spec.title}: undone at {at}." if at else f"{spec.title}: undone ({_where(s, spec)}).")


def _where(s: State, spec: TerrainChangeSpec) -> str:
    """The hexes and hexsides a terrain change touches, as a player reads them."""
    return ", ".join(
        [hex_label(s, h) for h in spec.hexes]
        + [f"{hex_label(s, a)}/{hex_label(s, b)}" for a, b in spec.hexsides]
    )
