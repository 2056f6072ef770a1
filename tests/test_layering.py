"""The layering rule: nothing of a particular battle in dsl/, compiler/ or engine/."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

GENERIC = ("dsl", "compiler", "engine")


def battle_words() -> set[str]:
    """Names and hexes the shipped battles declare: none may appear in generic code."""
    words = {"monmouth", "newtown", "miller", "rouge"}
    for path in (ROOT / "rulesets").rglob("*.mst"):
        if path.parent.name == "series":
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^\s*(?:unit|leader|side|place)\s+([a-z_][a-z0-9_]*)", text, re.M):
            if len(m.group(1)) > 3:
                words.add(m.group(1))
    return words


@pytest.mark.slow
def test_generic_code_names_no_battle():
    words = battle_words()
    assert "red_guard" in words
    offenders = []
    for folder in GENERIC:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".lark", ".jinja") or "__pycache__" in path.parts:
                continue
            text = path.read_text(encoding="utf-8").lower()
            for w in words:
                if re.search(rf"\b{re.escape(w)}\b", text):
                    offenders.append(f"{path.relative_to(ROOT)}: {w}")
    assert not offenders, offenders
