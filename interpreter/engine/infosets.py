"""Information sets: what one player knows of a game (`information_state`) and worlds drawn
consistently with it (`determinize`).

A player's knowledge is the sequence of their observations (`observe`) along the game, their
own moves, and the public part of the others' moves. The game is re-played from its history
in manual-chance mode (a seeded game's outcomes are recovered from its seed), and after every
move and chance outcome the player's observation is recorded: that is their *trajectory*.

What is public:
  - a move: its name, player, arguments and label, unless its action is declared `secret`;
    then the other players see only {"player", "action" (the name), "secret": true};
  - a chance outcome: shown only when it is *seen*: everything before it is known to the player
    (every earlier chance outcome was shown, no earlier secret move of another player) and no
    other outcome of that chance node would have given the player the same observation (a
    public die). Any other outcome (a card dealt into another's `owner` hand, a shuffle of a
    hidden deck, a `random` bound to a hidden var, and everything after a hidden outcome) shows
    as "hidden": when unsure the rule hides. (What the player did see of it is in their
    observation; `determinize` conditions on every observation along the game.)

`determinize(player, seed)` plays the game again from the start: the player's own moves and
the public moves as they were, every chance outcome and every other player's secret move drawn
at random among those that keep the player's observation exactly as it was after that step
(so the sample is consistent with everything the player has seen, at every step). A dead end
(a choice that later contradicts an observation) restarts the draw; after a bounded number of
restarts the pool-swap of the current state (visibility.determinize) is used. The true hidden
values are never read: a sample depends only on the trajectory and the seed.

Owns: the trajectory of a player, the public form of history entries, re-sampling by replay.
"""
from __future__ import annotations

import collections
import json
import random

from ..errors import RuleRuntimeError
from . import visibility
from .chance import seeded_index
from .values import Action

__all__ = ["information_state", "determinize_by_history", "public_entry", "trajectory"]

MAX_RESTARTS = 4
REFUSED = "refused"  # a public move the drawn world refuses
MAX_REPAIRS = 100  # exchanges of draws per attempt
MAX_EXCHANGES = 300  # pairs of hidden items tried to explain one observation
_MEMO: dict = {}  # (id(ruleset), id(history link), player, state hash) -> (history link, trajectory)
_MEMO_LIMIT = 16


class _Steps(list):
    """A trajectory: the _Step list, and whether drawing a world by replay has failed for it
    (every restart dead-ended), so the fallback is used at once next time."""

    unsampleable = False


class _Step:
    """One entry of the true game seen by a player: `entry` is {"action": json} or
    {"chance": outcome}; `seen` is the observation (JSON text) after it; `shown` says whether a
    chance outcome was seen (filled only for information states)."""

    __slots__ = ("entry", "seen", "secret", "shown", "pool")

    def __init__(self, entry: dict, seen: str, secret: bool, pool: tuple = ()):
        self.entry = entry
        self.seen = seen
        self.secret = secret
        self.shown = None
        self.pool = pool  # the items a chance node drew from (a shuffle's draws count down)


def _view(state, player: int) -> str:
    return json.dumps(state.observe(player), sort_keys=True, default=str)


def _is_secret(ruleset, entry: dict, player: int) -> bool:
    """True when `entry` is another player's move of a secret action."""
    action = entry.get("action")
    if not isinstance(action, dict) or action.get("player") == player:
        return False
    rule = ruleset.actions.get(action.get("action"))
    return bool(rule is not None and getattr(rule, "secret", False))


def _is_hidden_move(ruleset, entry: dict, player: int) -> bool:
    """True when `entry` is another player's move that `player` may not have seen whole: a
    secret action, or an answer to a `choose` (its options are shown to the chooser only)."""
    action = entry.get("action")
    if not isinstance(action, dict) or action.get("player") == player:
        return False
    return action.get("action") == "choose" or _is_secret(ruleset, entry, player)


def trajectory(state, player: int):
    """The list of _Step of `state`'s game as `player` saw it, or None when the state cannot be
    reached again from its history (it was arranged from outside: a scenario, edited vars)."""
    link = state._history
    key = (id(state.rs), id(link), player, state.hash())  # a fresh game's link is None: the hash tells games apart
    cached = _MEMO.get(key)
    if cached is not None and cached[0] is link:
        return cached[1]
    steps = _replay_truth(state, player)
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[key] = (link, steps)
    return steps


def _replay_truth(state, player: int):
    from .state import State  # the state module imports this one

    history = state.history()
    manual = any("chance" in entry for entry in history)
    shadow = [state.d["seed"], 0]  # the seeded RNG as it ran, to recover a seeded game's outcomes
    replay = State.new(state.rs, state.num_players, 0, "manual")
    steps = _Steps()
    forced = [entry for entry in history if "chance" in entry] if manual else None
    moves = [entry for entry in history if "chance" not in entry]
    for entry in moves + [None]:
        while replay.is_chance():
            options = replay.d["chance"]["options"]
            if forced is not None:
                if not forced:
                    return None
                outcome = forced.pop(0)["chance"]
            else:
                outcome = options[seeded_index(shadow, len(options))]
            if not replay.apply_chance(outcome):
                return None
            steps.append(_Step({"chance": outcome}, _view(replay, player), False, tuple(options)))
        if entry is None:
            break
        if not replay.apply(entry["action"]):
            return None
        steps.append(_Step(entry, _view(replay, player), _is_hidden_move(state.rs, entry, player)))
    if not _same_game(replay, state):
        return None
    return steps


def _same_game(replay, state) -> bool:
    keys = ("vars", "stack", "pending", "terminal", "step")
    return all(json.dumps(replay.d[key], sort_keys=True, default=str) == json.dumps(state.d[key], sort_keys=True, default=str)
               for key in keys)


def public_entry(ruleset, entry: dict, player: int, shown: bool = False) -> dict:
    """How a move of the history reads to `player`: whole, or, for another player's secret
    move or answer to a `choose` they did not see (`shown` False), only who made which action."""
    action = entry.get("action")
    if isinstance(action, dict) and not shown and _is_hidden_move(ruleset, entry, player):
        return {"player": action.get("player"), "action": action.get("action"), "secret": True}
    return entry


def information_state(state, player: int) -> dict:
    """Everything `player` knows, as plain data: their observation now, and the history as they
    saw it (moves in their public form, chance outcomes and others' `choose` answers only where
    they saw them)."""
    steps = trajectory(state, player)
    if steps is None:
        history = [public_entry(state.rs, entry, player) if "action" in entry else {"chance": "hidden"}
                   for entry in state.history()]
    else:
        _mark_shown(state, player, steps)
        history = [public_entry(state.rs, step.entry, player, step.shown) if "action" in step.entry
                   else {"chance": step.entry["chance"] if step.shown else "hidden"} for step in steps]
    return {"player": player, "observation": state.observe(player), "history": history}


def _mark_shown(state, player: int, steps) -> None:
    """Decide, once per trajectory, which chance outcomes and which of the others' `choose`
    answers the player saw: those for which nothing before is hidden from them and no other
    outcome (answer) at the same point gives the same observation. Another's secret action is
    never shown."""
    if all(step.shown is not None or ("chance" not in step.entry and not step.secret) for step in steps):
        return
    from .state import State

    replay = State.new(state.rs, state.num_players, 0, "manual")
    known_prefix = True  # everything before this step is known to the player
    for step in steps:
        if "chance" in step.entry:
            if known_prefix:
                others = [outcome for outcome, _ in replay.chance_outcomes() if not _same(outcome, step.entry["chance"])]
                known_prefix = not any(_view(_after(replay, outcome, True), player) == step.seen for outcome in others)
            step.shown = known_prefix
            replay.apply_chance(step.entry["chance"])
        else:
            if step.secret:
                move = step.entry["action"]
                if known_prefix and move.get("action") == "choose" and not _is_secret(state.rs, step.entry, player):
                    others = [action for action in replay.legal_actions()
                              if action.player == move.get("player") and not _same(action.to_json()["args"], move.get("args"))]
                    known_prefix = not any(_view(_after(replay, action, False), player) == step.seen for action in others)
                else:
                    known_prefix = False
                step.shown = known_prefix
            replay.apply(step.entry["action"])


def _after(state, move, chance: bool):
    trial = state.copy()
    _make_move(trial, move, chance)
    return trial


def determinize_by_history(state, player: int, seed: int):
    """A full state consistent with everything `player` has seen (see the module's note), or
    None when the state's history cannot be re-played (the caller then swaps hidden items)."""
    steps = trajectory(state, player)
    if steps is None or steps.unsampleable:
        return None
    chooser = random.Random(seed)
    for _ in range(MAX_RESTARTS):
        sample = _draw_world(state, player, steps, chooser)
        if sample is not None:
            sample.d["rng"] = [f"determinized:{seed}", 0]
            sample.d["seed"] = f"determinized:{seed}"
            sample.touched()
            return sample
    steps.unsampleable = True
    return None


class _Plan:
    """One attempt at a world: the outcome or move chosen at each step (kept across repairs as
    the preferred choice), the state before each step, and the run each chance step belongs
    to: consecutive draws from a pool one smaller each time (one shuffle), or a single draw."""

    def __init__(self, steps):
        self.choices: list = [None] * len(steps)
        self.before: list = [None] * len(steps)
        self.run_of: list = []
        run = -1
        for index, step in enumerate(steps):
            previous = steps[index - 1] if index else None
            if "chance" in step.entry and (previous is None or "chance" not in previous.entry
                                           or len(step.pool) != len(previous.pool) - 1):
                run = index
            self.run_of.append(run if "chance" in step.entry else None)

    def deal_unseen(self, steps, entities, chooser) -> None:
        """A first guess at every draw of a component: in each run of draws (a shuffle), the
        components the player sees from then on keep the places they were drawn to, and the
        ones never seen are dealt anew, at random, to the other places where the run drew a
        component of their type. The guess reads the true draws only where the player later
        saw the item."""
        runs: dict = {}
        for index, run in enumerate(self.run_of):
            outcome = steps[index].entry.get("chance") if run is not None else None
            if isinstance(outcome, str) and outcome in entities:
                runs.setdefault((run, entities[outcome]["type"]), []).append(index)
        for indices in runs.values():
            later = [step.seen for step in steps[indices[0]:]]  # from the run on: what it put in view
            seen = lambda item: any(json.dumps(item) in view for view in later)  # noqa: E731
            unseen_at = [index for index in indices if not seen(steps[index].entry["chance"])]
            unseen = [steps[index].entry["chance"] for index in unseen_at]
            for index in indices:
                self.choices[index] = steps[index].entry["chance"]
            last = steps[indices[-1]]
            left = list(last.pool)
            left.remove(last.entry["chance"])
            if len(left) == 1 and left[0] in entities and not seen(left[0]):
                unseen.append(left[0])  # the item the shuffle left last, never drawn
            unseen.sort()
            chooser.shuffle(unseen)
            for index, item in zip(unseen_at, unseen):
                self.choices[index] = item


def _draw_world(state, player: int, steps, chooser):
    """Play the trajectory again with hidden choices drawn anew. When a later observation
    contradicts what was drawn (a card of a shuffled deck comes into view), the draws that put
    the wrong items there are exchanged for the right ones and the game is played again from
    the first draw changed."""
    from .state import State

    plan = _Plan(steps)
    plan.deal_unseen(steps, state.rs.entities, chooser)
    sample, start = State.new(state.rs, state.num_players, 0, "manual"), 0
    failures: set = set()
    for _ in range(MAX_REPAIRS):
        sample, failed, seen_instead = _play_plan(sample, start, steps, plan, player, chooser)
        if failed is None:
            return sample
        if (failed, seen_instead) in failures:
            return None  # the repairs go round in a circle: draw again from the start
        failures.add((failed, seen_instead))
        if seen_instead is REFUSED:
            start = _repair_refused(plan, failed, sample, steps[failed].entry["action"], player)
        elif seen_instead is None:
            return None
        else:
            differences = _differences(json.loads(seen_instead), json.loads(steps[failed].seen))
            start = _repair_hidden_move(plan, steps, failed, differences)
            if start is None:
                start = _repair(plan, failed, differences)
        if start is None:
            start = _repair_by_exchange(plan, failed, sample, steps[failed], player, chooser)
        if start is None:
            return None
        sample = plan.before[start]
    return None


def _play_plan(sample, start: int, steps, plan: _Plan, player: int, chooser):
    """Play steps[start:] from `sample` (the state before steps[start]), each hidden choice the
    planned one when it still fits, else the first that fits. Returns (state, None, None) when
    every observation was as recorded, else (state, index of the step that failed, the
    observation the failing step gave instead, REFUSED for a public move refused here, or None
    when it cannot tell)."""
    for index in range(start, len(steps)):
        plan.before[index] = sample
        step = steps[index]
        if "chance" not in step.entry and not step.secret:
            if _label_of(sample, step.entry["action"]) != step.entry["action"].get("label"):
                return sample, index, None  # a label that reads what is hidden (a price) tells more
            after = sample.copy()
            if not after.apply(step.entry["action"]):
                return sample, index, REFUSED
            view = _view(after, player)
            if view != step.seen:
                return sample, index, view
            sample = after
            continue
        chance = "chance" in step.entry
        candidates = [plan.choices[index]] if plan.choices[index] is not None else []
        after, chosen = _first_consistent(sample, candidates, player, step.seen, chance)
        if after is None:
            candidates = _candidates(sample, step, plan.choices[index], chooser)
            after, chosen = _first_consistent(sample, candidates[1 if plan.choices[index] is not None else 0:],
                                              player, step.seen, chance)
        if after is None:
            if not candidates:
                return sample, index, None
            plan.choices[index] = candidates[0]
            trial = sample.copy()
            return sample, index, _view(trial, player) if _make_move(trial, candidates[0], chance) else None
        plan.choices[index] = chosen
        sample = after
    return sample, None, None


def _label_of(state, move: dict):
    """The label `move` (a history entry's action) is listed with in `state`, or its own when it
    is not legal there (the apply that follows refuses it)."""
    try:
        wanted = Action.from_json(move)
    except (KeyError, TypeError, AttributeError, ValueError):
        return move.get("label")
    for action in state.legal_actions():
        if action == wanted:
            return action.label
    return move.get("label")


def _candidates(sample, step, planned, chooser) -> list:
    """The outcomes (or moves of the player who made the hidden move) to try at `step`, the
    planned one first, the others in a random order."""
    if "chance" in step.entry:
        others = _weighted_order(sample.chance_outcomes(), chooser)
        key = lambda outcome: json.dumps(outcome, sort_keys=True, default=str)  # noqa: E731
    else:
        mover = step.entry["action"].get("player")
        others = sorted((action for action in sample.legal_actions() if action.player == mover),
                        key=lambda action: action.label)
        chooser.shuffle(others)
        key = lambda action: action.key  # noqa: E731
    if planned is None:
        return others
    planned_key = key(planned)
    rest = [candidate for candidate in others if key(candidate) != planned_key]
    return [planned] + rest if len(rest) < len(others) else others


def _make_move(trial, candidate, chance: bool) -> bool:
    return bool(trial.apply_chance(candidate) if chance else trial.apply(candidate))


def _first_consistent(state, candidates, player: int, seen: str, chance: bool):
    """(the state after the first candidate that leaves `player`'s observation as `seen`, that
    candidate), or (None, None)."""
    for candidate in candidates:
        trial = state.copy()
        if _make_move(trial, candidate, chance) and _view(trial, player) == seen:
            return trial, candidate
    return None, None


def _repair_hidden_move(plan: _Plan, steps, failed: int, differences):
    """When a value now shown was another player's hidden answer (a goal chosen in secret and
    revealed later), answer it as shown: the latest hidden move whose drawn answer holds a
    wrong value is given the answer with the wanted one, if that answer was legal there."""
    for wrong, wanted in differences:
        for index in range(failed - 1, -1, -1):
            chosen = plan.choices[index]
            if not steps[index].secret or chosen is None or wrong not in _scalars(dict(chosen.args), []):
                continue
            for action in plan.before[index].legal_actions():
                if action.player == chosen.player and wanted in _scalars(dict(action.args), []):
                    plan.choices[index] = action
                    return index
            break
    return None


def _repair(plan: _Plan, failed: int, differences):
    """Exchange draws so that where a wrong value was seen (`differences`: [(wrong, wanted)]) the
    wanted one is drawn instead: the wrong value's latest draw (up to the failing step) becomes the wanted
    value and the wanted value's draw in the same run becomes the wrong one (a shuffle stays a
    shuffle; the item a shuffle leaves last is never drawn, so either draw may be missing).
    Returns the first step changed, or None when nothing can be exchanged."""
    assigned: dict = {}  # step -> new choice, all found in the plan as it was
    for wrong, wanted in differences:
        wrong_at = _latest_draw(plan, failed, wrong)
        wanted_at = _latest_draw(plan, failed, wanted)
        if wrong_at is not None and wanted_at is not None and plan.run_of[wrong_at] != plan.run_of[wanted_at]:
            wanted_at = None  # drawn in another shuffle: not this one's to give
        if wrong_at is not None:
            assigned.setdefault(wrong_at, wanted)
        if wanted_at is not None:
            assigned.setdefault(wanted_at, wrong)
    for index, choice in assigned.items():
        plan.choices[index] = choice
    return min(assigned) if assigned else None


def _repair_refused(plan: _Plan, failed: int, sample, move: dict, player: int):
    """A public move that the drawn world refuses used a value its mover held unseen (a card
    played from a hidden hand): find an item in the mover's hidden places whose exchange with
    that value makes the move legal, and exchange their draws."""
    mover = move.get("player")
    declared = sample.rs.vars
    places = [(name, mover) for name, decl in declared.items() if decl.visibility == "owner" and mover != player]
    places += [(name, None) for name, decl in declared.items() if decl.visibility in ("hidden", "count")]
    held: list = []
    for name, seat in places:
        value = sample.vars.get(name)
        _scalars(value[seat] if seat is not None and isinstance(value, list) else value, held)
    for wanted in _scalars(move.get("args"), []):
        for wrong in dict.fromkeys(held):
            if type(wrong) is not type(wanted) or wrong == wanted:
                continue
            if visibility.item_kind(sample.rs.entities, wrong) != visibility.item_kind(sample.rs.entities, wanted):
                continue
            trial = sample.copy()
            _exchange(trial.vars, wrong, wanted)
            trial.touched()
            if _applies(trial, move):
                return _repair(plan, failed, [(wrong, wanted)])
    return None


def _repair_by_exchange(plan: _Plan, failed: int, sample, step, player: int, chooser):
    """A public move whose outcome depends on what is hidden (who may act next, a count): try
    exchanging two items between two places hidden from `player` just before the move, and
    exchange the draws of the first pair that makes the move look as it did."""
    if "chance" in step.entry or step.secret:
        return None
    places: list = []
    for name, index in visibility.hidden_vars(sample.rs, sample.num_players, player):
        value = sample.vars.get(name)
        visibility.collect_lists(value[index] if index is not None and isinstance(value, list) else value, places)
    entities = sample.rs.entities
    pairs = [(first, second) for number, items in enumerate(places) for others in places[number + 1:]
             for first in dict.fromkeys(items) for second in dict.fromkeys(others)
             if first != second and visibility.item_kind(entities, first) == visibility.item_kind(entities, second)]
    pairs.sort(key=repr)
    chooser.shuffle(pairs)
    for first, second in pairs[:MAX_EXCHANGES]:
        trial = sample.copy()
        _exchange(trial.vars, first, second)
        trial.touched()
        if _applies(trial, step.entry["action"]) and _view(trial, player) == step.seen:
            start = _repair(plan, failed, [(first, second)])
            if start is not None:
                return start
    return None


def _applies(trial, move) -> bool:
    """Whether `move` is accepted in `trial` (a world with items exchanged by hand, which may
    break a rule's expectations: then it is not)."""
    try:
        return bool(trial.apply(move))
    except RuleRuntimeError:
        return False


def _scalars(value, out: list) -> list:
    if isinstance(value, dict):
        for item in value.values():
            _scalars(item, out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _scalars(item, out)
    elif isinstance(value, str):
        out.append(value)
    return out


def _exchange(value, first, second) -> None:
    """Swap every `first` and `second` inside the lists and maps of `value` (in place)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in list(items):
        if isinstance(item, (list, dict)):
            _exchange(item, first, second)
        elif type(item) is type(first) and item == first:
            value[key] = second
        elif type(item) is type(second) and item == second:
            value[key] = first


def _latest_draw(plan: _Plan, failed: int, value):
    for index in range(failed, -1, -1):
        if plan.run_of[index] is not None and _same(plan.choices[index], value):
            return index
    return None


def _same(left, right) -> bool:
    return json.dumps(left, sort_keys=True, default=str) == json.dumps(right, sort_keys=True, default=str)


def _differences(have, want) -> list:
    """[(value in `have`, value in `want`)] where two observations differ: place by place where
    both hold a single value, then the values one holds anywhere and the other does not (an
    item drawn into another place than the one seen), paired in order."""
    pairs: list = []
    _differing_places(have, want, pairs)
    extra = collections.Counter(_scalars(have, []))
    extra.subtract(_scalars(want, []))
    surplus = [value for value, count in extra.items() for _ in range(count) if count > 0]
    lacking = [value for value, count in extra.items() for _ in range(-count) if count < 0]
    pairs.extend(zip(surplus, lacking))
    return pairs


def _differing_places(have, want, out: list) -> None:
    if isinstance(have, dict) and isinstance(want, dict):
        for key in have.keys() & want.keys():
            _differing_places(have[key], want[key], out)
    elif isinstance(have, list) and isinstance(want, list):
        if len(have) == len(want):
            for left, right in zip(have, want):
                _differing_places(left, right, out)
    elif have != want and not isinstance(have, (list, dict)) and not isinstance(want, (list, dict)):
        out.append((have, want))


def _weighted_order(outcomes: list, chooser) -> list:
    """The outcomes in a random order, each earlier with a chance in proportion to its
    probability (weighted sampling without replacement)."""
    keyed = [(chooser.random() ** (1.0 / probability), index) for index, (_, probability) in enumerate(outcomes)]
    keyed.sort(reverse=True)
    return [outcomes[index][0] for _, index in keyed]
