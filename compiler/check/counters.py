"""Counter looks: what a counter shows and where (`counter_face`).

A counter is drawn as a colour band across the top (its formation's band and
stripe), a body, and slots that hold printed values:

    band                                  (the band across the top)
    top_left                 top_right
    left         centre          right
    bottom                                (spread evenly, left to right)

The series defaults below put the name in the band, the set-up hex or turn
and hex of entry top left (on a replacement counter, the step it shows), the
formation letter top right, the unit-type symbol in the centre (a rifle badge
to its left) and strength, morale and movement along the bottom; leaders
show rank stars in the centre and their close-combat DRM, leadership DRM and
movement along the bottom; a piece (neither combat unit nor leader) shows its
full name in the centre. A ruleset changes them with `counter_face`, which
replaces only what it names:

    counter_face rear_guard_box "Rear guard" § battle II {
        counters unit                 # unit, leader, piece or marker
        types infantry artillery      # only these unit types (default: all)
        box movement when rear_guard  # movement in a white box where set
        right "RG"                    # a literal text
        body "#f3ead2"                # body and text colours
        text "#111111"
    }

A slot lists its fields: `name`, `symbol`, `strength`, `morale`, `movement`,
`setup`, `step` ("3rd step" on a replacement counter), `letter`, any unit
attribute (`rank`), a "text", and the forms `signed(attr)` (+1, 0, -1),
`stars(attr)` (that many stars) and `badge(attr, "R")` (a circled "R" on
units whose attribute is set, white on black or black on white as its value
says). `slot none` empties a slot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from PIL import ImageColor

from compiler import ir
from compiler.check.props import Props, describe, prov_of
from dsl import ast
from dsl.diagnostics import (
    BAD_VALUE,
    UNKNOWN_NAME,
    UNKNOWN_PROPERTY,
    Reporter,
    did_you_mean,
    hint_note,
)

SLOTS = ("band", "top_left", "top_right", "left", "centre", "right", "bottom")
COUNTER_KINDS = ("unit", "leader", "piece", "marker")
VALUES = {
    "unit": {"name", "symbol", "strength", "morale", "movement", "setup", "step", "letter"},
    "leader": {"name", "movement", "setup"},
    "piece": {"name", "title", "movement", "setup"},
    "marker": {"name"},
}
BOXABLE = {"strength", "morale", "movement"}
SYMBOLS = (
    "infantry",
    "light_infantry",
    "militia",
    "irregular",
    "rifle",
    "cavalry",
    "artillery",
    "heavy_artillery",
    "howitzer",
    "none",
)
COLOR_KEYS = ("body", "text")
HEADER = {"counters", "types", "box", *SLOTS, *COLOR_KEYS}


def _f(value: str, style: str = "plain", text: str = "") -> ir.FaceField:
    return ir.FaceField(value, style, text)


SERIES = ir.Prov(provisional="series default look of a counter")
SERIES_FACES = (
    ir.CounterFace(
        "series_unit",
        "Combat unit",
        "unit",
        (),
        {
            "band": (_f("name"),),
            "top_left": (_f("setup"), _f("step")),
            "top_right": (_f("letter"),),
            "left": (_f("rifle", "badge", "R"),),
            "centre": (_f("symbol"),),
            "bottom": (_f("strength"), _f("morale", "signed"), _f("movement")),
        },
        (),
        {},
        SERIES,
    ),
    ir.CounterFace(
        "series_leader",
        "Leader",
        "leader",
        (),
        {
            "band": (_f("name"),),
            "top_left": (_f("setup"),),
            "centre": (_f("rank", "stars"),),
            "bottom": (
                _f("close_combat_drm", "signed"),
                _f("leadership_drm", "signed"),
                _f("movement"),
            ),
        },
        (),
        {},
        SERIES,
    ),
    # A piece has no type symbol and no combat values: its full name fills the
    # centre (the band holds the short one), its movement sits at the bottom.
    ir.CounterFace(
        "series_piece",
        "Piece",
        "piece",
        (),
        {
            "band": (_f("name"),),
            "top_left": (_f("setup"),),
            "centre": (_f("title"),),
            "bottom": (_f("movement"),),
        },
        (),
        {},
        SERIES,
    ),
    ir.CounterFace(
        "series_marker", "Marker", "marker", (), {"centre": (_f("name"),)}, (), {}, SERIES
    ),
)


@dataclass(frozen=True, slots=True)
class Look:
    """The faces of one counter stacked into one: its slots, boxes and colours."""

    slots: dict[str, tuple[ir.FaceField, ...]]
    boxed: dict[str, str]  # value -> the attribute that boxes it
    colors: dict[str, str]


def look_of(rules: ir.Ruleset, kind: str, unit_type: str | None = None) -> Look:
    """Stack the faces for a counter: series default, general faces, then per-type ones."""
    faces = [f for f in (*SERIES_FACES, *rules.counter_faces) if _applies(f, kind, unit_type)]
    faces.sort(key=lambda f: bool(f.types))  # the faces for every type first, in order
    slots: dict[str, tuple[ir.FaceField, ...]] = {}
    boxed: dict[str, str] = {}
    colors: dict[str, str] = {}
    for face in faces:
        slots.update(face.slots)
        boxed.update(dict(face.boxed))
        colors.update(face.colors)
    return Look(slots, boxed, colors)


def _applies(face: ir.CounterFace, kind: str, unit_type: str | None) -> bool:
    """Whether a face is for this kind of counter (and, if it names types, this type)."""
    return face.counters == kind and (not face.types or unit_type in face.types)


# ----------------------------------------------------------------- checking


def check_counter_face(
    d: ast.Entity, r: Reporter, unit_types: set[str], attributes: set[str]
) -> ir.CounterFace:
    """Check a `counter_face`; `attributes` are the unit attributes the ruleset declares."""
    p = Props(d, r, HEADER)
    kind = _check_counters(p, r)
    types = _check_types(p, r, kind, unit_types)
    fields = _FaceFields(r, VALUES[kind] | (attributes if kind != "marker" else set()), kind)
    slots = {slot: fields.slot(line) for slot in SLOTS if (line := p.line(slot)) is not None}
    line = p.line("box")
    boxed = _box(line, r, attributes) if line is not None else ()
    return ir.CounterFace(
        d.ident,
        d.display_title,
        kind,
        types,
        slots,
        boxed,
        _check_colors(p, r),
        prov_of(d.prov),
        d.span,
    )


def _check_counters(p: Props, r: Reporter) -> str:
    """`counters unit|leader|piece|marker`: the kind of counter the face is for."""
    kind = p.name("counters", required=True) or "unit"
    if kind not in COUNTER_KINDS:
        r.error(
            p.line("counters").span,
            BAD_VALUE,
            f"counters is one of {', '.join(COUNTER_KINDS)}, not {kind!r}",
        )
        return "unit"
    return kind


def _check_types(p: Props, r: Reporter, kind: str, unit_types: set[str]) -> tuple[str, ...]:
    """`types infantry artillery`: the unit types whose counters the face is for."""
    types = tuple(v.id for v in p.values("types") if isinstance(v, ast.Name))
    for v in p.values("types"):
        _check_type_name(v, r, unit_types)
    if types and kind != "unit":
        r.error(p.line("types").span, BAD_VALUE, "only unit counters are chosen by type")
    return types


def _check_type_name(v: ast.Expr, r: Reporter, unit_types: set[str]) -> None:
    if isinstance(v, ast.Name) and v.id in unit_types:
        return
    hint = did_you_mean(v.id, unit_types) if isinstance(v, ast.Name) else None
    r.error(
        v.span,
        UNKNOWN_NAME,
        f"no unit type {describe(v)}",
        *hint_note(hint),
    )


def _check_colors(p: Props, r: Reporter) -> dict[str, str]:
    """`body "#f3ead2"`, `text "#111111"`: the colours given, each drawable."""
    colors = {}
    for key in COLOR_KEYS:
        value = p.str(key)
        if value:
            colors[key] = value
            check_color(value, p.line(key).span, r)
    return colors


# The forms a slot's field may take, with how many arguments each has.
FORMS = {"signed": 1, "stars": 1, "badge": 2}


class _FaceFields:
    """Reads the fields of a face's slots: the values a `kind` counter can show."""

    def __init__(self, r: Reporter, known: set[str], kind: str) -> None:
        self.r = r
        self.known = known
        self.kind = kind

    def slot(self, line: ast.Line) -> tuple[ir.FaceField, ...]:
        """A slot's fields in order; `slot none` empties it."""
        vals = line.values[1:]
        if len(vals) == 1 and ast.is_word(vals[0], "none"):
            return ()
        fields = (self.field(v) for v in vals)
        return tuple(f for f in fields if f is not None)

    def field(self, v: ast.Expr) -> ir.FaceField | None:
        """One field, read by its node type: a "text", a value, or a form such as stars(…)."""
        read = self._READERS.get(type(v), _FaceFields._not_a_field)
        return read(self, v)

    def _text(self, v: ast.String) -> ir.FaceField:
        return ir.FaceField("", "text", v.value, v.span)

    def _value(self, v: ast.Name) -> ir.FaceField | None:
        if not self._known(v.id, v.span):
            return None
        return ir.FaceField(v.id, "plain", "", v.span)

    def _form(self, v: ast.Call) -> ir.FaceField | None:
        """`signed(attr)`, `stars(attr)` or `badge(attr, "R")`."""
        if v.func not in FORMS or v.keywords:
            return self._not_a_field(v)
        if not _form_written(v):
            shape = 'badge(attribute, "R")' if v.func == "badge" else f"{v.func}(value)"
            self.r.error(v.span, BAD_VALUE, f"write {shape}")
            return None
        arg = v.args[0]
        assert isinstance(arg, ast.Name)
        if not self._known(arg.id, arg.span):
            return None
        text = v.args[1].value if v.func == "badge" else ""  # type: ignore[union-attr]
        return ir.FaceField(arg.id, v.func, text, v.span)

    def _not_a_field(self, v: ast.Expr) -> None:
        self.r.error(
            v.span,
            BAD_VALUE,
            'a counter shows a value, a "text", signed(…), stars(…) or badge(…), '
            f"not {describe(v)}",
        )

    def _known(self, name: str, span: ir.Span) -> bool:
        if name in self.known:
            return True
        hint = did_you_mean(name, self.known)
        self.r.error(
            span,
            UNKNOWN_NAME,
            f"a {self.kind} counter has no value {name!r}",
            *hint_note(hint),
            f"values: {', '.join(sorted(self.known))}",
        )
        return False

    _READERS: ClassVar[dict[type, Callable[..., ir.FaceField | None]]] = {
        ast.String: _text,
        ast.Name: _value,
        ast.Call: _form,
    }


def _form_written(v: ast.Call) -> bool:
    """Whether a form has its arguments: a value's name, and for a badge its "text"."""
    if len(v.args) != FORMS[v.func] or not isinstance(v.args[0], ast.Name):
        return False
    return v.func != "badge" or isinstance(v.args[1], ast.String)


def _box(line: ast.Line, r: Reporter, attributes: set[str]) -> tuple[tuple[str, str], ...]:
    """`box movement when rear_guard`: the value is boxed on units with that attribute."""
    vals = line.values[1:]
    ok = (
        len(vals) == 1
        and isinstance(vals[0], ast.Name)
        and vals[0].id in BOXABLE
        and isinstance(line.when, ast.Name)
    )
    if not ok:
        r.error(
            line.span,
            BAD_VALUE,
            "write `box VALUE when ATTRIBUTE`",
            f"values that can be boxed: {', '.join(sorted(BOXABLE))}",
        )
        return ()
    attr = line.when.id  # type: ignore[union-attr]
    if attr not in attributes:
        hint = did_you_mean(attr, attributes)
        r.error(
            line.when.span,  # type: ignore[union-attr]
            UNKNOWN_PROPERTY,
            f"no unit has the attribute {attr!r}",
            *hint_note(hint),
        )
        return ()
    return ((vals[0].id, attr),)  # type: ignore[union-attr]


def check_color(value: str, span: ir.Span, r: Reporter) -> None:
    """A colour is "#rrggbb" or a CSS colour name ("tan", "lightblue")."""
    try:
        ImageColor.getrgb(value)
    except ValueError:
        r.error(span, BAD_VALUE, f"{value!r} is not a colour", 'write "#rrggbb" or a CSS name')


def check_looks(rules: ir.Ruleset, r: Reporter) -> None:
    """The colours and symbols that counters are drawn with must be drawable
    (the checker runs it with the counters' text: `print_and_play.mix.check_counters`)."""
    for thing in (*rules.sides, *rules.markers):  # terrain colours are checked with the map
        check_color(thing.color, thing.span, r)
    for f in rules.formations:
        for color in (f.band, f.stripe):
            if color:
                check_color(color, f.span, r)
    for t in rules.unit_types:
        if t.symbol not in SYMBOLS:
            hint = did_you_mean(t.symbol, set(SYMBOLS))
            r.error(
                t.span,
                UNKNOWN_NAME,
                f"unknown unit-type symbol {t.symbol!r}",
                *hint_note(hint),
                f"symbols: {', '.join(SYMBOLS)}",
            )
