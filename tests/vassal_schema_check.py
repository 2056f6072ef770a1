"""A validator of buildFile.xml against vassal_schema.json (every class VASSAL 3.7.26 builds).

Checks what VASSAL's Builder would trip on or silently ignore: an element
that is not a known class, an attribute its class does not read, a child
its parent does not take, and piece definitions that do not decode.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.vassal_decode import decode_piece

WINDOWS = ("VASSAL.build.module.PieceWindow", "VASSAL.build.module.ChartWindow")
PIECE_TEXT = {
    "VASSAL.build.widget.PieceSlot",
    "VASSAL.build.widget.CardSlot",
    "VASSAL.build.module.PrototypeDefinition",
}


def load_schema(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def problems(xml: bytes, schema: dict) -> list[str]:
    """Every mismatch between the document and the schema, as readable lines."""
    root = ET.fromstring(xml)
    out: list[str] = []
    if root.tag != "VASSAL.build.GameModule":
        out.append(f"the root is {root.tag}, not VASSAL.build.GameModule")
    _check(root, schema, out, window=None, path=root.tag.split(".")[-1])
    return out


def _check(e: ET.Element, schema: dict, out: list[str], window: str | None, path: str) -> None:
    cls = schema.get(e.tag)
    if cls is None:
        out.append(f"{path}: {e.tag} is not a VASSAL class")
        return
    known = set(cls.get("attributes") or []) | set(cls.get("xml_attributes") or [])
    for a in e.attrib:
        if a not in known:
            out.append(f"{path}: {e.tag} has no attribute {a!r}")
    if e.tag in PIECE_TEXT:
        try:
            decode_piece(e.text or "")
        except AssertionError as err:
            out.append(f"{path}: piece definition does not decode: {err}")
    if e.tag in WINDOWS:
        window = e.tag
    allowed = set(cls.get("allowed_children") or [])
    allowed |= set(cls.get("implicit_children") or []) | set(cls.get("observed_children") or [])
    by_context = cls.get("allowed_children_by_context") or {}
    if window in by_context:
        allowed |= set(by_context[window])
    elements = cls.get("child_elements") or {}
    for child in e:
        where = f"{path}/{child.tag.split('.')[-1]}"
        if child.tag in elements:
            continue
        if child.tag not in schema:
            out.append(f"{where}: {child.tag} is not a VASSAL class")
            continue
        if child.tag not in allowed:
            out.append(f"{where}: {e.tag} does not take a {child.tag}")
            continue
        _check(child, schema, out, window, where)
