"""Worlds drawn for one player: the game played again along the player's trajectory (see
`infosets`), the player's own and the public moves as they were, every hidden chance outcome,
every other player's secret move and every other player's `choose` answer drawn anew so that
the player's observation (and each public move's label the player read whole: their own, or
one whose template reads only public values, engine/labels.py) is exactly as recorded after
every step.

A shuffle is first dealt from what the player saw: components seen from the shuffle on keep
their draws, the others are dealt anew among the remaining draws of that shuffle. When a later
observation contradicts a draw (a card comes into view, an opponent plays a card from a
hidden hand, the flow shows who could act), draws are exchanged and the game is played again
from the first one changed; a hidden answer is changed to the one shown. Repairs that go round
in a circle give up, and the caller draws again.

Owns: playing a plan (world_plan.py: a choice per step, the state before each) along the
trajectory, and its repairs.
"""
from __future__ import annotations

import json
from typing import Optional

from ..errors import RuleRuntimeError
from . import visibility
from .labels import label_is_public
from .values import Action, freeze
from .world_plan import Plan, make_move
from .world_values import exchange, observed_differences, same_value, scalars, weighted_order

__all__ = ["draw_world", "continue_world", "Tried", "play_public", "view_text", "seen_as", "make_move", "Plan", "play_plan",
           "branches", "move_under_way"]

REFUSED = "refused"  # a public move the drawn world refuses
MAX_REPAIRS = 100  # exchanges of draws per attempt
MAX_EXCHANGES = 300  # pairs of hidden items tried to explain one observation
MAX_BACKTRACKS = 8  # other answers given to earlier hidden moves per attempt
MAX_TRIED = 1024  # moves kept by a Tried (4 whole Davos games with MCTS kept 408 at most)


def view_text(state, player: int) -> str:
    """The player's observation as canonical JSON text (what a trajectory records)."""
    return json.dumps(state.observe(player), sort_keys=True, default=str)


def seen_as(state, player: int, step) -> bool:
    """Whether `player`'s observation of `state` is the one `step` recorded (its `seen` text):
    compared as data, without building the text, and as text when the data differ (a tuple
    where the record has a list). Equal data are taken as equal (a 1 where the record has
    true would pass: no rule keeps both in one place)."""
    view = step.view
    if view is None:
        view = step.view = json.loads(step.seen)
    observed = state.observe(player)
    return observed == view or json.dumps(observed, sort_keys=True, default=str) == step.seen  # (view_text)


def draw_world(state, player: int, steps, chooser, plan: Optional[Plan] = None):
    """Play the trajectory again with hidden choices drawn anew. When a later observation
    contradicts what was drawn (a card of a shuffled deck comes into view), the draws that put
    the wrong items there are exchanged for the right ones and the game is played again from
    the first draw changed. `plan`: a fresh Plan(steps) to draw with (its `before` then holds
    the states of the world's way there)."""
    from .state import State

    plan = plan or Plan(steps)
    plan.deal_unseen(steps, state.rs.entities, chooser)
    sample, start = State.new(state.rs, state.num_players, 0, "manual"), 0
    failures: set = set()
    backtracks = 0
    tried = Tried()
    for _ in range(MAX_REPAIRS):
        sample, failed, seen_instead = play_plan(sample, start, steps, plan, player, chooser, tried)
        if failed is None:
            return sample
        if (failed, seen_instead, backtracks) in failures:
            return None  # the repairs go round in a circle: draw again from the start
        failures.add((failed, seen_instead, backtracks))
        if seen_instead is REFUSED:
            start = _repair_refused(plan, failed, sample, steps[failed].entry["action"], player)
        elif seen_instead is None:
            return None
        else:
            differences = observed_differences(json.loads(seen_instead), json.loads(steps[failed].seen))
            start = _repair_hidden_move(plan, steps, failed, differences)
            if start is None:
                start = _repair(plan, failed, differences)
        if start is None:
            start = _repair_by_exchange(plan, failed, sample, steps[failed], player, chooser)
        if start is None and backtracks < MAX_BACKTRACKS:
            backtracks += 1
            start = _answer_otherwise(plan, steps, failed, chooser)
        if start is None:
            return None
        sample = plan.state_before(start, steps)
    return None


def continue_world(world, player: int, steps, start: int, chooser, plan: Optional[Plan] = None,
                   tried: Optional["Tried"] = None):
    """Play steps[start:] on `world` (a manual-chance world drawn earlier, consistent with
    steps[:start]) with the new hidden choices drawn as in `draw_world`; the world now (`world`
    itself when nothing happened since: the caller copies it), or None when a new observation
    contradicts it (the caller then draws a world anew). `plan`: as in `draw_world`; `tried`:
    the moves tried so far by the other seeds played on from `world` (see `Tried`)."""
    if start == len(steps):
        return world
    plan = plan or Plan(steps)
    sample, failed, _ = play_plan(world, start, steps, plan, player, chooser, tried)  # (it changes no state it is given)
    return sample if failed is None else None


def move_under_way(steps) -> Optional[int]:
    """The index of the step that began the move still under way at the end of `steps` when
    only answers to its `choose` decisions came after it (no chance outcome, no other move):
    the move a world at a decision inside a move can be made again from. None otherwise."""
    for index in range(len(steps) - 1, -1, -1):
        move = steps[index].entry.get("action")
        if not isinstance(move, dict) or steps[index].entry.get("simultaneous"):
            return None
        if move.get("action") != "choose":
            return index
    return None


def _answer_otherwise(plan: Plan, steps, failed: int, chooser):
    """Nothing explains the failing step: give the latest hidden answer before it another
    legal answer, at random, and play again from there (bounded by MAX_BACKTRACKS)."""
    for index in range(failed - 1, -1, -1):
        chosen = plan.choices[index]
        if not steps[index].secret or chosen is None:
            continue
        others = sorted((action for action in plan.state_before(index, steps).legal_actions()
                         if action.player == chosen.player and action != chosen), key=lambda action: action.label)
        if not others:
            continue
        plan.choices[index] = chooser.choice(others)
        return index
    return None


def play_plan(sample, start: int, steps, plan: Plan, player: int, chooser, tried: Optional["Tried"] = None):
    """Play steps[start:] from `sample` (the state before steps[start]), each hidden choice the
    planned one when it still fits, else the first that fits. Returns (state, None, None) when
    every observation was as recorded, else (state, index of the step that failed, the
    observation the failing step gave instead, REFUSED for a public move refused here, or None
    when it cannot tell). `tried`: what other plays from the same states found (`Tried`)."""
    owned = False  # `sample` is the plan's own state (no entry of plan.before holds it)
    for index in range(start, len(steps)):
        step = steps[index]
        chance = "chance" in step.entry
        planned = plan.choices[index]
        if chance and planned is not None:  # a planned draw: made in place on a state of the plan's own
            plan.before[index] = None if owned else sample  # (a shuffle's draws: one copy, not one each)
            trial = sample if owned else sample.copy(trial=True)
            if make_move(trial, planned, True) and (_seen_as_before(trial, steps, index, start)
                                                    or seen_as(trial, player, step)):
                sample, owned = trial, True
                continue
            if owned:  # the state changed in place: made again
                sample = plan.state_before(index, steps)
        plan.before[index] = sample
        owned = False
        if not chance and not step.secret:
            after, seen_instead = _public_move(sample, step, player) if tried is None else \
                tried.result(sample, index, None, lambda: _public_move(sample, step, player))
            if after is None:
                return sample, index, seen_instead
            sample = after
            continue
        candidates = [planned] if planned is not None and not chance else []  # (a planned draw was tried)
        after, chosen = _first_consistent(sample, candidates, player, step, chance, tried, index)
        if after is None:
            candidates = _candidates(sample, step, planned, chooser)
            after, chosen = _first_consistent(sample, candidates[1 if planned is not None else 0:],
                                              player, step, chance, tried, index)
        if after is None:
            if not candidates:
                return sample, index, None
            plan.choices[index] = candidates[0]
            trial = sample.copy()
            return sample, index, view_text(trial, player) if make_move(trial, candidates[0], chance) else None
        plan.choices[index] = chosen
        sample = after
    return sample, None, None


def _seen_as_before(state, steps, index: int, start: int) -> bool:
    """Whether chance step `index`, just made in `state`, shows the player what they saw
    without comparing it: the step before it was checked here, the draw changed nothing yet
    (`state.draws_under_way()`: the effect that made it waits for its next draw) and the
    recorded observation is the one before it, unchanged too."""
    return index > start and steps[index].seen == steps[index - 1].seen and state.draws_under_way()


def _public_move(sample, step, player: int) -> tuple:
    """(the state after the public move of `step`, None) when the player's observation is as
    recorded after it, else (None, what they saw instead: REFUSED for a move the state refuses,
    None for a label other than recorded, a label that reads what is hidden: a price). Another
    player's label that may read a hidden value is not compared: the player read its plain label."""
    move = step.entry["action"]
    compared = move.get("player") == player or label_is_public(sample.rs, move.get("action"))
    after = sample.copy(trial=True)
    if not after.apply(move):  # (a move listed with another label is refused too, but not seen as REFUSED)
        return None, (None if compared and _label_of(sample, move) != move.get("label") else REFUSED)
    if compared and _label_made(after, sample, move) != move.get("label"):
        return None, None
    if not seen_as(after, player, step):
        return None, view_text(after, player)
    return after, None


def _label_made(after, before, move: dict):
    """The label of the move just made in `after` (as listed in `before`, the state it was made
    from): the listed Action the history took, or for a choice made at once with others (kept
    as data) `_label_of` in `before`."""
    made = after._history[1]  # (the history chain: (earlier, entry), as infosets.move_start reads it)
    return made.label if isinstance(made, Action) else _label_of(before, move)


def play_public(world, player: int, steps, start: int, before: Optional[list] = None) -> tuple:
    """The public moves of steps[start:] up to the first hidden step (a chance outcome, another's
    hidden move) played on `world`, which stays as it is: (the state then, the index of that
    step or len(steps)), or (None, the step) when one gives another observation than recorded.
    The part of `continue_world` that no seed changes. `before` (a list as long as `steps`)
    gets the state before each step played."""
    for index in range(start, len(steps)):
        step = steps[index]
        if "chance" in step.entry or step.secret:
            return world, index
        if before is not None:
            before[index] = world
        world, _ = _public_move(world, step, player)
        if world is None:
            return None, index
    return world, len(steps)


def _label_of(state, move: dict):
    """The label `move` (a history entry's action) is listed with in `state`, or its own when it
    is not legal there (the apply that follows refuses it)."""
    try:
        wanted = Action.from_json(move)
    except (KeyError, TypeError, AttributeError, ValueError):
        return move.get("label")
    for index in state.legal_action_ids():  # by key: no Action is built for the others
        if state.action_key(index) == wanted.key:
            return state.legal_action(index).label
    return move.get("label")


def _candidates(sample, step, planned, chooser) -> list:
    """The outcomes (or moves of the player who made the hidden move) to try at `step`, the
    planned one first, the others in a random order."""
    if "chance" in step.entry:
        others = weighted_order(sample.chance_outcomes(), chooser)
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


def branches(state, step) -> list:
    """[(move or outcome, is a chance outcome)]: the ways `step` may go in `state` as far as the
    player can tell — every outcome of a chance step, every answer of the mover of another's
    hidden move, or the public move as it was."""
    if "chance" in step.entry:
        return [(outcome, True) for outcome, _ in state.chance_outcomes()]
    if step.secret:
        mover = step.entry["action"].get("player")
        return [(action, False) for action in state.legal_actions() if action.player == mover]
    return [(step.entry["action"], False)]


def _first_consistent(state, candidates, player: int, step, chance: bool, tried=None, index=None):
    """(the state after the first candidate that leaves `player`'s observation as `step`
    (step `index`) recorded it, that candidate), or (None, None). `tried`: see `Tried`."""
    for candidate in candidates:
        if tried is None:
            trial = _fitting(state, candidate, player, step, chance)
        else:
            key = freeze(candidate) if chance else (candidate.player, candidate.key)  # (as apply finds them)
            trial = tried.result(state, index, key, lambda: _fitting(state, candidate, player, step, chance))
        if trial is not None:
            return trial, candidate
    return None, None


def _fitting(state, candidate, player: int, step, chance: bool):
    """The state after `candidate` (a copy of `state`) when it shows `player` what `step` recorded, else None."""
    trial = state.copy(trial=True)
    return trial if make_move(trial, candidate, chance) and seen_as(trial, player, step) else None


class Tried:
    """What plays from the same states found, to hand over instead of making a move again: a
    public move's result, or the state a hidden answer or outcome gave (None: it did not fit),
    by the state it was tried on (held here, so its id stays its own), the step and the move.
    A state tried on is never changed, so the same move there gives the same result. Shared by
    the seeds of one `infosets.play_on_each` (they play on one world alike up to their first
    different choice; each still draws its choices with its own seed), and by the plays again
    of one `draw_world` and one climb of the world search (a repair or a change plays again from
    a state kept on the way, often with a move tried there before). At most MAX_TRIED kept: then
    the oldest half goes (a long search would otherwise keep every state it tried)."""

    def __init__(self):
        self._kept: dict = {}  # (id(state), step index, move key) -> (state, result)

    def result(self, state, index: int, key, play):
        """The result of `play()` for this move at step `index` from `state`, played once."""
        kept = self._kept
        entry = kept.get((id(state), index, key))
        if entry is None or entry[0] is not state:
            if len(kept) >= MAX_TRIED:
                for old in list(kept)[:MAX_TRIED // 2]:
                    del kept[old]
            entry = kept[(id(state), index, key)] = (state, play())
        return entry[1]


def _repair_hidden_move(plan: Plan, steps, failed: int, differences):
    """When a value now shown was another player's hidden answer (a goal chosen in secret and
    revealed later), answer it as shown: the latest hidden move whose drawn answer holds a
    wrong value is given the answer with the wanted one, if that answer was legal there."""
    for wrong, wanted in differences:
        for index in range(failed - 1, -1, -1):
            chosen = plan.choices[index]
            if not steps[index].secret or chosen is None or wrong not in scalars(dict(chosen.args), []):
                continue
            for action in plan.state_before(index, steps).legal_actions():
                if action.player == chosen.player and wanted in scalars(dict(action.args), []):
                    plan.choices[index] = action
                    return index
            break
    return None


def _repair(plan: Plan, failed: int, differences):
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


def _repair_refused(plan: Plan, failed: int, sample, move: dict, player: int):
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
        scalars(value[seat] if seat is not None and isinstance(value, list) else value, held)
    for wanted in scalars(move.get("args"), []):
        for wrong in dict.fromkeys(held):
            if type(wrong) is not type(wanted) or wrong == wanted:
                continue
            if visibility.item_kind(sample.rs.entities, wrong) != visibility.item_kind(sample.rs.entities, wanted):
                continue
            trial = sample.copy(trial=True)
            exchange(trial.vars, wrong, wanted)
            trial.touched()
            if _applies(trial, move):
                return _repair(plan, failed, [(wrong, wanted)])
    return None


def _repair_by_exchange(plan: Plan, failed: int, sample, step, player: int, chooser):
    """A public move whose outcome depends on what is hidden (who may act next, a count): try
    exchanging two items between two places hidden from `player` just before the move, and
    exchange the draws of the first pair that makes the move look as it did."""
    if "chance" in step.entry:
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
        trial = sample.copy(trial=True)
        exchange(trial.vars, first, second)
        trial.touched()
        if _looks_as_seen(trial, step, player):
            start = _repair(plan, failed, [(first, second)])
            if start is not None:
                return start
    return None


def _looks_as_seen(trial, step, player: int) -> bool:
    """Whether the step's move (for another's hidden move: any answer of theirs) leaves the
    player's observation as recorded in `trial`."""
    if not step.secret:
        return _applies(trial, step.entry["action"]) and seen_as(trial, player, step)
    try:
        answers = [action for action in trial.legal_actions() if action.player == step.entry["action"].get("player")]
    except RuleRuntimeError:
        return False
    for action in answers:
        after = trial.copy(trial=True)
        if _applies(after, action) and seen_as(after, player, step):
            return True
    return False


def _applies(trial, move) -> bool:
    """Whether `move` is accepted in `trial` (a world with items exchanged by hand, which may
    break a rule's expectations: then it is not)."""
    try:
        return bool(trial.apply(move))
    except RuleRuntimeError:
        return False


def _latest_draw(plan: Plan, failed: int, value):
    for index in range(failed, -1, -1):
        if plan.run_of[index] is not None and same_value(plan.choices[index], value):
            return index
    return None
