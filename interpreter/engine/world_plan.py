"""The plan of a world drawn for one player (module `worlds`): the outcome or move chosen at each
step of the player's trajectory, the state before each step, the runs of draws (a shuffle's
draws, one smaller pool each time) and the first deal of the draws the player never saw.

Owns: `Plan`, the runs of draws of a trajectory, `make_move` (a move or a chance outcome applied
to a state on the way).
"""
from __future__ import annotations

import json

__all__ = ["Plan", "make_move"]


class Plan:
    """One attempt at a world: the outcome or move chosen at each step (kept across repairs as
    the preferred choice), the state before each step, and the run each chance step belongs
    to: consecutive draws from a pool one smaller each time (one shuffle), or a single draw."""

    def __init__(self, steps):
        self.choices: list = [None] * len(steps)
        self.before: list = [None] * len(steps)
        self.unseen_draws: list = []  # per run and component type: (the draws the player never saw, their items)
        runs = getattr(steps, "runs", None)  # (a trajectory keeps its runs: the same for every plan)
        if runs is None or runs[0] != len(steps):
            runs = (len(steps), _runs_of(steps))
            if hasattr(steps, "runs"):
                steps.runs = runs
        self.run_of: list = runs[1]  # (shared: never changed)

    def state_before(self, index: int, steps):
        """The state before step `index`: `before[index]`, or for a draw that `play_plan` made
        in place (its entry None), the draws since the last state kept made again on a copy
        of it (then kept); None when no state before it is known."""
        state = self.before[index]
        if state is not None:
            return state
        known = index - 1
        while known >= 0 and self.before[known] is None:
            known -= 1
        if known < 0:
            return None
        state = self.before[known].copy(trial=True)
        for step_index in range(known, index):
            make_move(state, self.choices[step_index], "chance" in steps[step_index].entry)
        self.before[index] = state
        return state

    def copy(self) -> "Plan":
        """A plan to change without changing this one (the states before the steps are shared)."""
        twin = object.__new__(Plan)
        twin.choices, twin.before = list(self.choices), list(self.before)
        twin.unseen_draws, twin.run_of = self.unseen_draws, self.run_of
        return twin

    def deal_unseen(self, steps, entities, chooser) -> None:
        """A first guess at every draw of a component: in each run of draws (a shuffle), the
        components the player sees from then on keep the places they were drawn to, and the
        ones never seen are dealt anew, at random, to the other places where the run drew a
        component of their type. The guess reads the true draws only where the player later
        saw the item."""
        dealt = getattr(steps, "dealt", None)  # (a trajectory keeps its runs: the same for every world)
        if dealt is None or dealt[0] != len(steps):
            dealt = (len(steps), _unseen_runs(self.run_of, steps, entities))
            if hasattr(steps, "dealt"):
                steps.dealt = dealt
        for indices, unseen_at, unseen in dealt[1]:
            for index in indices:
                self.choices[index] = steps[index].entry["chance"]
            self.unseen_draws.append((unseen_at, unseen))
            unseen = list(unseen)
            chooser.shuffle(unseen)
            for index, item in zip(unseen_at, unseen):
                self.choices[index] = item


def _runs_of(steps) -> list:
    """The run each step belongs to (the index of its first draw), None for a step that is not
    a chance outcome: a run is consecutive draws from a pool one smaller each time (a shuffle)."""
    run_of = []
    run = -1
    for index, step in enumerate(steps):
        previous = steps[index - 1] if index else None
        if "chance" in step.entry and (previous is None or "chance" not in previous.entry
                                       or len(step.pool) != len(previous.pool) - 1):
            run = index
        run_of.append(run if "chance" in step.entry else None)
    return run_of


def _unseen_runs(run_of: list, steps, entities) -> list:
    """[(the draws of a run of one component type, those whose item the player never saw, the
    items never seen, sorted)] of each run of draws (a shuffle) in `steps` (see deal_unseen)."""
    runs: dict = {}
    for index, run in enumerate(run_of):
        outcome = steps[index].entry.get("chance") if run is not None else None
        if isinstance(outcome, str) and outcome in entities:
            runs.setdefault((run, entities[outcome]["type"]), []).append(index)
    found = []
    for indices in runs.values():
        # from the run on, what it put in view: the observations as one text (JSON text holds
        # no newline, so an item's text is found in it only where it is in one observation)
        later = "\n".join(step.seen for step in steps[indices[0]:])
        seen = lambda item: json.dumps(item) in later  # noqa: E731
        unseen_at = [index for index in indices if not seen(steps[index].entry["chance"])]
        unseen = [steps[index].entry["chance"] for index in unseen_at]
        last = steps[indices[-1]]
        left = list(last.pool)
        left.remove(last.entry["chance"])
        if len(left) == 1 and left[0] in entities and not seen(left[0]):
            unseen.append(left[0])  # the item the shuffle left last, never drawn
        found.append((indices, unseen_at, tuple(sorted(unseen))))
    return found


def make_move(trial, candidate, chance: bool) -> bool:
    """Apply a chance outcome or a move to `trial`; whether it was accepted."""
    return bool(trial.apply_chance(candidate) if chance else trial.apply(candidate))
