"""The counter mix: every counter of a ruleset with its front and back, laid out.

Two-step units show their reduced values (and reduced name) on the back;
one-step units, leaders and markers show the back they declare (`back
blank`, a "text", or for markers another marker's face). Markers come as
many times as their `count`. A unit of more than two steps has, as
published games print it, a replacement counter for each further two steps
(`red_grenadiers-step3`: its third step on the front, the fourth or the
unit's declared back behind), marked top left with the step it shows; the
player swaps it in when the reduced side loses a step.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import ir
from compiler.backends.names import named, the
from compiler.backends.print_and_play.face import Face, tint
from compiler.backends.print_and_play.layout import DoesNotFit, Values, lay_out, wrapped
from compiler.check.counters import check_looks, look_of
from dsl.diagnostics import BAD_VALUE, Reporter

BACK_TEXT_BOX = (12, 54, 176, 176)


@dataclass(frozen=True, slots=True)
class Counter:
    """One counter design: `copies` identical counters go on the sheets."""

    name: str  # the unit's or marker's name: file names and VASSAL pieces use it
    kind: str  # "unit", "leader" or "marker"
    side: str  # "" for a marker both sides use
    front: Face
    back: Face
    copies: int


def counter_name(unit: str, step: int) -> str:
    """The counter that shows step `step` (0: full strength): the unit's own for the
    first two steps, then a replacement counter for each further two."""
    first = step - step % 2
    return unit if first == 0 else f"{unit}-step{first + 1}"


def face_names(u: ir.Unit) -> tuple[str, ...]:
    """Each step's face, full strength first, as `<counter>-front` or `-back`; a unit of
    one step and a leader have their front and declared back."""
    sides = ("front", "back")
    return tuple(
        f"{counter_name(u.name, step)}-{sides[step % 2]}"
        for step in range(max(len(u.strengths), 2))
    )


def check_counters(rules: ir.Ruleset, r: Reporter) -> None:
    """Every counter can be drawn: its colours and symbols (`check_looks`), then the
    text it prints fits its slots. The checker runs it, so that what `muster check`
    accepts the build draws."""
    check_looks(rules, r)
    if not r.has_errors():  # (a counter is laid out with its colours)
        counter_mix(rules, r)


def counter_mix(rules: ir.Ruleset, r: Reporter) -> list[Counter]:
    """Every counter, units and leaders first (in declaration order), then markers."""
    mix = [c for u in rules.units for c in _unit(rules, u, r)]
    fronts = {m.name: _marker_front(rules, m, r) for m in rules.markers}
    for m in rules.markers:
        back = _back(m.back, fronts[m.name], r, m.span, fronts)
        mix.append(Counter(m.name, "marker", m.side, fronts[m.name], back, m.count))
    return mix


def unit_values(rules: ir.Ruleset, u: ir.Unit, step: int) -> Values:
    """The values printed on step `step` (0: full strength) of a unit or leader."""
    utype = named(rules.unit_types, u.type)
    values: dict[str, object] = {**(utype.props if utype else {}), **u.props}
    values.update(_names(u, step > 0))
    values["movement"] = u.movement
    if utype is not None:
        values["symbol"] = utype.symbol
    values.update(_step_values(u, step))
    brigade = named(rules.brigades, u.brigade)
    if brigade is not None:
        values["letter"] = brigade.letter
    look = look_of(rules, u.kind, u.type)
    boxed = {value for value, attr in look.boxed.items() if values.get(attr)}
    return Values(values, boxed)


def _names(u: ir.Unit, reduced: bool) -> dict[str, object]:
    """The short name and title; a reduced step's own where it has them."""
    if not reduced:
        return {"name": u.short, "title": u.title}
    return {"name": u.reduced_short or u.short, "title": u.reduced_title or u.title}


def _step_values(u: ir.Unit, step: int) -> dict[str, object]:
    """Strength (with the rifle strength after a slash), morale, and on the full
    strength side only, where the unit sets up."""
    values: dict[str, object] = {}
    if u.strengths:
        sp = str(u.strengths[step])
        if u.rifle_strengths:
            sp += f"/{u.rifle_strengths[step]}"
        values["strength"] = sp
    if u.morales:
        values["morale"] = u.morales[step]
    if step == 0:
        values["setup"] = _setup(u)
    if step >= 2:
        values["step"] = f"{ordinal(step + 1)} step"
    return values


def ordinal(n: int) -> str:
    """3rd, 4th, 11th, 21st: how a replacement counter names its step."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _setup(u: ir.Unit) -> str | None:
    """`0404`, or `T5 1012` for a unit entering on turn 5 (in parentheses if rolled for)."""
    if u.setup:
        return u.setup
    if u.entry is None:
        return None
    turn = f"({u.entry.turn})" if u.entry.variable else f"T{u.entry.turn}"
    if not u.entry.at:
        return turn
    more = "+" if len(u.entry.at) > 1 else ""
    return f"{turn} {u.entry.at[0]}{more}"


def colours(rules: ir.Ruleset, u: ir.Unit) -> tuple[str, str, str, str]:
    """Body, band, stripe and text colours of a unit's or leader's counter."""
    formation = named(rules.formations, u.formation)
    side = the(rules.sides, u.side)
    band = formation.band if formation else side.color
    stripe = formation.stripe if formation else ""
    look = look_of(rules, u.kind, u.type)
    body = look.colors.get("body") or tint(band, 0.8)
    return body, band, stripe, look.colors.get("text", "#000000")


def _unit(rules: ir.Ruleset, u: ir.Unit, r: Reporter) -> list[Counter]:
    """The unit's counter and, past two steps, its replacement counters in step order;
    an odd last step has the unit's declared back behind it."""
    look = look_of(rules, u.kind, u.type)
    body, band, stripe, ink = colours(rules, u)
    blank = Face(body, band, stripe, ())
    faces = []
    for step in range(max(len(u.strengths), 1)):
        try:
            faces.append(lay_out(look, unit_values(rules, u, step), body, band, stripe, ink))
        except DoesNotFit as e:
            _too_long(r, u.span, *e.args)
            faces.append(blank)
    if len(faces) % 2:
        faces.append(_back(u.back, blank, r, u.span, {}, ink))
    return [
        Counter(counter_name(u.name, step), u.kind, u.side, faces[step], faces[step + 1], 1)
        for step in range(0, len(faces), 2)
    ]


def _marker_front(rules: ir.Ruleset, m: ir.Marker, r: Reporter) -> Face:
    look = look_of(rules, "marker")
    side = named(rules.sides, m.side)
    body = look.colors.get("body") or m.color
    ink = look.colors.get("text", "#000000")
    values = Values({"name": m.short}, set())
    try:
        return lay_out(look, values, body, side.color if side else "", "", ink)
    except DoesNotFit as e:
        _too_long(r, m.span, *e.args)
        return Face(body, "", "", ())


def _back(
    back: str,
    blank: Face,
    r: Reporter,
    span: ir.Span,
    markers: dict[str, Face],
    ink: str = "#000000",
) -> Face:
    """The declared back: `blank` (or none), another marker's face, or a text."""
    if back in ("", "blank"):
        return Face(blank.body, blank.band, blank.stripe, ())
    if back in markers:
        return markers[back]
    try:
        items = wrapped(back, BACK_TEXT_BOX, 40, ink)
    except DoesNotFit:
        _too_long(r, span, back, "back")
        items = []
    return Face(blank.body, blank.band, blank.stripe, tuple(items))


FIXES = {
    "name": "give it a shorter `short` name",
    "back": "shorten the text of its `back`",
}


def _too_long(r: Reporter, span: ir.Span, text: str, value: str) -> None:
    fix = FIXES.get(value, f"shorten it, or move `{value}` to a wider slot with `counter_face`")
    r.error(span, BAD_VALUE, f"{text!r} does not fit on a 5/8-inch counter at 6 pt", fix)
