"""Legal actions and the reasons for refusing the others.

The actions of the player to act are enumerated parameter by parameter, each requirement
checked as soon as the parameters it reads are bound (so whole branches are pruned); a
parameter's values that do not depend on the parameters before it are computed once per
action; a `fallback` action is offered only when nothing else is. A label that reads the game's
state keeps the state it was listed in and is rendered when first read (State renders the
ones it handed out before it changes: `Action.settle`).

A legal action is listed as a *move*: the tuple `(name, args, label, template, context)` that
`Action.listed` takes (with the player); the `Action` objects are built only when somebody asks
for them (`State.legal_actions`), and `State.legal_action_ids` / `apply_id` use the moves alone.

Owns: `legal_moves` (a pending decision's options or the phase's actions), `actions_for`,
`refusal` (why an action that is not legal is refused).
"""
from __future__ import annotations

from ..errors import RuleRuntimeError
from .declared import answer_off_declared, check_moves, checked_values, parameter_off_declared
from .frames import top_phase
from .values import SCALARS, Outcome, fmt, freeze, not_a, public_refusal, thaw

__all__ = ["legal_moves", "actions_for", "refusal", "MAX_PARAM_COMBINATIONS"]

MAX_PARAM_COMBINATIONS = 20_000


def legal_moves(state) -> list:
    """Every legal move now (all of the one player to act, `state.current_player`)."""
    data = state.d
    if data["terminal"] or data["chance"] is not None:
        return []
    state.rs.budget.reset()
    pending = data["pending"]
    if pending is not None:
        if "players" in pending:  # a decision of several players at once
            from .simultaneous import node_actions

            return node_actions(state, pending)
        labels = pending.get("labels")
        return [("choose", (("value", freeze(option)),), labels[index] if labels else None, None, None)
                for index, option in enumerate(pending["options"])]
    frame = top_phase(data["stack"])
    if frame is not None and frame.get("sim") is not None:  # a simultaneous phase: every seat still to choose
        from .simultaneous import node_actions

        return node_actions(state, frame["sim"])
    if frame is None or frame.get("player") is None:
        return []
    return actions_for(state, state.rs.phases[frame["phase"]], frame["player"], frame)


def actions_for(state, phase, player, frame) -> list:
    """The legal moves of `player` in `phase` (fallbacks only when nothing else is legal); a
    rule error when a parameter's value listed lies off the bounds it declares (declared.py:
    the moves are walked only when some value read lies off them)."""
    rule_actions = state.rs.actions
    game_vars = state.d["vars"]
    found: list = []
    fallbacks: list = []
    turn_round = frame.get("round", 1)
    off: list = []  # the declared parameters with a value read off their bounds (`_values`)
    for action_id in phase.actions:
        action = rule_actions[action_id]
        names = {"player": player, "round": turn_round}
        for check in action.req_levels[0]:
            if not check(game_vars, names):
                break
        else:
            _add_moves(state, action, game_vars, names, fallbacks if action.fallback else found, off)
    moves = found or fallbacks
    return check_moves(state.rs, moves, game_vars, player, turn_round) if off else moves


def _add_moves(state, action, game_vars, names, target, off) -> None:
    """The moves of `action` (its requirements on no parameter hold) added to `target`."""
    if not action.params:
        target.append(_listed(action, (), game_vars, names))
    elif len(action.params) == 1 and not action.req_levels[1] and (not action.label_parts or action.label_static):
        _one_parameter(state, action, game_vars, names, target, off)
    else:
        _enumerate(state, action, game_vars, names, 0, target, [None] * len(action.params), off)


def _listed(action, args, game_vars, names) -> tuple:
    """The move of `action` with `args`: its label rendered now if it reads the state."""
    parts = action.label_parts
    if not parts:
        return (action.id, args, None, None, None)
    if action.label_static:  # reads only the parameters and the player: rendered when read
        return (action.id, args, None, parts, None)
    # reads the state: rendered when read, from the state as it is now (State settles the
    # labels of the actions it handed out before it changes)
    return (action.id, args, None, parts, (game_vars, dict(names)))


def _domain(state, handle, game_vars, names):
    """A parameter's values; each value tried is charged to the step's work bound (so a
    product of large domains with a requirement that rarely holds is bounded too)."""
    domain = handle.fn(game_vars, names)
    if type(domain) is dict:
        domain = list(domain)
    elif domain is None or isinstance(domain, (int, float)):
        raise not_a("a parameter's values must be a list", domain)
    return state.rs.budget.take(domain)


def _values(state, action, level, game_vars, names, off):
    """The values of parameter `level` of `action` (`_domain`), checked against the bounds it
    declares, if any (declared.py `checked_values`: one off them adds the bounds to `off`)."""
    name, handle = action.params[level]
    domain = _domain(state, handle, game_vars, names)
    declared = action.declared.get(name) if action.declared is not None else None
    return domain if declared is None else checked_values(declared, domain, game_vars, names, off)


def _one_parameter(state, action, game_vars, names, target, off) -> None:
    """The common case made fast: one parameter, no requirement on it, no state in the label."""
    name = action.params[0][0]
    parts = action.label_parts or None
    action_id = action.id
    target.extend([(action_id, ((name, value if type(value) in SCALARS else freeze(value)),), None, parts, None)
                   for value in _values(state, action, 0, game_vars, names, off)])


def _enumerate(state, action, game_vars, names, level, target, domains, off, prefix=()) -> None:
    """The moves of `action` with its parameters from `level` on (`prefix`: the (name, value)
    pairs bound before it); `domains[k]` keeps the values of parameter k once computed, when
    they do not read the parameters before it; `off` as `_values`'s."""
    params = action.params
    name = params[level][0]
    checks = action.req_levels[level + 1]
    domain = domains[level]
    if domain is None:
        domain = _values(state, action, level, game_vars, names, off)
        if level and action.fixed_domains[level]:
            domains[level] = domain
    else:
        state.rs.budget.take(domain)  # every value tried is charged, as when it is computed
    last = level == len(params) - 1
    fixed_label = not action.label_parts or action.label_static
    for value in domain:
        names[name] = value
        for check in checks:
            if not check(game_vars, names):
                break
        else:
            args = prefix + ((name, value if type(value) in SCALARS else freeze(value)),)
            if not last:
                _enumerate(state, action, game_vars, names, level + 1, target, domains, off, args)
            elif len(target) >= MAX_PARAM_COMBINATIONS:
                raise RuleRuntimeError(f"action '{action.id}' has more than {MAX_PARAM_COMBINATIONS} legal "
                                       "combinations")
            else:
                target.append((action.id, args, None, action.label_parts or None, None) if fixed_label
                              else _listed(action, args, game_vars, names))
    names.pop(name, None)


def refusal(state, action) -> Outcome:
    """Why `action`, which is not among the legal actions, is refused."""
    data = state.d
    pending = data["pending"]
    if data["chance"] is not None:
        return public_refusal("chance_pending", "a chance outcome must be given first (apply_chance)")
    from .simultaneous import open_node, refusal as simultaneous_refusal, waiting_seats

    node = open_node(state)
    if node is not None:
        refused = simultaneous_refusal(state, node, action)
        if refused is not None:
            return refused
    if pending is not None:
        if action.name != "choose":
            who = pending["player"] if node is None else _seats(waiting_seats(node))
            return public_refusal("decision_pending", f"player {who} must first answer: {pending['prompt']}")
        answer = dict(action.args).get("value")
        seat = None if node is None else action.player
        try:  # (the bounds were read alike when the decision opened)
            off = answer_off_declared(state.rs, data, thaw(answer), seat)
            public = off and answer_off_declared(state.rs, data, thaw(answer), seat, public=True)
        except RuleRuntimeError as error:
            return Outcome(False, "rule_error", str(error), error.shown())
        if off:
            return Outcome(False, "not_an_option", off, public)
        return public_refusal("not_an_option", f"{fmt(answer)} is not one of the options")  # the mover's own answer
    frame = top_phase(data["stack"])
    if frame is None or (frame.get("player") is None and node is None):
        return public_refusal("no_turn", "nobody is to act")
    phase = state.rs.phases[frame["phase"]]
    if node is None and action.player is not None and action.player != frame["player"]:
        return public_refusal("not_your_turn", f"it is player {frame['player']}'s turn, not player {action.player}'s")
    if action.name not in state.rs.actions:
        return public_refusal("unknown_action", f"there is no action '{action.name}'")
    if action.name not in phase.actions:
        return public_refusal("wrong_phase", f"'{action.name}' cannot be taken in phase '{phase.id}'")
    return _parameter_refusal(state, state.rs.actions[action.name], action, frame)


def _seats(seats) -> str:
    return ", ".join(map(str, seats))


def _parameter_refusal(state, rule, action, frame) -> Outcome:
    player = frame["player"] if frame.get("sim") is None else action.player
    names = {"player": player, "round": frame.get("round", 1)}
    game_vars = state.d["vars"]
    given = dict(action.args)
    state.rs.budget.reset()
    try:
        for name, handle in rule.params:
            if name not in given:
                return public_refusal("missing_parameter", f"'{action.name}' needs '{name}'")
            value = thaw(given[name])
            off = parameter_off_declared(rule, name, value, game_vars, names)
            if off is not None:
                return Outcome(False, "bad_parameter", off,
                               parameter_off_declared(rule, name, value, game_vars, names, public=True))
            if value not in list(_domain(state, handle, game_vars, names)):
                return public_refusal("bad_parameter", f"{name}={fmt(given[name])} is not allowed here")
            names[name] = value
        for handle, reason, code in rule.requires:
            if not handle.fn(game_vars, names):
                return public_refusal(code, reason)
    except RuleRuntimeError as error:
        return Outcome(False, "rule_error", str(error), error.shown())
    if rule.fallback:
        return public_refusal("must_act", "another action is possible, so this one is not allowed")
    return public_refusal("illegal", "not a legal action now")
