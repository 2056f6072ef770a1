"""Rule switches: on or off as a scenario sets them, and which ones players choose.

A battle's `rule` declarations group what a game may play with or without
(docs/language.md, "Rule switches"). Each has a default (advanced rules on;
optional, play-balance and scenario rules off), a scenario turns some off
(`rules_not_used`) and some on (`special_rules`), and the players decide the
rest of the optional, advanced and play-balance rules before they play: the
series lets beginners leave the advanced rules out, and the play-balance
rules are there to be chosen. A rule the scenario sets, a battle's own
special rule and a scenario's rule are not the players' to change.

A rule `part_of` another is never played without it (an option of the
players' only where the other may be played), and rules that exclude one
another are never played together: choosing one leaves out the others the
scenario would play, and choosing both is refused (`SwitchError`).
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


class SwitchError(ValueError):
    """Rule switches chosen that no game may play with (the message says why)."""


def switches_for(
    rules: Rules, scenario: ScenarioSpec | None, chosen: dict[str, bool]
) -> dict[str, bool]:
    """Each rule switch on or off in a game of `scenario`: as `chosen` says, else as
    the scenario sets it; a rule chosen on leaves out the rules it excludes
    that were not chosen, and a rule not chosen is off while its whole is."""
    on = scenario_defaults(rules, scenario)
    on.update(chosen)
    spec = {sw.name: sw for sw in rules.switches}
    for sw in rules.switches:
        for other in sw.excludes:
            if not (on[sw.name] and on[other]):
                continue
            if chosen.get(sw.name) and chosen.get(other):
                raise SwitchError(
                    f"rules {sw.name!r} ({sw.title}) and {other!r} ({spec[other].title}) "
                    "exclude each other: choose one"
                )
            on[other if chosen.get(sw.name) else sw.name] = False
    for sw in rules.switches:
        whole = _whole_off(spec, on, sw)
        if whole is None:
            continue
        if chosen.get(sw.name):
            raise SwitchError(
                f"rule {sw.name!r} ({sw.title}) is part of {whole!r} "
                f"({spec[whole].title}), which the game leaves out"
            )
        on[sw.name] = False
    return on


def _whole_off(
    spec: dict[str, RuleSwitchSpec], on: dict[str, bool], sw: RuleSwitchSpec
) -> str | None:
    """The rule that switch `sw` is part of, directly or through others, that is off."""
    while sw.part_of:
        if not on[sw.part_of]:
            return sw.part_of
        sw = spec[sw.part_of]
    return None


def players_choice(rules: Rules, scenario: ScenarioSpec | None) -> tuple[RuleSwitchSpec, ...]:
    """The rule switches the players choose for a game of `scenario`: the optional,
    advanced and play-balance rules it neither uses nor leaves out by name, and
    that it may play (the rule each is part of may be, and no rule it
    excludes is played whatever the players choose)."""
    fixed = set(scenario.rules_on) | set(scenario.rules_off) if scenario is not None else set()
    defaults = scenario_defaults(rules, scenario)
    open_ = {
        sw.name
        for sw in rules.switches
        if PLAYERS_CHOOSE.intersection(sw.flags) and sw.name not in fixed
    }
    spec = {sw.name: sw for sw in rules.switches}

    def may_play(sw: RuleSwitchSpec) -> bool:
        whole = spec.get(sw.part_of)
        if whole is not None and not (
            (whole.name in open_ or defaults[whole.name]) and may_play(whole)
        ):
            return False
        return not any(defaults[x] and x not in open_ for x in sw.excludes)

    return tuple(sw for sw in rules.switches if sw.name in open_ and may_play(sw))


def set_by_scenario(
    rules: Rules, scenario: ScenarioSpec | None
) -> tuple[tuple[RuleSwitchSpec, ...], tuple[RuleSwitchSpec, ...]]:
    """The rules a game of `scenario` plays whatever the players choose (the battle's
    special rules and the scenario's, as declared), and those the scenario does not
    use (as it lists them): what the table and the VASSAL module tell the players."""
    defaults = scenario_defaults(rules, scenario)
    chosen = {sw.name for sw in players_choice(rules, scenario)}
    played = tuple(sw for sw in rules.switches if defaults[sw.name] and sw.name not in chosen)
    spec = {sw.name: sw for sw in rules.switches}
    not_used = tuple(spec[n] for n in scenario.rules_off) if scenario is not None else ()
    return played, not_used
