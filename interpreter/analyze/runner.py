"""Playing one seeded game with full instrumentation, and many of them on local processes.

A game's record is plain JSON-able data (see `play_recorded_game`); records are written to the
store by the caller as each game finishes. The rules are loaded once by the caller: worker
processes are forked from it and inherit that one Ruleset, so a file edited during a run cannot
change the rules of the games still to play."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from ..engine.coverage import Coverage, instrument
from .agents import RestrictedAgent, build_agent

__all__ = ["RunConfig", "play_recorded_game", "play_local", "seat_specs", "locate_components"]

ENGINE_VARS = ("players", "num_players", "current_phase")


@dataclass
class RunConfig:
    """Everything that decides the games of a run (the number of games aside)."""

    ruleset: str
    modules: list
    players: int
    agents: list
    seed: int = 0
    rotate: bool = False
    overrides: dict = field(default_factory=dict)
    restrict: Optional[str] = None
    start_var: Optional[str] = None

    def key(self) -> dict:
        return {"ruleset": self.ruleset, "modules": list(self.modules), "players": self.players,
                "agents": list(self.agents), "seed": self.seed, "rotate": self.rotate,
                "overrides": dict(sorted(self.overrides.items())), "restrict": self.restrict,
                "start_var": self.start_var}


def seat_specs(config: RunConfig, index: int) -> list:
    """The agent spec of each seat in game `index` (rotated from game to game with --rotate)."""
    shift = index if config.rotate else 0
    return [config.agents[(seat + shift) % len(config.agents)] for seat in range(config.players)]


def restricted_seat(config: RunConfig, index: int) -> Optional[int]:
    """With --restrict, the restricted agent sits at each seat in turn."""
    return index % config.players if config.restrict else None


def locate_components(vars_: dict, ids, per_player: set) -> dict:
    """Where each component id is in the vars, as a value: 'deck.goal', 'goals[2]',
    'corp_at.pos_x'. Positions inside a list are not part of the location (a shuffle is not a
    move); a component used as a map key (a board space holding something) is not located."""
    found: dict = {}
    for name, value in vars_.items():
        if name in ENGINE_VARS:
            continue
        if name in per_player and isinstance(value, list):
            for seat, item in enumerate(value):
                _walk(item, f"{name}[{seat}]", found, ids)
        else:
            _walk(value, name, found, ids)
    return found


def _walk(value, path: str, found: dict, ids) -> None:
    if isinstance(value, str):
        if value in ids and value not in found:
            found[value] = path
    elif isinstance(value, list):
        for item in value:
            _walk(item, path, found, ids)
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk(item, f"{path}.{key}", found, ids)


def holder(location: Optional[str], per_player: set) -> Optional[int]:
    """The seat whose per-player var holds a location ('goals[2]' -> 2), or None."""
    if not location:
        return None
    head = location.split(".", 1)[0]
    name, _, rest = head.partition("[")
    if name in per_player and rest.endswith("]") and rest[:-1].isdigit():
        return int(rest[:-1])
    return None


class _Tracker:
    """Collects the per-decision data of one game."""

    def __init__(self, ruleset, players: int):
        self.ruleset = ruleset
        self.players = players
        self.ids = frozenset(ruleset.entities)
        self.per_player = {name for name, decl in ruleset.vars.items() if decl.per_player}
        self.labels: dict = {}
        for pid, phase in ruleset.phases.items():
            self.labels.setdefault(f"— {phase.label} —", []).append(pid)
        self.first_moves: list = []
        self.chosen: dict = {}  # action -> [count per seat]
        self.legal: dict = {}  # action -> decisions where it was legal
        self.contested: dict = {}  # action -> [decisions legal with another kind, chosen there]
        self.branching: list = []
        self.leaders: list = []
        self.card_uses: dict = {}
        self.phases: set = set()
        self.log_seen = 0
        self.initial: dict = {}
        self.moved: set = set()
        self.turns = 0
        self.last_player = None

    def start(self, state) -> None:
        self.initial = locate_components(state.vars, self.ids, self.per_player)
        self._phases(state)

    def _phases(self, state) -> None:
        if state.phase:
            self.phases.add(state.phase)
        log = state.log
        for line in log[self.log_seen:]:
            self.phases.update(self.labels.get(line, ()))
        self.log_seen = len(log)

    def decision(self, state, legal, action) -> None:
        player = action.player
        if player is not None and player not in self.first_moves:
            self.first_moves.append(player)
        if player != self.last_player or not self.branching:  # a turn: one player's run of decisions
            self.turns += 1
            self.last_player = player
        self.branching.append(len(legal))
        kinds = list(dict.fromkeys(a.name for a in legal))  # ordered: same record in any process
        for kind in kinds:
            self.legal[kind] = self.legal.get(kind, 0) + 1
            if len(kinds) > 1:
                entry = self.contested.setdefault(kind, [0, 0])
                entry[0] += 1
                entry[1] += kind == action.name
        seat = player if player is not None else 0
        self.chosen.setdefault(action.name, [0] * self.players)[seat] += 1
        for card in _cards_named(action.args, self.ids):
            self.card_uses.setdefault(card, [0] * self.players)[seat] += 1
        self.leaders.append(_leader(state))

    def after(self, state) -> None:
        self._phases(state)
        if len(self.moved) < len(self.ids):
            now = locate_components(state.vars, self.ids, self.per_player)
            for cid, where in now.items():
                if cid not in self.moved and self.initial.get(cid) != where:
                    self.moved.add(cid)
            for cid in self.initial:
                if cid not in now:
                    self.moved.add(cid)

    def start_order(self, start_value) -> list:
        """Seats in turn order: from the start player a ruleset var names (read at set-up), else
        in the order in which the players first acted (those who never acted come last)."""
        if isinstance(start_value, int) and not isinstance(start_value, bool) and 0 <= start_value < self.players:
            return [(start_value + k) % self.players for k in range(self.players)]
        order = list(self.first_moves)
        order += [seat for seat in range(self.players) if seat not in order]
        return order


def _cards_named(args, ids) -> list:
    out: list = []
    for arg in args or ():
        if isinstance(arg, str) and arg in ids:
            out.append(arg)
        elif isinstance(arg, (list, tuple)):
            out.extend(_cards_named(arg, ids))
    return out


def _leader(state) -> int:
    """The seat with the unique top score, or -1 when the top is shared."""
    try:
        scores = state.scores()
    except Exception:  # a score row that cannot be evaluated mid-game
        return -1
    if not scores:
        return -1
    best = max(s["total"] for s in scores.values())
    top = [seat for seat, s in scores.items() if s["total"] == best]
    return top[0] if len(top) == 1 else -1


_COVERAGE = Coverage()  # this process's recorder; records one game at a time
_INSTRUMENTED: dict = {}  # id(ruleset) -> (ruleset, its counting copy)


def counting_copy(ruleset):
    """The copy of `ruleset` that counts procedures, defines and `if` branches (made once per process
    and Ruleset: a forked worker inherits it)."""
    hit = _INSTRUMENTED.get(id(ruleset))
    if hit is None or hit[0] is not ruleset:
        if len(_INSTRUMENTED) > 32:
            _INSTRUMENTED.clear()
        hit = _INSTRUMENTED[id(ruleset)] = (ruleset, instrument(ruleset, _COVERAGE))
    return hit[1]


def play_recorded_game(ruleset, config: RunConfig, index: int) -> dict:
    """Play game `index` of a run (seed = config.seed + index) and return its record. The game
    is played on the counting copy of the rules: `covered` lists the coverage keys it hit
    (counted in the game itself, not in an agent's search or the report's score tracking)."""
    seed = config.seed + index
    specs = seat_specs(config, index)
    restricted = restricted_seat(config, index)
    record = {"index": index, "seed": seed, "agents": specs, "restricted_seat": restricted,
              "start_order": [], "winners": [], "scores": {}, "tie_decided": False, "steps": 0,
              "decisions": 0, "error": None}
    state = tracker = start_value = None
    try:
        agents = []
        for seat, spec in enumerate(specs):
            agent = build_agent(spec, seed * 1009 + seat)
            agents.append(RestrictedAgent(agent, config.restrict) if seat == restricted else agent)
        played = counting_copy(ruleset)
        _COVERAGE.start()
        state = played.new_game(config.players, seed=seed)
        start_value = state.vars.get(config.start_var) if config.start_var else None
        tracker = _Tracker(ruleset, config.players)
        tracker.start(state)
        _play(state, agents, tracker, record)
        if restricted is not None:
            record["restricted_forced"] = agents[restricted].forced
    except Exception as exc:  # a game that fails is recorded as failed, never lost
        record["error"] = record["error"] or f"{type(exc).__name__}: {exc}"[:500]
    try:
        _finish_record(record, state, tracker, start_value)
    finally:
        _COVERAGE.stop()
    return record


def _finish_record(record, state, tracker, start_value) -> None:
    if tracker is not None:
        record.update(_tracker_fields(tracker, start_value))
    if state is not None:
        record["steps"] = state.steps
        record["final_vars"] = _jsonable(state.vars)
        if record["error"] is None:
            _outcome(state, record)
        record["covered"] = sorted(_COVERAGE.counts)


def _play(state, agents, tracker, record) -> None:
    while not state.is_terminal:
        legal = state.legal_actions()
        if not legal:
            record["error"] = f"no legal action in phase '{state.phase}' at step {state.steps}"
            return
        player = legal[0].player
        agent = agents[player if player is not None else 0]
        with _COVERAGE.paused():
            action = agent.act(state, player)
            tracker.decision(state, legal, action)
        outcome = state.apply(action)
        if not outcome:
            record["error"] = (f"{outcome.code}: {outcome.reason} (action {action.label} in phase "
                               f"'{state.phase}' at step {state.steps})")
            return
        tracker.after(state)
    record["decisions"] = len(tracker.branching)


def _outcome(state, record) -> None:
    scores = state.scores()
    winners = state.winners()
    totals = {str(seat): s["total"] for seat, s in scores.items()}
    best = max(totals.values()) if totals else 0
    tied = [seat for seat, total in totals.items() if total == best]
    record["scores"] = totals
    record["winners"] = sorted(winners)
    record["tie_decided"] = len(tied) > 1 and len(winners) < len(tied)


def _tracker_fields(tracker, start_value) -> dict:
    return {"start_order": tracker.start_order(start_value), "actions": tracker.chosen,
            "legal": tracker.legal, "contested": tracker.contested, "branching": tracker.branching,
            "leaders": tracker.leaders, "card_uses": tracker.card_uses,
            "phases": sorted(tracker.phases), "moved": sorted(tracker.moved), "turns": tracker.turns}


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


# ----------------------------------------------------------------------------- local processes
_WORKER: dict = {}


def _play_in_worker(index: int) -> dict:
    return play_recorded_game(_WORKER["ruleset"], _WORKER["config"], index)


def resolve_jobs(jobs) -> int:
    """'auto' is the number of CPUs this process may use; otherwise a positive integer."""
    if jobs in (None, "", "auto"):
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:
            return max(1, os.cpu_count() or 1)
    value = int(jobs)
    if value < 1:
        raise ValueError("--jobs must be at least 1 (or 'auto')")
    return value


def play_local(ruleset, config: RunConfig, indices, jobs: int):
    """Yield the record of each game as it finishes (in any order with jobs > 1)."""
    indices = list(indices)
    if jobs <= 1 or len(indices) <= 1:
        for index in indices:
            yield play_recorded_game(ruleset, config, index)
        return
    import multiprocessing

    _WORKER["ruleset"], _WORKER["config"] = ruleset, config  # inherited by the forked workers
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs) as pool:
        yield from pool.imap_unordered(_play_in_worker, indices, chunksize=1)
