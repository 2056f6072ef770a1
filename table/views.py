"""What one side's page is sent: that side's observation, and nothing it may not see.

A view starts from `State.observation(side)` (no concealed units, no face-down
choices), keeps only what the page draws, and then goes through `Redactor`,
which holds back what the observation does not yet: the markers in a bag
that holds only the other side's markers (an enemy hand of cards, an enemy
deck), by name and by title, in every string sent (the account says
"Drawn from … : NAME"), and the names of the units the rules conceal from
the viewer (the account says where they set up). A bag's owner sees its
contents; the other side sees how many it holds. The account's lines that
tell a secret (a question answered face down, a secret variable set) are
given as the viewer may read them (`engine.information.account_line`).

A hidden name is replaced with the noun phrase around it ("this Red Jacket
marker", "the 8th Foot"), so the text stays a sentence: "Use a concealed
unit", not "Use this a concealed unit marker".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine import explain
from engine.describe import marker_title, side_name
from engine.information import HIDDEN, account_line
from engine.interpreter import current_node
from engine.save import to_json
from engine.state import State
from engine.terrain_state import CHANGED_TERRAIN, split_entry

FACE_DOWN = "a face-down marker"
CONCEALED = "a concealed unit"


@dataclass(frozen=True, slots=True)
class Markers:
    """Each marker's owning side ("" for both) and title, from the checked rules."""

    side: dict[str, str]
    title: dict[str, str]


def private_bags(s: State, markers: Markers, viewer: int | None) -> list[str]:
    """Bags whose contents the viewer may not see: all their markers are another side's."""
    if viewer is None:
        return []
    mine = s.game.rules.sides[viewer].name
    out = []
    for bag, tokens in s.bags.items():
        owners = {markers.side.get(t, "") for t in (*tokens, *s.game.rules.bags.get(bag, ()))}
        if owners and "" not in owners and mine not in owners:
            out.append(bag)
    return sorted(out)


# Words that open a noun phrase, and nouns that close one, around a hidden
# name: the replacement ("a concealed unit") is a whole noun phrase itself.
DETERMINERS = "the|this|that|these|those|a|an|his|her|its|their|your|each|every"
HEAD_NOUNS = "markers|marker|counters|counter|cards|card|chits|chit|units|unit"


def phrase_pattern(names: Iterable[str]) -> re.Pattern[str]:
    """A pattern of the noun phrases of these names: a determiner before ("this",
    "the"), the name (group 1), a head noun after ("marker", "unit"). The
    longest names first, so that a name inside a longer one is not taken alone."""
    ordered = sorted(names, key=len, reverse=True)
    return re.compile(
        rf"(?:\b(?i:{DETERMINERS})\s+)?\b("
        + "|".join(re.escape(w) for w in ordered)
        + rf")(?!\w)(?:\s+(?:{HEAD_NOUNS})\b)?"
    )


class Redactor:
    """Replaces, in any string, the names and titles of the markers a viewer may not see
    and of the units the rules conceal from the viewer (the account names them)."""

    def __init__(self, s: State, markers: Markers, viewer: int | None) -> None:
        self.words = _hidden_words(s, markers, viewer)
        self.pattern = phrase_pattern(self.words) if self.words else None

    def text(self, value: str) -> str:
        if self.pattern is None:
            return value
        return self.pattern.sub(self._word, value)

    def _word(self, m: re.Match[str]) -> str:
        """The whole noun phrase (its determiner and head noun with the name)
        replaced, capitalised where the sentence starts."""
        word = self.words[m.group(1)]
        return word[0].upper() + word[1:] if m.start() == 0 else word

    def __call__(self, value: Any) -> Any:
        if self.pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k): self(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self(v) for v in value]
        return value


def _hidden_words(s: State, markers: Markers, viewer: int | None) -> dict[str, str]:
    """Each name or title the viewer may not see, with the words that replace it:
    the markers of bags private to another side, and the units concealed."""
    hidden = {t for bag in private_bags(s, markers, viewer) for t in s.bags[bag]}
    words = {w: FACE_DOWN for t in hidden for w in (t, markers.title.get(t, "")) if w}
    units = s.game.rules.units
    concealed = s.concealed_from(viewer) if viewer is not None else []
    words.update({w: CONCEALED for u in concealed for w in (units[u].name, units[u].title)})
    return words


def phase_title(s: State) -> str:
    """The phase under way: the innermost procedure declared as a phase, else the innermost."""
    procs = s.game.rules.procedures
    frames = [f for f in s.stack if not f.prim and f.proc in procs]
    for f in reversed(frames):
        if procs[f.proc].kind == "phase":
            return procs[f.proc].title
    return procs[frames[-1].proc].title if frames else ""


def reason_json(r: explain.Reason | None) -> dict[str, str] | None:
    if r is None:
        return None
    return {"text": r.text, "title": r.title, "cite": r.cite, "provisional": r.provisional}


def decision(s: State, viewer: int | None) -> dict[str, Any] | None:
    """The pending decision, if the viewer is to make it: every legal action in words."""
    if s.is_terminal() or s.is_chance_node():
        return None
    player = s.current_player()
    if viewer is not None and viewer != player:
        return None
    actions = [_action_item(s, a) for a in s.legal_actions()]
    moving = {item["unit"] for item in actions if item["kind"] == "step"}
    moves = {str(u): _move_options(s, u) for u in sorted(moving)}
    node = current_node(s)
    step = explain.offering_step(s)
    return {
        "side": s.game.rules.sides[player].name,
        "prompt": node.prompt,
        "yes_no": node.prompt.endswith("?"),
        "rule": reason_json(step),
        "actions": actions,
        "moves": moves,
    }


def _action_item(s: State, a: int) -> dict[str, Any]:
    """A legal action for the page: its kind and words, and what it names."""
    kind = s.game.actions.kind_of(a)
    item: dict[str, Any] = {"action": a, "kind": kind, "text": s.action_to_string(a)}
    details = _ACTION_DETAILS.get(kind)
    if details is not None:
        item.update(details(s, a))
    return item


def _step_details(s: State, a: int) -> dict[str, Any]:
    board = s.game.rules.board
    u, d = s.game.actions.decode_step(a)
    return {"unit": u, "hex": board.labels[board.neighbors[s.unit_hex[u]][d]]}


def _unit_details(s: State, a: int) -> dict[str, Any]:
    return {"unit": s.game.actions.decode("unit", a)}


def _hex_details(s: State, a: int) -> dict[str, Any]:
    return {"hex": s.game.rules.board.labels[s.game.actions.decode("hex", a)]}


def _designate_details(s: State, a: int) -> dict[str, Any]:
    """The hexes attacking and defending (the ring round the centre, or the centre)."""
    board = s.game.rules.board
    centre, mask, form = s.game.actions.decode_designate(a)
    ring = [board.labels[board.neighbors[centre][i]] for i in range(6) if mask >> i & 1]
    centre_label = board.labels[centre]
    if form == 0:
        return {"attack": ring, "defend": [centre_label]}
    return {"attack": [centre_label], "defend": ring}


def _exit_details(s: State, a: int) -> dict[str, Any]:
    """The unit leaving the map, and the hex it leaves from."""
    u = s.game.actions.decode("exit", a)
    return {"unit": u, "hex": s.game.rules.board.labels[s.unit_hex[u]]}


# What an action of each kind names, beside its words.
_ACTION_DETAILS = {
    "step": _step_details,
    "unit": _unit_details,
    "hex": _hex_details,
    "designate": _designate_details,
    "exit": _exit_details,
}


def _move_options(s: State, u: int) -> list[dict[str, Any]]:
    """Where unit u may move on from here, at what cost of its allowance."""
    board = s.game.rules.board
    return [
        {
            "hex": board.labels[o.hex],
            "action": o.action,
            "cost": o.cost,
            "spent": o.spent,
            "allowance": o.allowance,
        }
        for o in explain.move_options(s, u)
    ]


def roll_json(s: State) -> dict[str, Any] | None:
    preview = explain.roll_preview(s)
    if preview is None:
        return None
    return {
        "table": preview.table,
        "column": preview.column,
        "cite": preview.cite,
        "step": reason_json(preview.step),
        "modifiers": [
            {"label": m.label, "amount": m.amount, "cite": m.cite, "provisional": m.provisional}
            for m in preview.modifiers
        ],
        "total": sum(m.amount for m in preview.modifiers),
    }


def tracks(s: State, seen: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-side numbers as on the printed tracks: victory points, then each side's number
    the rules announce (Army Morale 20 → 19) or a scenario starts at a value (the
    VASSAL module's tracks too); the rules' own bookkeeping stays off the panel."""
    rules = s.game.rules
    started = {variable for sc in rules.scenarios for variable, _index, _value in sc.values}
    out = [{"name": "vp", "title": "Victory Points", "values": seen["vars"]["vp"]}]
    for v in rules.variables:
        if v.scope == "side" and v.type in ("int", "number") and (v.announce or v.name in started):
            out.append({"name": v.name, "title": v.title, "values": seen["vars"][v.name]})
    return out


def bags_json(
    s: State, seen: dict[str, Any], markers: Markers, hidden: list[str]
) -> dict[str, dict[str, Any]]:
    """Each bag by its title, the markers in it the viewer may see by theirs; the rest (a
    bag private to the other side, a deck's face-down cards) only counted."""
    out = {}
    for bag, tokens in seen["bags"].items():
        shown = [] if bag in hidden else [t for t in tokens if t != HIDDEN]
        out[bag] = {
            "title": marker_title(s, bag, "bag"),
            "markers": [markers.title.get(t) or marker_title(s, t) for t in shown],
            "face_down": len(tokens) - len(shown),
        }
    return out


def combat_under_way(s: State) -> int | None:
    """The combat being fought now: the innermost procedure with a binding of type combat."""
    procs = s.game.rules.procedures
    for f in reversed(s.stack):
        if f.prim or f.proc not in procs:
            continue
        for name, kind in procs[f.proc].types.items():
            if kind == "combat" and isinstance(f.b.get(name), int):
                return f.b[name]
    return None


def combats_json(s: State, seen: dict[str, Any]) -> list[dict[str, Any]]:
    """The combats designated, naming only units the viewer may examine; `now` marks the
    one being fought."""
    rules = s.game.rules
    now = combat_under_way(s)

    def title(name: str) -> str:
        if name not in seen["units"]:
            return CONCEALED
        return rules.units[rules.unit_index(name)].title

    return [
        {
            "side": c["side"],
            "attackers": [title(n) for n in c["attackers"]],
            "defenders": [title(n) for n in c["defenders"]],
            "attack_hexes": c["attack_hexes"],
            "defense_hexes": c["defense_hexes"],
            "resolved": c["resolved"],
            "diverted": c["diverted"],
            "now": i == now,
        }
        for i, c in enumerate(seen["combats"])
    ]


def terrain_changes_json(s: State, seen: dict[str, Any]) -> list[dict[str, Any]]:
    """The terrain changes made (a bridge blown), each with its marker and its hexes —
    one made at a chosen place (a pontoon laid) with that place's hexes and hexsides."""
    rules = s.game.rules
    labels = rules.board.labels
    made = dict(split_entry(e) for e in seen["vars"].get(CHANGED_TERRAIN, ()))
    out = []
    for c in rules.terrain_changes:
        if c.name not in made:
            continue
        at = [(h, sides) for place, h, sides in c.places if place == made[c.name]]
        hexes = (*c.hexes, *(h for h, _ in at for h in h))
        hexsides = (*c.hexsides, *(side for _, sides in at for side in sides))
        entry = {
            "name": c.name,
            "title": c.title,
            "marker": c.marker,
            "hexes": [labels[h] for h in hexes],
            "hexsides": [[labels[a], labels[b]] for a, b in hexsides],
        }
        out.append(entry | ({"place": made[c.name]} if made[c.name] else {}))
    return out


def placed_markers_json(s: State, seen: dict[str, Any]) -> list[dict[str, Any]]:
    """The markers the rules put on hexes (`per hex` variables of type marker): each with
    its marker, or none where the viewer may only see that one lies there face down."""
    rules = s.game.rules
    out = []
    for v in rules.variables:
        if v.scope != "hex" or v.type != "marker":
            continue
        owner = rules.sides[v.secret].name if v.secret >= 0 else ""
        for label, value in sorted(seen["vars"].get(v.name, {}).items()):
            if value:
                face_up = value != HIDDEN
                out.append(
                    {
                        "hex": label,
                        "title": v.title,
                        "marker": value if face_up else None,
                        "marker_title": marker_title(s, value) if face_up else None,
                        "side": owner,
                    }
                )
    return out


def _to_move(s: State) -> str:
    """Who is to move: a side's name, "chance", or "over"."""
    if s.is_terminal():
        return "over"
    if s.is_chance_node():
        return "chance"
    return s.game.rules.sides[s.current_player()].name


def view(s: State, markers: Markers, viewer: int | None, account: list[str]) -> dict[str, Any]:
    """Everything the viewer's page draws, from the viewer's observation only."""
    rules = s.game.rules
    # One screen for both sides (a designer's hot seat) sees the whole position.
    seen = s.observation(viewer) if viewer is not None else to_json(s)
    hidden = private_bags(s, markers, viewer)
    turn = s.vars["turn"]
    to_move = _to_move(s)
    out = {
        "move": s.move_number,
        "turn": turn,
        "turn_label": rules.turn_track.get(turn, ("", {}))[0],
        "last_turn": s.game.last_turn,
        "phasing": rules.sides[s.vars["phasing"]].name,
        "phase": phase_title(s),
        "to_move": to_move,
        "to_move_title": side_name(s, s.current_player())
        if to_move not in ("over", "chance")
        else to_move,
        "units": seen["units"],
        "concealed": seen.get("concealed", {}),
        "tracks": tracks(s, seen),
        "bags": bags_json(s, seen, markers, hidden),
        "combats": combats_json(s, seen),
        "terrain_changes": terrain_changes_json(s, seen),
        "placed_markers": placed_markers_json(s, seen),
        "decision": decision(s, viewer),
        "roll": roll_json(s),
        "account": [account_line(line, viewer) for line in account],
        "over": {"winner": seen["winner"], "level": seen["level"]} if s.is_terminal() else None,
    }
    return Redactor(s, markers, viewer)(out)
