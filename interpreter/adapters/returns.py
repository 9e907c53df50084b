"""What a finished game pays each player in the research adapters: `utility_of` (score totals or
wins) and `Utility` (which of the two, whether the game is zero-sum, and the range of returns).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["Utility", "utility_of", "SAMPLE_GAMES"]

SAMPLE_GAMES = 30  # seeded random games played to infer zero-sum and the range of scores
_UTILITIES: dict = {}  # (ruleset digest, players, mode) -> Utility: the samples cost seconds


def utility_of(state, mode: str) -> list:
    """The returns of a finished game: 'score' gives each player's score total; 'win' gives +1
    to each winner and -1 to everyone else (0 to all when everybody ties)."""
    players = range(state.num_players)
    if mode == "score":
        scores = state.scores()
        return [float(scores[p]["total"]) for p in players]
    winners = set(state.winners())
    if len(winners) == state.num_players:
        return [0.0 for _ in players]
    return [1.0 if p in winners else -1.0 for p in players]


@dataclass
class Utility:
    """How a finished game pays: `mode` ('score' or 'win'), whether it is zero-sum, and the
    range of returns ('win': exactly -1..1; 'score': the range seen in SAMPLE_GAMES seeded
    random games, since rules do not declare score bounds)."""

    mode: str
    zero_sum: bool
    low: float
    high: float

    @classmethod
    def infer(cls, ruleset, players: int, mode: str = "auto") -> "Utility":
        """'auto' pays scores in a two-player game whose sampled games' scores all sum to zero
        (Kuhn poker's chips, tic-tac-toe's +1/-1), else wins."""
        if mode not in ("auto", "score", "win"):
            raise ValueError(f"utility is 'auto', 'score' or 'win', not {mode!r}")
        key = (ruleset.digest or id(ruleset), players, mode)
        if key not in _UTILITIES:
            _UTILITIES[key] = cls._infer(ruleset, players, mode)
        return _UTILITIES[key]

    @classmethod
    def _infer(cls, ruleset, players: int, mode: str) -> "Utility":
        sample = mode == "score" or (mode == "auto" and players == 2)
        samples = _sample_returns(ruleset, players) if sample else []
        zero_sum = bool(samples) and all(abs(sum(row)) < 1e-9 for row in samples)
        chosen = mode if mode != "auto" else ("score" if zero_sum else "win")
        if chosen == "win":
            return cls("win", players == 2, -1.0, 1.0)
        values = [v for row in samples for v in row]
        return cls("score", zero_sum, min(values), max(values))


def _sample_returns(ruleset, players: int) -> list:
    rng = random.Random(0)
    out = []
    for seed in range(SAMPLE_GAMES):
        state = ruleset.new_game(players, seed)
        while not state.is_terminal:
            state.apply(rng.choice(state.legal_actions()))
        out.append(utility_of(state, "score"))
    return out
