"""Agents for analysis runs: the generic agents of `interpreter.agents` plus an MCTS spec with a
per-move time budget (`mcts:time=0.05`) and restricted play (`--restrict`): an agent that never
chooses a given action kind or an action naming a given card, while another option is legal."""
from __future__ import annotations

from ..agents import MCTSAgent, make_agent

__all__ = ["build_agent", "check_spec", "RestrictedAgent", "TimedMCTSAgent", "forbidden"]


class TimedMCTSAgent(MCTSAgent):
    """MCTS with a time budget per move (`mcts:time=SECONDS`): the search starts no iteration
    once SECONDS have passed since the move began, so a move takes the budget plus at most one
    iteration (one descent and a rollout of at most ROLLOUT steps) and the set-up of its sampled
    worlds; at least one iteration runs. Time-budgeted play depends on the machine and its load:
    not reproducible."""

    name = "mcts"
    MAX_ITERATIONS = 1_000_000

    def __init__(self, seed: int, seconds: float, rollout_limit: int = 400):
        super().__init__(seed, iterations=self.MAX_ITERATIONS, rollout_limit=rollout_limit, seconds=seconds)


def forbidden(action, restrict: str) -> bool:
    """An action is forbidden by `--restrict X` when its kind is X or an argument names X."""
    if action.name == restrict:
        return True
    return any(_names(arg, restrict) for arg in (action.args or ()))


def _names(value, target) -> bool:
    if isinstance(value, str):
        return value == target
    if isinstance(value, (list, tuple)):
        return any(_names(v, target) for v in value)
    if isinstance(value, dict):
        return any(_names(v, target) for v in value.values())
    return False


class _FilteredState:
    """The state as the restricted agent sees it: its legal actions leave out the forbidden
    ones; the rest of the State's public API (determinize, copy, scores...) is the state's own.
    Nothing private (a name starting with '_') is passed through."""

    def __init__(self, state, allowed):
        self._state = state
        self._allowed = allowed

    def legal_actions(self, player=None):
        return list(self._allowed)

    def legal_action_ids(self):  # the batch calls agents use, over the allowed actions
        return list(range(len(self._allowed)))

    def legal_action(self, index):
        return self._allowed[index]

    def action_key(self, index):
        return self._allowed[index].key

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._state, name)


class RestrictedAgent:
    """Plays as `inner` but never picks a forbidden action while an allowed one is legal."""

    def __init__(self, inner, restrict: str):
        self.inner = inner
        self.restrict = restrict
        self.name = f"{getattr(inner, 'name', 'agent')}-without-{restrict}"
        self.forced = 0  # decisions where every legal action was forbidden

    def act(self, state, player):
        legal = state.legal_actions()
        allowed = [a for a in legal if not forbidden(a, self.restrict)]
        if len(allowed) == len(legal):
            return self.inner.act(state, player)
        if not allowed:
            self.forced += 1
            return self.inner.act(state, player)
        return self.inner.act(_FilteredState(state, allowed), player)


def build_agent(spec: str, seed: int):
    """`make_agent` plus 'mcts:time=SECONDS' (optionally 'mcts:time=SECONDS:ROLLOUT')."""
    name, _, arg = spec.partition(":")
    if name == "mcts" and arg.startswith("time="):
        parts = arg[len("time="):].split(":")
        try:
            seconds = float(parts[0])
            rollout = int(parts[1]) if len(parts) > 1 else 400
        except ValueError:
            raise ValueError(f"bad agent spec '{spec}': use mcts:time=SECONDS, e.g. mcts:time=0.05") from None
        if seconds <= 0:
            raise ValueError(f"bad agent spec '{spec}': the time budget must be positive")
        return TimedMCTSAgent(seed, seconds, rollout)
    agent = make_agent(spec, seed)
    if agent is None:
        raise ValueError("analyze plays agents only (random, greedy, mcts[:N], mcts:time=S), not 'human'")
    return agent


def check_spec(spec: str) -> None:
    """Raise ValueError for a spec `build_agent` would refuse."""
    try:
        build_agent(spec, 0)
    except (TypeError, ValueError) as exc:
        raise ValueError(str(exc) if "agent" in str(exc) else f"bad agent spec '{spec}': {exc}") from None
