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

import json
import random

from .chance import seeded_index

__all__ = ["information_state", "determinize_by_history", "public_entry", "trajectory"]

MAX_RESTARTS = 6
GROUP_BUDGET = 4000  # trial moves to draw the others' choices at one simultaneous node
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

    __slots__ = ("entry", "seen", "secret", "shown")

    def __init__(self, entry: dict, seen: str, secret: bool):
        self.entry = entry
        self.seen = seen
        self.secret = secret
        self.shown = None


def _view(state, player: int) -> str:
    return json.dumps(state.observe(player), sort_keys=True, default=str)


def _is_secret(ruleset, entry: dict, player: int) -> bool:
    """True when `entry` is another player's move of a secret action, or another player's
    choice at a simultaneous node (what it was shows only in what the rules reveal)."""
    action = entry.get("action")
    if not isinstance(action, dict):
        return False
    if entry.get("simultaneous"):
        return action.get("player") != player
    rule = ruleset.actions.get(action.get("action"))
    return bool(rule is not None and getattr(rule, "secret", False) and action.get("player") != player)


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
            steps.append(_Step({"chance": outcome}, _view(replay, player), False))
        if entry is None:
            break
        if not replay.apply(entry["action"]):
            return None
        steps.append(_Step(entry, _view(replay, player), _is_secret(state.rs, entry, player)))
    if not _same_game(replay, state):
        return None
    return steps


def _same_game(replay, state) -> bool:
    keys = ("vars", "stack", "pending", "terminal", "step")
    return all(json.dumps(replay.d[key], sort_keys=True, default=str) == json.dumps(state.d[key], sort_keys=True, default=str)
               for key in keys)


def public_entry(ruleset, entry: dict, player: int) -> dict:
    """How a move of the history reads to `player`: whole, or, for another player's secret
    move, only who made which action."""
    action = entry.get("action")
    if isinstance(action, dict) and _is_secret(ruleset, entry, player):
        if entry.get("simultaneous"):  # not even which action: only that the player chose
            return {"player": action.get("player"), "secret": True, "simultaneous": True}
        return {"player": action.get("player"), "action": action.get("action"), "secret": True}
    return entry


def information_state(state, player: int) -> dict:
    """Everything `player` knows, as plain data: their observation now, and the history as they
    saw it (moves in their public form, chance outcomes only where they saw them)."""
    steps = trajectory(state, player)
    if steps is None:
        history = [public_entry(state.rs, entry, player) if "action" in entry else {"chance": "hidden"}
                   for entry in state.history()]
    else:
        _mark_shown(state, player, steps)
        history = [public_entry(state.rs, step.entry, player) if "action" in step.entry
                   else {"chance": step.entry["chance"] if step.shown else "hidden"} for step in steps]
    return {"player": player, "observation": state.observe(player), "history": history}


def _mark_shown(state, player: int, steps) -> None:
    """Decide, once per trajectory, which chance outcomes the player saw: those for which no
    other outcome of the same node gives the same observation."""
    if all(step.shown is not None or "chance" not in step.entry for step in steps):
        return
    from .state import State

    replay = State.new(state.rs, state.num_players, 0, "manual")
    known_prefix = True  # everything before this step is known to the player
    for step in steps:
        if "chance" in step.entry:
            if known_prefix:
                others = [outcome for outcome, _ in replay.chance_outcomes()
                          if json.dumps(outcome, default=str) != json.dumps(step.entry["chance"], default=str)]
                known_prefix = not any(_view(_after_chance(replay, outcome), player) == step.seen for outcome in others)
            step.shown = known_prefix
            replay.apply_chance(step.entry["chance"])
        else:
            known_prefix = known_prefix and not step.secret
            replay.apply(step.entry["action"])


def _after_chance(state, outcome):
    trial = state.copy()
    trial.apply_chance(outcome)
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


def _draw_world(state, player: int, steps, chooser):
    from .state import State

    sample = State.new(state.rs, state.num_players, 0, "manual")
    index = 0
    while index < len(steps):
        step = steps[index]
        entry = step.entry
        index += 1
        if entry.get("simultaneous"):
            found = _play_group(sample, steps, index - 1, player, chooser, [GROUP_BUDGET])
            if found is None:
                return None
            sample, index = found
            continue
        if "chance" in entry:
            sample = _first_consistent(sample, _weighted_order(sample.chance_outcomes(), chooser),
                                       lambda trial, outcome: trial.apply_chance(outcome), player, step.seen)
        elif step.secret:
            mover = entry["action"].get("player")
            options = sorted(sample.legal_actions(), key=lambda action: action.label)
            chooser.shuffle(options)
            options = [action for action in options if action.player == mover]
            sample = _first_consistent(sample, options, lambda trial, action: trial.apply(action), player, step.seen)
        else:
            if not sample.apply(entry["action"]) or _view(sample, player) != step.seen:
                return None
        if sample is None:
            return None
    return sample


def _play_group(sample, steps, index: int, player: int, chooser, budget: list):
    """The choices made at one simultaneous node, from `steps[index]`: the others' choices are
    drawn together (depth first, in a random order, within `budget` trials) so that what the
    player saw once the node resolved holds. (sample after the node, index after it) or None."""
    from .simultaneous import open_node

    step = steps[index]
    opened = open_node(sample)["opened"]
    if step.secret:
        mover = step.entry["action"].get("player")
        candidates = sorted(sample.legal_actions(mover), key=lambda action: action.label)
        chooser.shuffle(candidates)
    else:
        candidates = [step.entry["action"]]
    for candidate in candidates:
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        trial = sample.copy()
        if not trial.apply(candidate) or _view(trial, player) != step.seen:
            continue
        node = open_node(trial)
        if node is None or node["opened"] != opened or index + 1 == len(steps):
            return trial, index + 1
        found = _play_group(trial, steps, index + 1, player, chooser, budget)
        if found is not None:
            return found
    return None


def _first_consistent(state, candidates, make_move, player: int, seen: str):
    """The state after the first candidate move that leaves `player`'s observation as `seen`."""
    for candidate in candidates:
        trial = state.copy()
        if make_move(trial, candidate) and _view(trial, player) == seen:
            return trial
    return None


def _weighted_order(outcomes: list, chooser) -> list:
    """The outcomes in a random order, each earlier with a chance in proportion to its
    probability (weighted sampling without replacement)."""
    keyed = [(chooser.random() ** (1.0 / probability), index) for index, (_, probability) in enumerate(outcomes)]
    keyed.sort(reverse=True)
    return [outcomes[index][0] for _, index in keyed]
