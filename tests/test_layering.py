"""The layering rule: nothing of a particular battle in dsl/, compiler/ or engine/."""

from __future__ import annotations

import re

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


def test_generic_code_names_no_battle():
    words = battle_words()
    assert "red_guard" in words
    assert not named_in_generic_code(words)


def test_a_word_generic_code_names_is_found_as_a_whole_word_only():
    found = named_in_generic_code({"move_units", "units_", "absent_from_every_file"})
    assert "engine/primitives/movement.py: move_units" in found
    assert not [f for f in found if f.endswith((": units_", ": absent_from_every_file"))]


def named_in_generic_code(words: set[str]) -> list[str]:
    """Each "file: word" where generic code names one of `words` (names of the rule
    files, made of word characters only) as a whole word: as a token of its own, so
    the file's tokens are found once rather than one search per word."""
    offenders = []
    for folder in GENERIC:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".lark", ".jinja") or "__pycache__" in path.parts:
                continue
            tokens = set(re.findall(r"\w+", path.read_text(encoding="utf-8").lower()))
            offenders += [f"{path.relative_to(ROOT)}: {w}" for w in sorted(words & tokens)]
    return offenders
