"""docs/reference.md is generated from the checker's tables and must be current."""

from __future__ import annotations

from compiler import check
from compiler.check.contexts import CONTEXTS
from engine import registered
from muster.reference import DECLARATION_KEYS, reference
from tests.conftest import ROOT

REFERENCE = ROOT / "docs" / "reference.md"


def test_reference_is_current():
    assert REFERENCE.read_text(encoding="utf-8") == reference(), (
        "docs/reference.md is stale: run `python -m muster.reference > docs/reference.md`"
    )


def test_reference_covers_every_kind_call_context_and_code():
    text = reference()
    assert set(DECLARATION_KEYS) == check.KINDS
    for kind in check.KINDS:
        assert f'id="kind-{kind}"' in text
    for name, sig in registered.load().items():
        assert f'id="{sig.kind}-{name}"' in text
    for name in CONTEXTS:
        assert f'id="context-{name}"' in text
    for code in ("syntax", "duplicate", "unknown-name", "no-morale", "unused", "unreachable"):
        assert f'id="diagnostic-{code}"' in text
    assert "`unused` | warning |" in text and "`syntax` | error |" in text


def test_the_checker_reads_the_keys_the_reference_lists():
    # A key the reference lists for triggers is one the trigger checker accepts.
    assert {"on", "once"} <= DECLARATION_KEYS["trigger"][0]
    assert DECLARATION_KEYS["trigger"][0] is check.TRIGGER_KEYS
    assert DECLARATION_KEYS["restriction"][0] is check.RESTRICTION_KEYS


def test_language_guide_links_into_the_reference():
    guide = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert "(reference.md)" in guide and "reference.md#queries" in guide
