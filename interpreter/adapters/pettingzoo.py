"""Any ruleset as a PettingZoo AEC environment (the classic-environments convention):
`env(ruleset, modules=(), players=None, render_mode=None)`.

Owns: `RulebookAEC`, whose agents are "player_0".."player_{n-1}", whose action space is the
ruleset's fixed `ActionSpace` (Discrete) and whose observations are
`{"observation": float32 vector (ObservationLayout), "action_mask": int8 vector}`; the mask is
all zeros for an agent whose turn it is not. Rewards come at the end (`Utility`: score totals
when they sum to zero, else +1 for winners and -1 for the others). `parallel_env` (for games
with simultaneous phases) lives in parallel.py and is re-exported here.
Requires `pettingzoo`, `gymnasium` and `numpy` (`pip install rulebook[pettingzoo]`).
"""
from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .observation import render_view
from .parallel import RulebookParallel, parallel_env, raw_parallel_env, next_seed, set_up_env
from .returns import utility_of

__all__ = ["env", "raw_env", "RulebookAEC", "parallel_env", "raw_parallel_env", "RulebookParallel"]


def _load(ruleset, modules):
    if isinstance(ruleset, str):
        import interpreter

        return interpreter.load(ruleset, modules)
    return ruleset


def env(ruleset, modules=(), players=None, render_mode=None, utility="auto", engine="reference"):
    """The AEC environment, wrapped like PettingZoo's classic games (an illegal action ends
    the game with -1 for the player who tried it; out-of-range ids and calls out of order are
    refused). `engine`: "reference" or "compiled" (the same games; docs/research.md)."""
    wrapped = raw_env(ruleset, modules, players, render_mode, utility, engine)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def raw_env(ruleset, modules=(), players=None, render_mode=None, utility="auto", engine="reference"):
    """The unwrapped AEC environment."""
    return RulebookAEC(_load(ruleset, modules), players, render_mode, utility, engine)


class RulebookAEC(AECEnv):
    """A ruleset as an agent-environment-cycle game; see the module docstring."""

    def __init__(self, ruleset, players=None, render_mode=None, utility="auto", engine="reference"):
        super().__init__()
        set_up_env(self, ruleset, players, render_mode, utility, engine)
        self.metadata = {"render_modes": ["human", "ansi"], "name": f"rulebook_{ruleset.name}",
                         "is_parallelizable": False}
        self.state = None
        self._seed = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        """A new game; `seed` picks the game's chance (the same seed, the same game)."""
        self._seed = next_seed(self._seed, seed)
        self.state = self.rs.new_game(self.players, self._seed, engine=self.engine)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player]

    def observe(self, agent):
        player = self.possible_agents.index(agent)
        vector = np.asarray(self.layout.encode(self.state, player), dtype=np.float32)
        mask = np.zeros(self.space.size, dtype=np.int8)
        if agent == self.agent_selection and not self.state.is_terminal:
            for number, _ in self.space.legal_ids(self.state):
                mask[number] = 1
        return {"observation": vector, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        move = self.space.decode(self.state, int(action))
        outcome = self.state.apply(move)
        if not outcome:
            raise ValueError(f"the engine refused {move.label}: {outcome.reason}")
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.state.is_terminal:
            for agent_name, value in zip(self.possible_agents, utility_of(self.state, self.utility.mode)):
                self.rewards[agent_name] = value
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.state.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        """The public view (what a spectator sees: no player's secrets) as text."""
        return render_view(self.state, -1, self.render_mode)

    def close(self):
        pass
