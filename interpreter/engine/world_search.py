"""A search for a world consistent with everything one player saw, for when the repairs of
`worlds.draw_world` give up: the outcome of a public step depends on hidden values decided
many steps before it (a vote decided by a hidden goal dealt at set-up, a count that shows only
after a hidden choice and the one after it).

The search climbs: a plan (a choice at every hidden step, dealt at random as in `draw_world`)
is played until the first step whose observation is not as recorded; then changes to the plan
are tried one by one, each played again from the first step it changes, and the first change
that gets past the failing step (the first failure comes later, or nowhere) is kept. The
changes, in this order:

  1. another answer to one of the latest hidden moves or chance outcomes before the failing
     step (the latest first; each one's answers in a seeded random order) — the choice that
     shows only in the step after it;
  2. an exchange of two items the player never saw, drawn in the same shuffle (or one of them
     the item the shuffle left undrawn), among the pairs that explain the failing step: with
     the two exchanged in the state just before it, some hidden answer (or outcome) of that
     step looks as recorded. Trying the exchange in the state before the step finds which
     hidden values the step depends on without following how the rules read them.

A plan no change gets past is dealt anew (a seeded restart). The work is bounded by a number
of steps played and pairs tried (SEARCH_STEPS per step of the trajectory); then the caller
falls back.

Which world is found depends on the trajectory and the seed only. The worlds are consistent
with every observation, but their distribution is not the posterior given the observations:
the first consistent world along a seeded path is kept (worlds that need many changes are
found less often than their weight).

Owns: the climbing search, its changes and its budget.
"""
from __future__ import annotations

import random

from ..errors import RuleRuntimeError
from .world_values import exchange
from .worlds import Plan, Tried, branches, make_move, play_plan, seen_as

__all__ = ["search_world"]

SEARCH_STEPS = 100  # the budget: steps played again (and pairs tried), per step of the trajectory
ANSWER_WINDOW = 8  # hidden steps before the failing one whose other answers are tried


class _Budget:
    """The steps still to be played; `spend` takes from it."""

    def __init__(self, steps: int):
        self.left = steps

    def spend(self, steps: int) -> None:
        self.left -= max(1, steps)


def search_world(state, player: int, steps, seed):
    """A manual-chance world consistent with every step of `steps` (the player's trajectory
    of `state`'s game), or None when the budget ran out."""
    budget = _Budget(SEARCH_STEPS * max(1, len(steps)))
    restart = 0
    while budget.left > 0:
        world = _climb(state, player, steps, random.Random(f"{seed}/search/{restart}"), budget)
        if world is not None:
            return world
        restart += 1
    return None


def _climb(state, player: int, steps, chooser, budget: _Budget):
    """One plan, dealt at random, changed until it plays every step as recorded: the world,
    or None when no change gets past a failing step (or the budget ran out)."""
    from .state import State

    plan = Plan(steps)
    plan.deal_unseen(steps, state.rs.entities, chooser)
    tried = Tried()
    sample, failed, _ = play_plan(State.new(state.rs, state.num_players, 0, "manual"), 0, steps, plan, player, chooser, tried)
    budget.spend(len(steps) if failed is None else failed)
    while failed is not None:
        for change in _changes(plan, steps, failed, player, chooser, budget):
            if budget.left <= 0:
                return None
            trial = plan.copy()
            _apply_change(trial, change)
            start = min(change)
            result, trial_failed, _ = play_plan(trial.state_before(start, steps), start, steps, trial, player, chooser, tried)
            budget.spend((len(steps) if trial_failed is None else trial_failed) - start)
            if trial_failed is None or trial_failed > failed:
                plan, sample, failed = trial, result, trial_failed
                break
        else:
            return None
    return sample


def _apply_change(plan: Plan, change: dict) -> None:
    for index, choice in change.items():
        plan.choices[index] = choice


def _changes(plan: Plan, steps, failed: int, player: int, chooser, budget: _Budget):
    """The changes to try at a step that failed ({step index: new choice}), in order: other
    answers to the latest hidden steps, then exchanges of unseen items that explain the step."""
    yield from _other_answers(plan, steps, failed, chooser)
    yield from _explaining_exchanges(plan, steps, failed, player, chooser, budget)


def _other_answers(plan: Plan, steps, failed: int, chooser):
    """{index: another answer} for the ANSWER_WINDOW latest hidden steps before `failed` (a
    chance outcome not drawn in a shuffle, or another player's hidden move)."""
    tried = 0
    for index in range(failed - 1, -1, -1):
        if tried >= ANSWER_WINDOW:
            return
        step, chosen = steps[index], plan.choices[index]
        if chosen is None or not (step.secret or ("chance" in step.entry and not _drawn_in_shuffle(plan, index))):
            continue
        tried += 1
        for other in _alternatives(plan.state_before(index, steps), step, chosen, chooser):
            yield {index: other}


def _drawn_in_shuffle(plan: Plan, index: int) -> bool:
    """Whether the chance step at `index` is one draw of several in a shuffle (its run of
    draws holds a neighbour): its other outcomes are tried as exchanges, not one by one."""
    run = plan.run_of[index]
    return any(0 <= other < len(plan.run_of) and plan.run_of[other] == run for other in (index - 1, index + 1))


def _alternatives(before, step, chosen, chooser) -> list:
    """The other outcomes (or the mover's other legal moves) at a step, in a seeded order."""
    if "chance" in step.entry:
        others = [outcome for outcome, _ in before.chance_outcomes() if outcome != chosen]
        others.sort(key=repr)
    else:
        mover = step.entry["action"].get("player")
        others = sorted((action for action in before.legal_actions() if action.player == mover and action != chosen),
                        key=lambda action: action.label)
    chooser.shuffle(others)
    return others


def _explaining_exchanges(plan: Plan, steps, failed: int, player: int, chooser, budget: _Budget):
    """{index: item, index: item} exchanging two unseen items of one shuffle (or {index: item}
    giving a draw the item the shuffle left undrawn), for the pairs that, exchanged in the
    state before the failing step, let some answer of that step look as recorded (each pair
    tried costs the budget a step)."""
    before = plan.state_before(failed, steps)
    for first, second, change in _unseen_pairs(plan, chooser):
        if budget.left <= 0:
            return
        budget.spend(1)
        trial = before.copy()
        exchange(trial.vars, first, second)
        trial.touched()
        if _explains(trial, steps[failed], player):
            yield change


def _unseen_pairs(plan: Plan, chooser) -> list:
    """(item, item, change) for every pair of unseen items drawn in the same shuffle, and every
    unseen draw with the item its shuffle left undrawn, in a seeded random order."""
    pairs = []
    for draws, items in plan.unseen_draws:
        drawn = [(index, plan.choices[index]) for index in draws if plan.choices[index] is not None]
        chosen = {repr(item) for _, item in drawn}
        undrawn = [item for item in items if repr(item) not in chosen]
        for number, (index, item) in enumerate(drawn):
            for other_index, other in drawn[number + 1:]:
                pairs.append((item, other, {index: other, other_index: item}))
            for other in undrawn:
                pairs.append((item, other, {index: other}))
    pairs.sort(key=lambda pair: (sorted(pair[2]), repr(pair[0]), repr(pair[1])))
    chooser.shuffle(pairs)
    return pairs


def _explains(trial, step, player: int) -> bool:
    """Whether some outcome of the step (a chance step), some answer of its mover (another's
    hidden move) or its move (a public one) leaves the player's observation as recorded in
    `trial`, a state whose items were exchanged by hand (a rule that then breaks: not)."""
    try:
        for move, chance in branches(trial, step):
            after = trial.copy(trial=True)
            if make_move(after, move, chance) and seen_as(after, player, step):
                return True
    except RuleRuntimeError:
        return False
    return False
