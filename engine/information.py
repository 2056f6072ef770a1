"""What one side may see of a position: the rules' hidden information.

The series lets both sides examine every stack (7.4), so a side sees almost
the whole state. The rule files say what it may not see, and this module
takes exactly that out of a saved state:

- a choice the other side made face down and has not revealed (tactics
  chits, series 12.23 step 4), or a question it answered face down (`ask
  secretly`): its binding reads "hidden";
- a variable kept secret (`secret SIDE`, or `secret` for each side's own
  value): each value the side may not read that is not the initial one reads
  "hidden" until a `reveal` names the variable, so the side sees that a
  plan was made or a marker placed face down in a hex, not which;
- a bag the side may not look into (`seen_by` on the bag: a face-down deck,
  the other player's hand): each marker in it, and each marker drawn from it,
  reads "hidden", so the side sees how many there are, not which;
- a unit a `conceal` declaration keeps from the side (exceptions to 7.4):
  left out of the units, counted per hex under "concealed", and its name
  left out wherever else the state mentions it (per-unit variables, combats,
  the bindings of the procedures under way).

A hidden marker or unit named in a variable, a combat or a binding reads
"hidden" as well, so that nothing the side may not see leaks through the
procedure that is handling it.

The account is the same list of lines for both sides; a line that tells a
secret (a face-down answer, a secret variable's change) is a `SecretLine`,
which `account_line` gives each side as it may read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.rules import EACH_SIDE, PUBLIC
from engine.state import REVEALED

if TYPE_CHECKING:
    from engine.rules import VariableSpec
    from engine.state import State

HIDDEN = "hidden"


class SecretLine(str):
    """An account line that tells a secret: its text is what `owner` reads;
    every other side reads `public` (that something was decided, not what)."""

    __slots__ = ("owner", "public")
    owner: int
    public: str

    def __new__(cls, text: str, owner: int, public: str) -> SecretLine:
        line = super().__new__(cls, text)
        line.owner, line.public = owner, public
        return line


def account_line(line: str, player: int | None) -> str:
    """The account line as `player` may read it (None: one screen for every side)."""
    if isinstance(line, SecretLine) and player is not None and player != line.owner:
        return line.public
    return str(line)


def variable_reader(var: VariableSpec, index: int) -> int:
    """The one side that may read a secret variable's value at `index` of its
    row (PUBLIC: every side may)."""
    return index if var.secret == EACH_SIDE else var.secret


def hidden_values(s: State, player: int) -> dict[str, list[int]]:
    """Each secret variable `player` may not read now, with the places of its row
    he may not read (a variable of one value: [0]); those holding the initial
    value are seen (nothing placed there, no plan made yet)."""
    opened = s.vars.get(REVEALED, ())
    out: dict[str, list[int]] = {}
    for var in s.game.rules.variables:
        if var.secret == PUBLIC or var.name in opened:
            continue
        value = s.vars[var.name]
        row = value if var.scope else (value,)
        places = [
            i for i, v in enumerate(row) if variable_reader(var, i) != player and v != var.initial
        ]
        if places:
            out[var.name] = places
    return out


# What a side reads in place of a value it may not read, in a text with values.
UNREAD = "(hidden)"


def guarded_text(s: State, frame: dict[str, Any], parts: tuple[Any, ...]) -> str:
    """A text with values (`say("… {plan} …")`) some of which a side may not read: a
    secret variable it may not read now, or a face-down answer of the other side's in
    this frame. `parts` are literal runs and, for each value, (its text, the secret
    variables it reads, the names it reads a face-down answer may have bound). The one
    side that may read every value reads the text whole; every other side reads it with
    those values hidden. A text nobody is kept from is plain."""
    sides = range(len(s.game.rules.sides))
    hidden = [hidden_values(s, p) for p in sides]
    answers = frame.get("_secret", ())
    barred: list[set[int]] = []
    for part in parts:
        if isinstance(part, str):
            barred.append(set())
            continue
        _text, variables, bindings = part
        barred.append(
            {
                p
                for p in sides
                if any(v in hidden[p] for v in variables)
                or any(name in bindings and chooser != p for name, chooser in answers)
            }
        )
    text = "".join(part if isinstance(part, str) else part[0] for part in parts)
    kept = set().union(*barred)
    if not kept:
        return text
    public = "".join(
        part if isinstance(part, str) else UNREAD if who else part[0]
        for part, who in zip(parts, barred, strict=True)
    )
    readers = [p for p in sides if p not in kept]
    return SecretLine(text, readers[0] if len(readers) == 1 else -1, public)


def bag_seen_by(s: State, bag: str, player: int) -> bool:
    """Whether `player` may look into the bag (a bag the rules leave unsaid is public)."""
    seers = s.game.rules.bag_seen_by.get(bag)
    return seers is None or player in seers


def hidden_markers(s: State, player: int) -> set[str]:
    """The markers `player` may not see: those in (or drawn from) a bag closed to
    him and in no bag he may look into."""
    closed: set[str] = set()
    shown: set[str] = set()
    for name in s.bags:
        tokens = {*s.bags[name], *s.drawn[name]}
        (shown if bag_seen_by(s, name, player) else closed).update(tokens)
    return closed - shown


def hidden_names(s: State, player: int) -> set[str]:
    """Every name `player` may not see: hidden markers and concealed units."""
    units = s.game.rules.units
    return hidden_markers(s, player) | {units[u].name for u in s.concealed_from(player)}


def sees_everything(s: State, player: int) -> bool:
    """Whether `player` may see the whole position: no face-down choice of the
    other side's, no marker or unit kept from him (`observe` then takes
    nothing out of the saved state)."""
    foreign = any(
        chooser != player for frame in s.stack for _, chooser in frame.b.get("_secret", ())
    )
    return not foreign and not hidden_names(s, player) and not hidden_values(s, player)


def observe(s: State, seen: dict[str, Any], player: int) -> dict[str, Any]:
    """`seen` (the state as `engine.save.to_json` writes it) with what `player`
    may not see taken out."""
    _hide_secrets(s, seen, player)
    _hide_values(s, seen, player)
    _hide_bags(s, seen, player)
    _conceal_units(s, seen, player)
    hidden = hidden_names(s, player)
    if hidden:
        for key in ("vars", "combats", "stack"):
            seen[key] = _scrub(seen[key], hidden)
    return seen


def _hide_secrets(s: State, seen: dict[str, Any], player: int) -> None:
    """The other side's face-down choices not yet revealed read "hidden"."""
    for frame, data in zip(s.stack, seen["stack"], strict=True):
        for var, chooser in frame.b.get("_secret", ()):
            if chooser != player:
                data["bindings"][var] = HIDDEN


def _hide_values(s: State, seen: dict[str, Any], player: int) -> None:
    """The secret variables' values the player may not read read "hidden"."""
    for name, places in hidden_values(s, player).items():
        saved = seen["vars"][name]
        if not isinstance(saved, dict):
            seen["vars"][name] = HIDDEN
            continue
        keys = list(saved)
        for i in places:
            saved[keys[i]] = HIDDEN


def _hide_bags(s: State, seen: dict[str, Any], player: int) -> None:
    """Each marker in (or drawn from) a bag closed to the player reads "hidden"."""
    for key in ("bags", "drawn"):
        for name, tokens in seen[key].items():
            if not bag_seen_by(s, name, player):
                seen[key][name] = [HIDDEN] * len(tokens)


def _conceal_units(s: State, seen: dict[str, Any], player: int) -> None:
    """The units concealed from the player left out, and counted per hex."""
    concealed: dict[str, int] = {}
    units = s.game.rules.units
    for u in s.concealed_from(player):
        unit = seen["units"].pop(units[u].name)
        concealed[unit["hex"]] = concealed.get(unit["hex"], 0) + 1
    if concealed:
        seen["concealed"] = dict(sorted(concealed.items()))


def _scrub(value: Any, hidden: set[str]) -> Any:
    """`value` with each hidden name read "hidden", and left out as a key (a
    per-unit variable of a concealed unit)."""
    if isinstance(value, dict):
        return {k: _scrub(v, hidden) for k, v in value.items() if k not in hidden}
    if isinstance(value, list):
        return [_scrub(v, hidden) for v in value]
    if isinstance(value, str) and value in hidden:
        return HIDDEN
    return value
