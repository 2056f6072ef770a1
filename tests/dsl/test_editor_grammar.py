"""The TextMate grammar shipped for editors knows the language's words."""

from __future__ import annotations

import json
import re

from compiler.check import KINDS
from tests.conftest import ROOT

GRAMMAR = ROOT / "editors" / "vscode" / "syntaxes" / "muster.tmLanguage.json"


def rules() -> dict:
    return json.loads(GRAMMAR.read_text(encoding="utf-8"))["repository"]


def test_every_declaration_kind_and_keyword_is_highlighted():
    repo = rules()
    declaration = re.compile(repo["declaration"]["match"])
    for kind in KINDS:
        assert declaration.match(f"{kind} some_name"), kind
    lark = (ROOT / "dsl" / "muster.lark").read_text(encoding="utf-8")
    words = set(re.findall(r'"([a-z]+)"', re.search(r"!_keyword:(.*?)\n\n", lark, re.S)[1]))
    highlighted = " ".join(repo[k]["match"] for k in ("keyword", "structure", "operator_word"))
    for word in words:
        assert re.search(rf"\b{word}\b", highlighted), word


def test_the_patterns_match_what_they_should():
    repo = rules()
    cite = re.compile(repo["citation"]["match"])
    m = cite.search('terrain clear "Clear" § series 12.52, 10.6 {')
    assert m and m.group(2) == "series" and m.group(3) == "12.52, 10.6"
    number = re.compile(repo["number"]["match"])
    assert [n.group() for n in number.finditer("turn in 1..2 at 3:1 or 0604")] == [
        "1..2",
        "3:1",
        "0604",
    ]
    assert not number.search("nj_1")
    assert re.compile(repo["comment"]["match"]).search("    move 2   # two MP")


def test_the_extension_names_the_grammar_and_the_server():
    package = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text())
    grammar = package["contributes"]["grammars"][0]
    assert (ROOT / "editors" / "vscode" / grammar["path"]).resolve() == GRAMMAR.resolve()
    assert package["contributes"]["languages"][0]["extensions"] == [".mst"]
    setting = package["contributes"]["configuration"]["properties"]["muster.command"]
    assert setting["default"] == ["muster", "lsp"]
