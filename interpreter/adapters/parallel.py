"""Any ruleset as a PettingZoo parallel environment (for games with simultaneous phases):
`parallel_env(ruleset, modules=(), players=None, render_mode=None)`, also reachable as
`interpreter.adapters.pettingzoo.parallel_env`.

Owns: `RulebookParallel`, on the same action space and observations as the AEC env
(pettingzoo.py): agents "player_0".."player_{n-1}", `Discrete(ActionSpace.size)`, observations
`{"observation": float32 vector, "action_mask": int8 vector}`. Each `step(actions)` applies the
moves of the agents who must act now: every player still to choose at a simultaneous node, the
one current player elsewhere. The entries of the other agents are ignored, and their
`action_mask` is all zeros (so `infos[agent]["must_act"]` and the mask say who acts). All the
acting agents' ids are checked before any is applied: a missing or illegal one raises
ValueError with the state unchanged. Chance is drawn by the game's seeded RNG, as in the AEC
env. Observations are `observe(player)` encoded: nobody's choice shows to another player before
the rules reveal it. Requires `pettingzoo`, `gymnasium`, `numpy`.

Also owns what every adapter shares about the engine that plays its games (`engine=`, see
docs/research.md, "Which engine plays"): `check_engine`.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from ..compiled import ENGINES
from .encoding import ActionSpace, acting_players
from .observation import ObservationLayout, render_view
from .returns import Utility, utility_of

__all__ = ["parallel_env", "raw_parallel_env", "RulebookParallel", "acting_players", "check_engine", "ENGINES"]


def parallel_env(ruleset, modules=(), players=None, render_mode=None, utility="auto", engine="reference"):
    """The parallel environment (a ruleset name or a loaded ruleset)."""
    return raw_parallel_env(ruleset, modules, players, render_mode, utility, engine)


def raw_parallel_env(ruleset, modules=(), players=None, render_mode=None, utility="auto", engine="reference"):
    """The parallel environment itself (it needs no wrapper: bad ids are refused by `step`)."""
    if isinstance(ruleset, str):
        import interpreter

        ruleset = interpreter.load(ruleset, modules)
    return RulebookParallel(ruleset, players, render_mode, utility, engine)


def check_engine(engine: str) -> str:
    """`engine` when it names an engine: "reference" (the interpreter, the definition of the
    rules) or "compiled" (the ruleset's generated module, the same games: docs/api.md, "Compiled
    play"; a ruleset that does not compile is played by the reference)."""
    if engine not in ENGINES:
        raise ValueError(f"engine is one of {', '.join(ENGINES)}, not {engine!r}")
    return engine


def next_seed(last, given):
    """The seed of the next game of an env: `given` when a seed is given, else 0 for the first
    game and the last game's seed + 1 after it."""
    if given is not None:
        return given
    return 0 if last is None else last + 1


def set_up_env(env, ruleset, players, render_mode, utility, engine="reference") -> None:
    """What the AEC and the parallel env share: the player count and engine checked, the fixed
    action space, the observation layout, the utility, and each agent's observation and action
    spaces."""
    env.rs = ruleset
    env.engine = check_engine(engine)
    env.players = players if players is not None else ruleset.players[0]
    if env.players not in ruleset.players:
        raise ValueError(f"{ruleset.name} is played by {', '.join(map(str, ruleset.players))} players, "
                         f"not {env.players}")
    if render_mode not in (None, "human", "ansi"):
        raise ValueError(f"render_mode is None, 'human' or 'ansi', not {render_mode!r}")
    env.render_mode = render_mode
    env.space = ActionSpace(ruleset, env.players)
    env.layout = ObservationLayout(ruleset, env.players)
    env.utility = Utility.infer(ruleset, env.players, utility)
    env.possible_agents = [f"player_{p}" for p in range(env.players)]
    observation = spaces.Dict({
        "observation": spaces.Box(-np.inf, np.inf, (env.layout.size,), np.float32),
        "action_mask": spaces.Box(0, 1, (env.space.size,), np.int8)})
    env.observation_spaces = {agent: observation for agent in env.possible_agents}
    env.action_spaces = {agent: spaces.Discrete(env.space.size) for agent in env.possible_agents}


class RulebookParallel(ParallelEnv):
    """A ruleset as a parallel (simultaneous-step) game; see the module docstring."""

    def __init__(self, ruleset, players=None, render_mode=None, utility="auto", engine="reference"):
        set_up_env(self, ruleset, players, render_mode, utility, engine)
        self.metadata = {"render_modes": ["human", "ansi"], "name": f"rulebook_{ruleset.name}_parallel"}
        self.agents = []
        self.state = None
        self._seed = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        """A new game; `seed` picks the game's chance (the same seed, the same game); without
        one, the next seed after the last game's."""
        self._seed = next_seed(self._seed, seed)
        self.state = self.rs.new_game(self.players, self._seed, engine=self.engine)
        self.agents = self.possible_agents[:]
        return self._observations(self.agents), self._infos(self.agents)

    def observe(self, agent):
        """What `agent` sees now: its observation vector and its action mask."""
        player = self.possible_agents.index(agent)
        vector = np.asarray(self.layout.encode(self.state, player), dtype=np.float32)
        mask = np.zeros(self.space.size, dtype=np.int8)
        if player in acting_players(self.state):
            for number, _ in self.space.legal_ids(self.state, player):
                mask[number] = 1
        return {"observation": vector, "action_mask": mask}

    def step(self, actions):
        """Apply the acting agents' ids (the others' entries are ignored); returns observations,
        rewards, terminations, truncations and infos for every agent alive before the step."""
        live = self.agents[:]
        moves = self._decode(actions)
        for move in moves:
            outcome = self.state.apply(move)
            if not outcome:
                raise ValueError(f"the engine refused {move.label}: {outcome.reason}")
        rewards = dict.fromkeys(live, 0.0)
        finished = self.state.is_terminal
        if finished:
            for agent, value in zip(self.possible_agents, utility_of(self.state, self.utility.mode)):
                if agent in rewards:
                    rewards[agent] = value
        terminations = dict.fromkeys(live, finished)
        truncations = dict.fromkeys(live, False)
        observations, infos = self._observations(live), self._infos(live)
        if finished:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _decode(self, actions) -> list:
        """The acting agents' moves, every id checked before any is applied."""
        if not self.agents:
            raise ValueError("the game is over: call reset()")
        moves = []
        for player in acting_players(self.state):
            agent = self.possible_agents[player]
            if agent not in actions:
                raise ValueError(f"{agent} must act now and has no entry in the actions")
            number = int(actions[agent])
            legal = dict(self.space.legal_ids(self.state, player))
            if number not in legal:
                raise ValueError(f"{agent}: action id {number} is not legal here ({self.space.describe(number)})")
            moves.append(legal[number])
        return moves

    def _observations(self, agents) -> dict:
        return {agent: self.observe(agent) for agent in agents}

    def _infos(self, agents) -> dict:
        """Per agent: whether it must act in the next step (public: who is to act is open)."""
        acting = {self.possible_agents[p] for p in acting_players(self.state)}
        return {agent: {"must_act": agent in acting} for agent in agents}

    def render(self):
        """The public view (what a spectator sees: no player's secrets) as text."""
        return render_view(self.state, -1, self.render_mode)

    def close(self):
        pass
