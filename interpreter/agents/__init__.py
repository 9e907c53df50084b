"""Generic agents: random, greedy (one-step lookahead) and mcts (information-set MCTS).

Every agent is seeded, never looks at what its player may not see (hidden values are re-dealt
at random from the same pool before any lookahead: `State.determinize`), and uses only
`legal_actions()`, `apply()`, `copy()`, scores and the ruleset's heuristic.
"""
from __future__ import annotations

import math
import random
from typing import Optional

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "MCTSAgent", "make_agent", "AGENTS"]


class Agent:
    name = "agent"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, state, player: int):
        raise NotImplementedError


class RandomAgent(Agent):
    name = "random"

    def act(self, state, player):
        return self.rng.choice(state.legal_actions())


def _value(state, player) -> float:
    """How good a state is for `player`: the ruleset's heuristic if it declares one, else the
    score margin over the best opponent; a finished game counts win/loss strongly."""
    rs = state.rs
    if state.is_terminal:
        w = state.winners()
        if player in w:
            return 1000.0 / len(w)
        return -1000.0
    if rs.heuristic is not None:
        return float(state.evaluate(rs.heuristic, {"p": player, "player": player}) or 0)
    sc = state.scores()
    mine = sc[player]["total"]
    others = [s["total"] for p, s in sc.items() if p != player]
    return float(mine - (max(others) if others else 0))


class GreedyAgent(Agent):
    name = "greedy"

    def act(self, state, player):
        acts = state.legal_actions()
        if len(acts) == 1:
            return acts[0]
        base = state.determinize(player, self.rng.randrange(1 << 30))
        best, best_v = [], None
        for a in acts:
            s = base.copy()
            if not s.apply(a):
                continue
            v = _value(s, player)
            if best_v is None or v > best_v:
                best, best_v = [a], v
            elif v == best_v:
                best.append(a)
        return self.rng.choice(best or acts)


class _Node:
    __slots__ = ("visits", "value", "children", "avail")

    def __init__(self):
        self.visits = 0
        self.value = 0.0
        self.children: dict = {}
        self.avail = 0


class MCTSAgent(Agent):
    """Single-observer information-set MCTS: each iteration samples a world consistent with
    what the player sees, then runs UCT over action keys shared across samples."""

    name = "mcts"

    def __init__(self, seed: int = 0, iterations: int = 200, rollout_limit: int = 400, c: float = 0.7):
        super().__init__(seed)
        self.iterations = iterations
        self.rollout_limit = rollout_limit
        self.c = c

    def act(self, state, player):
        acts = state.legal_actions()
        if len(acts) == 1:
            return acts[0]
        root = _Node()
        n_players = state.num_players
        for it in range(self.iterations):
            s = state.determinize(player, self.rng.randrange(1 << 30))
            node = root
            path = []
            # selection / expansion
            while not s.is_terminal:
                legal = s.legal_actions()
                if not legal:
                    break
                mover = s.current_player
                for a in legal:
                    ch = node.children.get(a.key)
                    if ch is None:
                        ch = node.children[a.key] = (_Node(), mover)
                    ch[0].avail += 1
                unvisited = [a for a in legal if node.children[a.key][0].visits == 0]
                if unvisited:
                    a = self.rng.choice(unvisited)
                    s.apply(a)
                    child, mover = node.children[a.key]
                    path.append((child, mover))
                    node = child
                    break
                best, best_u = None, -1e18
                for a in legal:
                    ch, _m = node.children[a.key]
                    u = ch.value / ch.visits + self.c * math.sqrt(math.log(ch.avail + 1) / ch.visits)
                    if u > best_u:
                        best, best_u = a, u
                s.apply(best)
                child, mover = node.children[best.key]
                path.append((child, mover))
                node = child
            # rollout
            steps = 0
            while not s.is_terminal and steps < self.rollout_limit:
                legal = s.legal_actions()
                if not legal:
                    break
                s.apply(self.rng.choice(legal))
                steps += 1
            rewards = _rewards(s, n_players)
            root.visits += 1
            for ch, mover in path:
                ch.visits += 1
                ch.value += rewards[mover] if mover is not None else 0.0
        best = max(acts, key=lambda a: (root.children.get(a.key, (_Node(),))[0].visits, self.rng.random()))
        return best


def _rewards(state, n):
    """1 shared among winners of a finished game; for a rollout cut short, the players ranked
    by the ruleset's heuristic (or the score): the leaders share 0.5."""
    if state.is_terminal:
        w = state.winners()
        return [1.0 / len(w) if p in w else 0.0 for p in range(n)]
    rs = state.rs
    if rs.heuristic is not None:
        totals = [state.evaluate(rs.heuristic, {"p": p, "player": p}) or 0 for p in range(n)]
    else:
        sc = state.scores()
        totals = [sc[p]["total"] for p in range(n)]
    best = max(totals)
    winners = [p for p in range(n) if totals[p] == best]
    return [0.5 / len(winners) if p in winners else 0.0 for p in range(n)]


AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "mcts": MCTSAgent}


def make_agent(spec: str, seed: int = 0) -> Optional[Agent]:
    """'random', 'greedy', 'mcts', 'mcts:500' (iterations) or 'mcts:200:20' (iterations and
    rollout length, after which the heuristic judges the position); 'human' gives None."""
    name, _, arg = spec.partition(":")
    if name == "human":
        return None
    if name not in AGENTS:
        raise ValueError(f"unknown agent '{name}' (choose from human, {', '.join(AGENTS)})")
    if name == "mcts" and arg:
        parts = arg.split(":")
        kw = {"iterations": int(parts[0])}
        if len(parts) > 1:
            kw["rollout_limit"] = int(parts[1])
        return MCTSAgent(seed, **kw)
    return AGENTS[name](seed)
