"""Any ruleset as a single-agent Gymnasium environment: the learner plays one seat, the other
seats are played by the built-in agents (`opponents="random"|"greedy"|"mcts:N"`, one spec for
all or a list with one per other seat).

Owns: `RulebookEnv` (observations `{"observation": float32 vector, "action_mask": int8 vector}`
like the PettingZoo adapter; `action_masks()` for maskable learners; the reward is the learner's
return when the game ends, 0 before; an illegal id ends the episode with `illegal_reward`).
`engine="compiled"` plays the games on the ruleset's generated module (the same games:
docs/research.md, "Which engine plays"). Requires `gymnasium` and `numpy`
(`pip install rulebook[gymnasium]`).
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .encoding import ActionSpace
from .observation import ObservationLayout, render_view
from .parallel import check_engine
from .returns import Utility, utility_of

__all__ = ["RulebookEnv", "make_env"]


def make_env(ruleset, modules=(), players=None, **options) -> "RulebookEnv":
    """`RulebookEnv` for a ruleset name or path (or a loaded Ruleset)."""
    if isinstance(ruleset, str):
        import interpreter

        ruleset = interpreter.load(ruleset, modules)
    return RulebookEnv(ruleset, players, **options)


class RulebookEnv(gym.Env):
    """One seat of a ruleset against built-in agents; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, ruleset, players=None, seat: int = 0, opponents="random", render_mode=None,
                 utility: str = "auto", illegal_reward: float = -1.0, engine: str = "reference"):
        self.rs = ruleset
        self.engine = check_engine(engine)
        self.players = players if players is not None else ruleset.players[0]
        if self.players not in ruleset.players:
            raise ValueError(f"{ruleset.name} is played by {', '.join(map(str, ruleset.players))} players, "
                             f"not {self.players}")
        if not 0 <= seat < self.players:
            raise ValueError(f"seat is 0..{self.players - 1}, not {seat}")
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode is None, 'human' or 'ansi', not {render_mode!r}")
        self.seat = seat
        self.opponent_specs = self._specs(opponents)
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.space = ActionSpace(ruleset, self.players)
        self.layout = ObservationLayout(ruleset, self.players)
        self.utility = Utility.infer(ruleset, self.players, utility)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.layout.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.space.size,), np.int8)})
        self.action_space = spaces.Discrete(self.space.size)
        self.state = None
        self.opponents: dict = {}

    def _specs(self, opponents) -> dict:
        others = [p for p in range(self.players) if p != self.seat]
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != len(others):
                raise ValueError(f"give one opponent per other seat ({len(others)}), not {len(opponents)}")
            return dict(zip(others, opponents))
        return {p: opponents for p in others}

    def _make_opponents(self, seed: int) -> dict:
        from ..agents import Agent, make_agent

        out = {}
        for seat, spec in self.opponent_specs.items():
            agent = spec if isinstance(spec, Agent) else make_agent(spec, seed + seat)
            if agent is None:
                raise ValueError("opponents are built-in agents (random, greedy, mcts[:N]), not 'human'")
            out[seat] = agent
        return out

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(1 << 31))
        self.state = self.rs.new_game(self.players, game_seed, engine=self.engine)
        self.opponents = self._make_opponents(game_seed)
        self._play_opponents()
        return self._observation(), self._info()

    def step(self, action):
        legal = dict(self.space.legal_ids(self.state))
        move = legal.get(int(action))
        if move is None or self.state.is_terminal:
            return self._observation(), self.illegal_reward, True, False, self._info(illegal=True)
        outcome = self.state.apply(move)
        if not outcome:
            raise RuntimeError(f"the engine refused the legal action {move.label}: {outcome.reason}")
        self._play_opponents()
        reward = 0.0
        if self.state.is_terminal:
            reward = utility_of(self.state, self.utility.mode)[self.seat]
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self.state.is_terminal, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal ids as a boolean vector (the name maskable learners look for)."""
        return self._mask().astype(bool)

    def render(self):
        """The learner's view (never another player's secrets) as text."""
        return render_view(self.state, self.seat, self.render_mode)

    # ------------------------------------------------------------------ helpers
    def _play_opponents(self):
        state = self.state
        while not state.is_terminal and state.current_player != self.seat:
            player = state.current_player
            outcome = state.apply(self.opponents[player].act(state, player))
            if not outcome:
                raise RuntimeError(f"the engine refused an agent's move: {outcome.reason}")

    def _mask(self) -> np.ndarray:
        mask = np.zeros(self.space.size, dtype=np.int8)
        if not self.state.is_terminal and self.state.current_player == self.seat:
            for number, _ in self.space.legal_ids(self.state):
                mask[number] = 1
        return mask

    def _observation(self) -> dict:
        vector = np.asarray(self.layout.encode(self.state, self.seat), dtype=np.float32)
        return {"observation": vector, "action_mask": self._mask()}

    def _info(self, illegal: bool = False) -> dict:
        info = {"phase": self.state.phase, "step": self.state.steps}
        if illegal:
            info["illegal"] = True
        return info
