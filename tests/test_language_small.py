"""Small language items: `true`/`false` beside `yes`/`no`, and range membership."""

from __future__ import annotations

from compiler import ir
from compiler.check import compile_ruleset
from engine.queries import in_range
from tests.test_diagnostics import with_extra


def test_range_membership_and_true_false(tmp_path):
    extra = tmp_path / "values.mst"
    extra.write_text(
        "define early = turn in 1..2 and true\n"
        "define late = turn in 2.. and not false\n"
        "define never = turn in ..0 or no\n",
        encoding="utf-8",
    )
    rules, _ = compile_ruleset(with_extra(tmp_path, extra))
    body = {d.name: d.body for d in rules.defines}
    early = body["early"]
    assert isinstance(early, ir.Binary) and early.op == "and"
    assert early.left.right == ir.Const("range", value=(1, 2))  # type: ignore[attr-defined]
    assert early.right == ir.Const("bool", value=True)
    assert body["late"].left.right.value == (2, None)  # type: ignore[attr-defined]
    assert body["never"].left.right.value == (None, 0)  # type: ignore[attr-defined]


def test_open_ranges_at_run_time():
    assert in_range(2, (1, 2)) and not in_range(3, (1, 2))
    assert in_range(9, (2, None)) and not in_range(1, (2, None))
    assert in_range(-5, (None, 0)) and not in_range(1, (None, 0))
