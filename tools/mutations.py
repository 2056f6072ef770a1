"""Random edits of saves and logs, as a careless editor or a hostile user makes them.

The fuzz test (tests/engine/test_fuzz.py) and the long fuzzer (tools/fuzz.py) both
draw edits from here: replace, delete, add or swap a value anywhere in a JSON
document (the replacement often a name taken from elsewhere in the same
document, so that edits look plausible), and cut, duplicate, reorder or
damage the lines and bytes of a log.
"""

from __future__ import annotations

import json
import random
from typing import Any

from engine.play import chained

ODD_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    1,
    7,
    2**31,
    10**30,
    1.5,
    -0.0,
    "",
    "x",
    "0101",
    "1/0",
    "99999999999999999999/3",
    "\udcff",
    [],
    {},
    [[[[[]]]]],
    {"extra": 1},
)


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON document, as a tuple of keys and indices."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, (*prefix, i))
    return out


def _get(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _leaves(doc: Any) -> list[Any]:
    return [v for v in (_get(doc, p) for p in paths(doc)) if not isinstance(v, dict | list)]


def mutate_json(rng: random.Random, doc: Any) -> Any:
    """A copy of `doc` with one random edit."""
    doc = json.loads(json.dumps(doc))
    places = paths(doc)
    path = rng.choice(places[1:] or places)
    if not path:
        return rng.choice(ODD_VALUES)
    parent = _get(doc, path[:-1])
    key = path[-1]
    kind = rng.randrange(6)
    if kind == 0:
        parent[key] = rng.choice(ODD_VALUES)
    elif kind == 1:
        parent[key] = rng.choice(_leaves(doc) or [None])  # a plausible value from elsewhere
    elif kind == 2:
        del parent[key]
    elif kind == 3 and isinstance(parent, dict):
        parent[rng.choice(["extra", "hex", "pc", "step", "bindings", "vars"])] = rng.choice(
            _leaves(doc) or [0]
        )
    elif kind == 3 and isinstance(parent, list):
        parent.insert(key, parent[key])
    elif kind == 4:
        value = parent[key]
        if isinstance(value, int) and not isinstance(value, bool):
            parent[key] = value + rng.choice((-2, -1, 1, 2, 100))
        elif isinstance(value, str):
            parent[key] = value[:-1] if value and rng.random() < 0.5 else value + "x"
        else:
            parent[key] = rng.choice(ODD_VALUES)
    else:
        other = rng.choice(places[1:])
        if other[: len(path)] != path and path[: len(other)] != other:
            other_parent = _get(doc, other[:-1])
            parent[key], other_parent[other[-1]] = other_parent[other[-1]], parent[key]
    return doc


def mutate_text(rng: random.Random, text: bytes) -> bytes:
    """A copy of a file's bytes with one random byte-level edit."""
    kind = rng.randrange(5)
    at = rng.randrange(len(text) + 1)
    if kind == 0:
        return text[:at]  # truncated
    if kind == 1:
        return b"\xef\xbb\xbf" + text
    if kind == 2:
        return text[:at] + rng.choice((b"\x00", b"\xff", b"\n", b"{", b'"', b"\\")) + text[at:]
    if kind == 3 and text:
        i = min(at, len(text) - 1)
        return text[:i] + bytes([text[i] ^ (1 << rng.randrange(8))]) + text[i + 1 :]
    return text[:at] + text[at:] * 2


def mutate_log(rng: random.Random, lines: list[dict[str, Any]]) -> bytes:
    """A log's text after one random edit: of a line's JSON (its running hash
    then often recomputed, so the deeper checks of a replay are reached), of
    the order of lines, or of its bytes."""
    lines = [dict(x) for x in lines]
    kind = rng.randrange(4)
    if kind == 0:
        i = rng.randrange(len(lines))
        edited = mutate_json(rng, lines[i])
        lines[i] = edited
        if rng.random() < 0.7 and all(isinstance(x, dict) for x in lines):
            lines = chained([{k: v for k, v in x.items() if k != "chain"} for x in lines])
    elif kind == 1 and len(lines) > 2:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        choice = rng.randrange(3)
        if choice == 0:
            del lines[i]
        elif choice == 1:
            lines.insert(i, lines[j])
        else:
            lines[i], lines[j] = lines[j], lines[i]
    text = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode(
        "utf-8", "surrogatepass"
    )
    if kind >= 2:
        text = mutate_text(rng, text)
    return text


# ------------------------------------------------------------------ regression seeds
#
# Fixed edits the fuzzers always try, besides the random ones: each is an input
# a fuzzer or a reviewer once found mishandled (issue 30), with the outcome it
# must have now: "refused", or "played" (it loads, plays on, and saves again).


def _deep(levels: int) -> Any:
    inner: Any = 1
    for _ in range(levels):
        inner = [inner]
    return inner


def _without_check(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "check"}


def save_nested_in_a_variable(data: dict[str, Any]) -> str:
    """900 lists deep in `vars.turn` (was a RecursionError, not a SaveError)."""
    return json.dumps({**data, "vars": {**data["vars"], "turn": _deep(900)}})


def save_nested_in_a_binding(data: dict[str, Any]) -> str:
    """900 lists deep in a frame's binding."""
    stack = [dict(f) for f in data["stack"]] or [{"procedure": "game", "bindings": {}}]
    stack[-1]["bindings"] = {**stack[-1]["bindings"], "x": _deep(900)}
    return json.dumps({**data, "stack": stack})


def save_with_a_long_number(data: dict[str, Any]) -> str:
    """A number of 5,000 digits (past Python's limit for reading an int)."""
    text = json.dumps({**data, "move_number": "@"})
    return text.replace('"@"', "9" * 5000)


def save_by_its_step(data: dict[str, Any]) -> str:
    """The outermost frame named by its step alone, as in a hand-written
    position: it resumes at the step's start, under a frame it did not call.
    It loads, and its save loads again (dumps once wrote its pc, refused)."""
    stack = [dict(f) for f in data["stack"]]
    if stack:  # a finished game's save has no frames
        stack[0] = {k: v for k, v in stack[0].items() if k != "pc"}
    return json.dumps({**_without_check(data), "stack": stack})


SAVE_SEEDS = (
    (save_nested_in_a_variable, "refused"),
    (save_nested_in_a_binding, "refused"),
    (save_with_a_long_number, "refused"),
    (save_by_its_step, "played"),
)


def _log_text(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(x) + "\n" for x in lines).encode()


def _rechained(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return chained([{k: v for k, v in x.items() if k != "chain"} for x in lines])


def log_with_a_field_twice(lines: list[dict[str, Any]]) -> bytes:
    """A move line naming its action twice, the first another action: the chain
    covers the parsed line, so a reader keeping the first saw another game."""
    text = _log_text(lines).decode().splitlines(keepends=True)
    n = next(i for i, x in enumerate(lines) if x.get("type") == "move")
    text[n] = text[n].replace('"action": ', '"action": 0, "action": ', 1)
    return "".join(text).encode()


def log_without_its_outcome(lines: list[dict[str, Any]]) -> bytes:
    """An end line stripped of its returns, winner and level, rechained."""
    end = {k: v for k, v in lines[-1].items() if k not in ("returns", "winner", "level")}
    return _log_text(_rechained([*lines[:-1], end]))


def log_of_unknown_bots(lines: list[dict[str, Any]]) -> bytes:
    """A header naming a bot that does not exist, rechained."""
    return _log_text(_rechained([{**lines[0], "bots": ["random", "greedy"]}, *lines[1:]]))


def log_of_too_many_bots(lines: list[dict[str, Any]]) -> bytes:
    """A header naming more players than the game has sides, rechained."""
    bots = [*lines[0].get("bots", []), "random"]
    return _log_text(_rechained([{**lines[0], "bots": bots}, *lines[1:]]))


def log_of_a_huge_seed(lines: list[dict[str, Any]]) -> bytes:
    """A seed of 2**63, which `muster play --seed` now refuses too."""
    return _log_text(_rechained([{**lines[0], "seed": 2**63}, *lines[1:]]))


def log_with_a_top_level_switch(lines: list[dict[str, Any]]) -> bytes:
    """Params that name a rule switch outside `rules` (the engine ignored it)."""
    params = {**lines[0]["params"], "withdrawal": False}
    return _log_text(_rechained([{**lines[0], "params": params}, *lines[1:]]))


LOG_SEEDS = (
    (log_with_a_field_twice, "refused"),
    (log_without_its_outcome, "refused"),
    (log_of_unknown_bots, "refused"),
    (log_of_too_many_bots, "refused"),
    (log_of_a_huge_seed, "refused"),
    (log_with_a_top_level_switch, "refused"),
)
