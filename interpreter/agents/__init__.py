"""Generic agents: random, greedy (one-step lookahead) and mcts (information-set MCTS).

Every agent is seeded and never looks at what its player may not see: before any lookahead it
draws worlds consistent with the player's information (`State.determinize`: hidden chance
outcomes and the others' secret moves drawn anew) and plays only in those; of the true state it
reads only its own legal actions. Two states with the same `information_state(player)` give the
same choice for the same seed. Agents use only `legal_actions()`, `apply()`, `copy()`, the batch
calls `legal_action_ids()`, `legal_action()`, `action_key()`, `apply_id()` and `undo()` (MCTS plays
its iterations in place and takes the moves back), scores and the ruleset's heuristic. MCTS
plays its drawn worlds as compiled games (`compiled.played_on`) when the ruleset compiles: the
same game, with faster moves.
"""
from __future__ import annotations

import math
import random
import time
from typing import Optional

from ..compiled import played_on
from ..engine import infosets

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "MCTSAgent", "make_agent", "AGENTS"]


class Agent:
    name = "agent"
    # True when the agent reads nothing of the state but its legal moves (and whether seats
    # choose at once): such an agent plays the compiled engine's game (play.play_game) exactly
    # as the reference's, since both list the same moves in the same order
    reads_only_legal_moves = False

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, state, player: int):
        raise NotImplementedError


class RandomAgent(Agent):
    name = "random"
    reads_only_legal_moves = True

    def act(self, state, player):
        if state.is_simultaneous():  # several players choose at once: only this player's moves
            return self.rng.choice(state.legal_actions(player))
        # the same draw as rng.choice(state.legal_actions()), without building every Action
        return state.legal_action(self.rng.choice(state.legal_action_ids()))


def _value(state, player) -> float:
    """How good a state is for `player`: the ruleset's heuristic if it declares one, else the
    score margin over the best opponent; a finished game counts win/loss strongly."""
    if state.is_terminal:
        winners = state.winners()
        return 1000.0 / len(winners) if player in winners else -1000.0
    if state.rs.heuristic is not None:
        return float(state.evaluate(state.rs.heuristic, {"p": player, "player": player}) or 0)
    table = state.scores()
    others = [entry["total"] for seat, entry in table.items() if seat != player]
    return float(table[player]["total"] - (max(others) if others else 0))


class GreedyAgent(Agent):
    name = "greedy"

    def act(self, state, player):
        actions = state.legal_actions(player)
        if len(actions) == 1:
            return actions[0]
        sample = state.determinize(player, self.rng.randrange(1 << 30))
        best, best_value = [], None
        for action in actions:
            after = sample.copy()
            if not after.apply(action):
                continue
            if after.is_simultaneous():  # the others still to choose: a guess for each, so the round resolves
                _others_choose(after, player, random.Random(self.rng.randrange(1 << 30)))
            value = _value(after, player)
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return self.rng.choice(best or actions)


def _others_choose(sample, player, chooser) -> None:
    """At a simultaneous node in a sampled world: the other players still to choose pick at
    random until the node resolves (the position is then judged after the reveal)."""
    opened = sample.is_simultaneous()
    while opened and sample.is_simultaneous():
        others = [seat for seat in sample.current_players if seat != player]
        if not others:
            return
        if not sample.apply(chooser.choice(sample.legal_actions(others[0]))):
            return


class _Node:
    __slots__ = ("visits", "value", "children", "avail")

    def __init__(self):
        self.visits = 0
        self.value = 0.0
        self.children: dict = {}  # action key -> (node, player who moved)
        self.avail = 0


class MCTSAgent(Agent):
    """Single-observer information-set MCTS: each iteration samples a world consistent with
    what the player sees, then runs UCT over action keys shared across samples."""

    name = "mcts"

    def __init__(self, seed: int = 0, iterations: int = 200, rollout_limit: int = 400,
                 exploration: float = 0.7, worlds: int = 16, seconds: Optional[float] = None, new_worlds: int = 2,
                 engine: str = "auto"):
        super().__init__(seed)
        if engine not in ("auto", "reference"):
            raise ValueError(f"engine is 'auto' or 'reference', not {engine!r}")
        # "auto": the iterations play each world on the compiled engine when the ruleset compiles
        # (compiled.played_on: the same game, so the same choices, with faster apply_id/undo);
        # "reference": on the drawn worlds themselves
        self.engine = engine
        self.iterations = iterations
        # a time budget per move: no iteration starts once `seconds` have passed since the move
        # began (at least one runs; `iterations` still caps them). Not reproducible across machines.
        self.seconds = seconds
        self.rollout_limit = rollout_limit
        self.exploration = exploration  # the exploration constant of UCT
        self.worlds = worlds  # determinized samples drawn per decision, visited in turn
        # at most this many worlds are drawn anew per decision (replaying the whole history);
        # the others are the last decision's worlds played on, or copies of those that fit.
        # A fresh draw late in a Davos game can cost more than the whole search of a decision
        # (docs/performance.md, "`simulate --jobs 2` and MCTS, third round"): 2 rather than 4 made
        # MCTS 1.28x faster over whole Davos games (1.12x on its first decisions), and it won
        # as often against random players (24 and 25 of 40 games)
        self.new_worlds = new_worlds
        self._kept: dict = {}  # player -> the worlds of their last decision
        self.tree: Optional[_Node] = None  # the search tree of the last decision

    def act(self, state, player):
        actions = state.legal_actions(player)
        if len(actions) == 1:
            return actions[0]
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        root = _Node()
        worlds = self._played(self._draw_worlds(state, player))
        for iteration in range(self.iterations):
            if deadline is not None and iteration and time.perf_counter() >= deadline:
                break
            # each iteration plays in a world with apply_id and takes every move back with
            # undo: the world is never copied
            sample = worlds[iteration % len(worlds)]
            path, moves = self._descend(root, sample, player)
            moves += self._rollout(sample)
            rewards = _rewards(sample, state.num_players)
            if moves:
                sample.undo(moves)
            root.visits += 1
            for child, mover in path:
                child.visits += 1
                child.value += rewards[mover] if mover is not None else 0.0
        tag = ("seat", player) if len(state.current_players) > 1 else None  # as _choose_at_once keys them
        self.tree = root
        return max(actions, key=lambda action: (root.children.get(action.key if tag is None else (tag, action.key),
                                                                  (_Node(),))[0].visits,
                                                 self.rng.random()))

    def _draw_worlds(self, state, player) -> list:
        """The worlds of this decision, consistent with what `player` has seen (a particle
        filter): each world of the player's last decision played on to now where it still fits;
        in place of one that does not, a world drawn anew (up to `new_worlds`), then the worlds
        that fit, in turn."""
        seeds = [self.rng.randrange(1 << 30) for _ in range(max(1, min(self.worlds, self.iterations)))]
        kept = self._kept.get(player, [])[:len(seeds)]
        worlds = [None] * len(seeds)
        copies: dict = {}  # the kept worlds played on alike (infosets.replay_key) -> their places
        for index, earlier in enumerate(kept):
            copies.setdefault(infosets.replay_key(earlier), []).append(index)
        for places in copies.values():  # the moves since are played once per world drawn
            played = state.determinize_from_each(kept[places[0]], player, [seeds[index] for index in places])
            for index, world in zip(places, played):
                worlds[index] = world
        fitting = [world for world in worlds if world is not None]
        drawn = []
        for index, seed in enumerate(seeds):
            if worlds[index] is not None:
                continue
            if len(drawn) < self.new_worlds:
                drawn.append(state.determinize(player, seed))
                worlds[index] = drawn[-1]
            else:
                pool = fitting or drawn
                worlds[index] = pool[index % len(pool)]
        self._kept[player] = worlds
        return worlds

    def _played(self, worlds: list) -> list:
        """The games the iterations play: each distinct world as a compiled game at its position
        (engine "auto", when the ruleset compiles), else the world itself. A compiled game is
        the search's own and its log is never read: it keeps none (CompiledState.drop_log). A
        world is handed to its game, not copied: only what it was drawn from (`_world`) is read
        of it later, to play it on at the next decision."""
        if self.engine == "reference":
            return worlds
        games: dict = {}
        for world in worlds:
            if id(world) not in games:
                game = played_on(world, copy=False)
                if game is not None:
                    game.drop_log()
                games[id(world)] = game if game is not None else world
        return [games[id(world)] for world in worlds]

    def _descend(self, node, sample, player) -> tuple:
        """Selection and expansion in `sample` (changed in place): the path of (node, mover)
        and how many moves were made. At a simultaneous node every seat still to choose picks
        from its own statistics at that node (decoupled UCT): no seat's choice in the tree
        depends on another's choice of the same round, the searching player's included."""
        path = []
        moves = 0
        while not sample.is_terminal:
            seats = sample.current_players
            if len(seats) > 1:
                node, made, expanded = self._choose_at_once(node, sample, list(seats), path)
                moves += made
                if expanded or not made:
                    break
                continue
            ids = sample.legal_action_ids()
            if not ids:
                break
            mover = seats[0] if seats else None
            chosen, child, expanded = self._select(node, sample, ids, mover, None)
            if sample.apply_id(chosen):
                moves += 1
            path.append((child, mover))
            node = child
            if expanded:
                break
        return path, moves

    def _choose_at_once(self, node, sample, seats: list, path: list) -> tuple:
        """Each of `seats` picks a move from its own statistics at `node` (keyed by seat), then
        all are applied; the node that follows is the one of this joint choice. Returns (that
        node, moves made, whether a seat tried a move for the first time)."""
        picks = []
        for seat in seats:
            ids = [index for index in sample.legal_action_ids() if sample.legal_action(index).player == seat]
            if ids:
                chosen, child, expanded = self._select(node, sample, ids, seat, ("seat", seat))
                picks.append((seat, sample.action_key(chosen), child, expanded))
        made = 0
        for seat, key, child, _ in picks:
            ids = [index for index in sample.legal_action_ids() if sample.action_key(index) == key
                   and sample.legal_action(index).player == seat]  # ids shift as seats choose
            if ids and sample.apply_id(ids[0]):
                made += 1
            path.append((child, seat))
        joint = ("joint", tuple((seat, key) for seat, key, _, _ in picks))
        entry = node.children.get(joint)
        if entry is None:
            entry = node.children[joint] = (_Node(), None)
        return entry[0], made, any(expanded for *_, expanded in picks)

    def _select(self, node, sample, ids: list, mover, tag) -> tuple:
        """UCT at `node` among the legal ids (a random untried one first): (the id, its child
        node, whether it was untried). `tag` sets a seat's moves apart at a simultaneous node."""
        children = node.children
        child_of = {}  # id -> its child node (each key looked up once: hashing a key is most of the work)
        for index in ids:
            key = sample.action_key(index) if tag is None else (tag, sample.action_key(index))
            entry = children.get(key)
            if entry is None:
                entry = children[key] = (_Node(), mover)
            entry[0].avail += 1
            child_of[index] = entry[0]
        unvisited = [index for index in ids if child_of[index].visits == 0]
        chosen = self.rng.choice(unvisited) if unvisited else self._best(child_of)
        return chosen, child_of[chosen], bool(unvisited)

    def _best(self, child_of: dict) -> int:
        """The id whose child has the best UCT score (the first of equals, in the ids' order)."""
        best, best_score = None, -1e18
        for index, child in child_of.items():
            explore = self.exploration * math.sqrt(math.log(child.avail + 1) / child.visits)
            score = child.value / child.visits + explore
            if score > best_score:
                best, best_score = index, score
        return best

    def _rollout(self, sample) -> int:
        """Random moves until the game ends or `rollout_limit`; how many were made."""
        steps = moves = 0
        while not sample.is_terminal and steps < self.rollout_limit:
            ids = sample.legal_action_ids()
            if not ids:
                break
            if sample.apply_id(self.rng.choice(ids)):
                moves += 1
            steps += 1
        return moves


def _rewards(state, players):
    """1 shared among winners of a finished game; for a rollout cut short, the players ranked
    by the ruleset's heuristic (or the score): the leaders share 0.5."""
    if state.is_terminal:
        winners = state.winners()
        return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(players)]
    heuristic = state.rs.heuristic
    if heuristic is not None:
        totals = [state.evaluate(heuristic, {"p": seat, "player": seat}) or 0 for seat in range(players)]
    else:
        table = state.scores()
        totals = [table[seat]["total"] for seat in range(players)]
    best = max(totals)
    leaders = [seat for seat in range(players) if totals[seat] == best]
    return [0.5 / len(leaders) if seat in leaders else 0.0 for seat in range(players)]


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
        options = {"iterations": int(parts[0])}
        if len(parts) > 1:
            options["rollout_limit"] = int(parts[1])
        return MCTSAgent(seed, **options)
    return AGENTS[name](seed)
