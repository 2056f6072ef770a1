"""Check a ruleset's declarations and build the IR, as passes run in order.

1. `collect` — every declaration of every file, with the rule switch it sits
   in; overrides put in place, `extend KIND NAME` lines appended; names
   claimed (one namespace: a name means one thing).
2. `header` — the ruleset declaration: source, die, turns, the start.
3. `kinds` — the parts other parts refer to: sides and forces, terrain, the
   map, units, markers, terrain changes, result codes, variables, tables, tracks.
4. `patch` — procedures with `extend PROCEDURE` patches applied.
5. `declare` — what bodies call or draw from: definitions, procedures'
   signatures, modifier lists, bags, victory levels.
6. `bodies` — every expression and statement type-checked.
7. `assemble` — the IR.

`driver` runs them; each reads what the passes before it built.

The passes call one checker per kind of declaration, each in its own module
and each reading a declaration's block against the schema of its kind
(`props`): `forces`, `terrain`, `maps`, `terrain_changes`, `variables`,
`tables`, `tracks`, `counters`, `scenarios`, `bot_weights`. Bodies are typed
by `expressions` and `statements`, in the scopes `contexts` names; `slips`
warns of what is legal but probably a mistake. `tools` holds what the passes
share (the reporter, the symbols, the expression checker).
"""

from compiler.check.bodies import TRIGGER_KEYS
from compiler.check.collect import RULE_FLAGS
from compiler.check.conditions import (
    CONCEAL_KEYS,
    RESTRICTION_KEYS,
    RESTRICTION_KINDS,
    VICTORY_CHECKS,
    VICTORY_KEYS,
)
from compiler.check.declare import BAG_KEYS, VICTORY_LEVEL_KEYS
from compiler.check.driver import check_files, check_ruleset, compile_loaded, compile_ruleset
from compiler.check.exits import EXIT_KEYS
from compiler.check.header import RULESET_KEYS
from compiler.check.kinds import COUNTER_KINDS, RESULT_KEYS
from compiler.check.names import KINDS

__all__ = [
    "BAG_KEYS",
    "CONCEAL_KEYS",
    "COUNTER_KINDS",
    "EXIT_KEYS",
    "KINDS",
    "RESTRICTION_KEYS",
    "RESTRICTION_KINDS",
    "RESULT_KEYS",
    "RULESET_KEYS",
    "RULE_FLAGS",
    "TRIGGER_KEYS",
    "VICTORY_CHECKS",
    "VICTORY_KEYS",
    "VICTORY_LEVEL_KEYS",
    "check_files",
    "check_ruleset",
    "compile_loaded",
    "compile_ruleset",
]
