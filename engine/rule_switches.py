"""Rule switches: on or off as a scenario sets them, and which ones players choose.

A battle's `rule` declarations group what a game may play with or without
(docs/language.md, "Rule switches"). Each has a default (advanced rules on;
optional, play-balance and scenario rules off), a scenario turns some off
(`rules_not_used`) and some on (`special_rules`), and the players decide the
rest of the optional, advanced and play-balance rules before they play: the
series lets beginners leave the advanced rules out, and the play-balance
rules are there to be chosen. A rule the scenario sets, a battle's own
special rule and a scenario's rule are not the players' to change.
"""

from __future__ import annotations

from engine.rules import Rules, RuleSwitchSpec, ScenarioSpec

# The flags of the rules players choose for themselves before a game.
PLAYERS_CHOOSE = frozenset({"optional", "advanced", "play_balance"})


def scenario_defaults(rules: Rules, scenario: ScenarioSpec | None) -> dict[str, bool]:
    """Each rule switch as the scenario sets it, else as the rules declare it."""
    defaults = {sw.name: sw.default for sw in rules.switches}
    if scenario is not None:
        defaults.update(dict.fromkeys(scenario.rules_off, False))
        defaults.update(dict.fromkeys(scenario.rules_on, True))
    return defaults


def players_choice(rules: Rules, scenario: ScenarioSpec | None) -> tuple[RuleSwitchSpec, ...]:
    """The rule switches the players choose for a game of `scenario`: the optional,
    advanced and play-balance rules it neither uses nor leaves out by name."""
    fixed = set(scenario.rules_on) | set(scenario.rules_off) if scenario is not None else set()
    return tuple(
        sw
        for sw in rules.switches
        if PLAYERS_CHOOSE.intersection(sw.flags) and sw.name not in fixed
    )
