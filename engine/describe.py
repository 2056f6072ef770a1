"""Words for the account of a game: names of units, hexes, sides and actions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.instructions import Ask, Choose

if TYPE_CHECKING:
    from engine.state import State

DIRECTION_NAMES = ("N", "NE", "SE", "S", "SW", "NW")


def unit_name(s: State, u: int) -> str:
    return s.game.rules.units[u].title


def unit_names(s: State, units: tuple[int, ...]) -> str:
    return ", ".join(unit_name(s, u) for u in units) or "nobody"


def hex_label(s: State, h: int) -> str:
    return s.game.rules.board.labels[h] if h >= 0 else "off-map"


def marker_title(s: State, name: str, kind: str = "marker") -> str:
    """A marker (a chit, a card), or a bag with `kind` "bag", by its title in the rules;
    any other named value with its underscores read as spaces."""
    source = s.game.rules.sources.get(f"{kind}:{name}")
    return source[0] if source else name.replace("_", " ")


def side_name(s: State, side: int) -> str:
    return s.game.rules.sides[side].title if side >= 0 else "nobody"


def value_text(s: State, typ: str, value: object) -> str:
    """A value of a declared type as a player reads it: yes/no, a unit's name,
    a hex's label, a side's name, "none", a list of them joined, a number."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    one = _NAMERS.get(typ)
    if one is not None and isinstance(value, int):
        return one(s, value) if value >= 0 else "none"
    many = _NAMERS.get(_SINGLE.get(typ, ""))
    if many is not None and isinstance(value, tuple):
        return ", ".join(many(s, v) for v in value) or "none"
    return str(value)


def describe_value(s: State, kind: str, value: int, what: str) -> str:
    """A chosen thing in words: a unit's name, a hex's label, a combat's parties."""
    if kind == "unit":
        return unit_name(s, value)
    if kind == "hex":
        return hex_label(s, value)
    if isinstance(value, str):
        return marker_title(s, value)
    if not isinstance(value, int):
        return str(value)
    if what == "combat" and 0 <= value < len(s.combats):
        c = s.combats[value]
        parties = f"{unit_names(s, c.attackers)} against {unit_names(s, c.defenders)}"
        return f"combat {value + 1} ({parties})"
    return f"{what} {value}"


def action_to_string(s: State, action: int) -> str:
    """A readable name for an action at this state (chance outcomes included)."""
    node = s.current_node()
    if node.outcomes is not None:
        return f"rolls {action}"
    if action == s.game.actions.PASS:
        return "pass"
    return _DESCRIBE_ACTION[s.game.actions.kind_of(action)](s, action)


def _unit_action(s: State, action: int) -> str:
    """A unit picked: by strategic movement, held back from an attack, or plainly."""
    name = unit_name(s, action - s.game.actions.unit0)
    frame = s.stack[-1]
    if frame.prim and frame.proc == "move_units":
        return f"move {name} by strategic movement"
    if frame.prim and frame.proc == "designate_combats":
        return f"hold back {name} from attack {frame.b['open_combat'] + 1}"
    return name


def _hex_action(s: State, action: int) -> str:
    return hex_label(s, action - s.game.actions.hex0)


def _step_action(s: State, action: int) -> str:
    u, d = s.game.actions.decode_step(action)
    a = s.unit_hex[u]
    b = s.game.rules.board.neighbors[a][d] if a >= 0 else -1
    return f"move {unit_name(s, u)} {hex_label(s, a)} → {hex_label(s, b)}"


def _designate_action(s: State, action: int) -> str:
    """A combat designated (attack a hex from the ring round it, or the ring
    from it), or the Diversion placed (no ring)."""
    centre, mask, form = s.game.actions.decode_designate(action)
    ring = [s.game.rules.board.neighbors[centre][i] for i in range(6) if mask >> i & 1]
    ring_text = ", ".join(hex_label(s, h) for h in ring)
    if not ring:
        return f"place the Diversion on {hex_label(s, centre)}"
    if form == 0:
        return f"attack {hex_label(s, centre)} from {ring_text}"
    return f"attack {ring_text} from {hex_label(s, centre)}"


def _option_action(s: State, action: int) -> str:
    """An answer to a yes/no question (the rules' `ask`, or a primitive's question
    ending in "?"), or an option of a procedure's choice, named by what it chooses."""
    i = s.game.actions.option_index(action)
    frame = s.stack[-1]
    instr = None if frame.prim else s.game.rules.procedures[frame.proc].code[frame.pc]
    if isinstance(instr, Ask):
        return f"{question_of(instr.question(s, frame.b))} {'yes' if i == 1 else 'no'}"
    prompt = s.current_node().prompt
    if prompt.endswith("?"):
        return f"{prompt} {'yes' if i == 1 else 'no'}"
    if isinstance(instr, Choose):
        options = tuple(instr.options(s, frame.b))
        value = options[i] if i < len(options) else i
        return f"choose {describe_value(s, instr.kind, value, instr.var)}"
    if frame.prim and frame.proc == "move_units" and frame.b.get("between_moves"):
        return s.game.rules.procedures[frame.b["between_moves"]].title
    return f"option {i}"


def automatic_choices(s: State) -> list[str]:
    """The choices made without asking since the last action, in words:
    "Close Combat Phase: choose the next combat: combat 1 (…)"."""
    return [
        f"{s.game.rules.procedures[proc].title}: {instr.prompt}: "
        f"{describe_value(s, instr.kind, value, instr.var)}"
        for proc, instr, value in s.automatic
    ]


def question_of(text: str) -> str:
    """The question of an `ask`'s text, without what it adds after the question
    mark ("Place the marker on this unit? It rallies without a die roll." asks
    the first sentence)."""
    head, mark, _ = text.partition("?")
    return head + mark if mark else text


# An action in words, by the segment of the action space it falls in.
def _exit_action(s: State, action: int) -> str:
    """A unit leaving the map by an `exit`, from the hex it stands in."""
    u = s.game.actions.decode("exit", action)
    return f"{unit_name(s, u)} exits the map at {hex_label(s, s.unit_hex[u])}"


_DESCRIBE_ACTION = {
    "unit": _unit_action,
    "hex": _hex_action,
    "step": _step_action,
    "designate": _designate_action,
    "option": _option_action,
    "exit": _exit_action,
}


def describe_state(s: State) -> str:
    rules = s.game.rules
    lines = [f"{rules.title} — turn {s.vars['turn']}, {side_name(s, s.vars['phasing'])} phasing"]
    vp = ", ".join(f"{side.short} {s.vars['vp'][i]}" for i, side in enumerate(rules.sides))
    lines.append(f"VP: {vp}")
    for u, spec in enumerate(rules.units):
        where = hex_label(s, s.unit_hex[u]) if s.unit_hex[u] >= 0 else "—"
        lines.append(f"  {spec.title:<24} {where}")
    return "\n".join(lines)


# The names of a unit, hex or side by its index, for `value_text`.
_NAMERS = {"unit": unit_name, "hex": hex_label, "side": side_name}
_SINGLE = {"units": "unit", "hexes": "hex", "sides": "side"}
