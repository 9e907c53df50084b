"""The worker processes of `simulate --jobs N` (runs.py imports this module only then).

Owns:
- handing the rules to the workers: they are forked with the parent's loaded ruleset (they
  read no rule file; the generated game module and the play code are built before the fork, so
  the workers share them), or, where processes cannot be forked, load it themselves and refuse
  to play unless its digest equals the parent's (`RulesChanged`);
- cutting the seeds into tasks (`_chunks`) and keeping the workers busy;
- a worker process that dies is detected (`BrokenProcessPool`, never a hang); its unfinished
  games are played again, and a game that kills its worker even when played alone is reported
  as lost with its seed.
"""
from __future__ import annotations

import gc
import multiprocessing
import signal
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Optional

from .compiled.module import game_module
from .expr.compiler import compile_waiting
from .play import GameResult, seat_agents
from .runs import LOST, RulesChanged, play_one

__all__ = ["run_in_pool"]

_MAX_CHUNK = 16  # games per task at most: a finished game is written soon, the parent wakes seldom
_SHARE = 4  # a task holds at most 1/(jobs * _SHARE) of the games left (each task costs ~75 us of CPU)


_WORKER: dict = {}  # the ruleset a worker plays, set before the pool forks (or by _init_worker)


def _init_worker(expected: Optional[tuple]) -> None:
    """Runs in each worker. Forked workers already hold the parent's ruleset; others load it and
    compare digests (a mismatch is kept and reported by every task, never played). Ctrl-C is
    the parent's to handle: it stops handing out games and keeps the ones that finished."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if expected is None:
        return
    folder, modules, digest, overrides = expected
    from .ruleset import load

    try:
        ruleset = load(folder, modules=modules, check=False, settings=overrides)
    except Exception as error:  # noqa: BLE001 - an edited file may no longer load
        _WORKER["changed"] = f"the rules in {folder} no longer load: {str(error).splitlines()[0]}"
        return
    if ruleset.digest != digest:
        _WORKER["changed"] = (f"the rule files in {folder} changed since the run started "
                              f"(digest {digest}, now {ruleset.digest})")
        return
    _WORKER["rs"] = ruleset


def _run_chunk(args):
    """A worker's task: play some seeds; a record per game, or the reason it refuses to play."""
    seeds, players, agent_specs, base, rotate = args
    if "changed" in _WORKER:
        return {"rules_changed": _WORKER["changed"]}
    ruleset = _WORKER["rs"]
    return [play_one(ruleset, players, seed, agent_specs, (seed - base) if rotate else 0) for seed in seeds]


class _Pool:
    """A process pool that can be replaced when one of its workers dies."""

    def __init__(self, ruleset, jobs: int, start_method: Optional[str]):
        self.rs, self.jobs = ruleset, jobs
        self.method = start_method or ("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        self.executor: Optional[ProcessPoolExecutor] = None
        self.deaths = 0
        self.thaw = False  # this pool froze the cycle collector's view of the parent's objects

    def get(self) -> ProcessPoolExecutor:
        if self.executor is None:
            expected = None
            if self.method == "fork":
                _WORKER.clear()
                _WORKER["rs"] = self.rs
                # the workers inherit the compiled code instead of each compiling it on first use
                compile_waiting(self.rs.unit.ns)
                game_module(self.rs)  # and the generated game module (play_game's compiled engine)
                # what exists now is shared with the workers: the cycle collector of a worker
                # leaves it alone, so it is not copied page by page into each worker (as the
                # gc module's documentation advises for a fork without exec); thawed in close()
                # (an embedder's own freeze is left as it is)
                self.thaw = gc.get_freeze_count() == 0
                if self.thaw:
                    gc.freeze()
            else:
                expected = (self.rs.folder, list(self.rs.modules), self.rs.digest, dict(self.rs.overrides))
            self.executor = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context(self.method),
                                                 initializer=_init_worker, initargs=(expected,))
        return self.executor

    def broken(self) -> None:
        self.deaths += 1
        self.close()

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = None
        _WORKER.clear()
        if self.thaw:
            gc.unfreeze()
            self.thaw = False


def run_in_pool(ruleset, seeds, game_args, jobs, finished, info, start_method) -> None:
    """Play the seeds over `jobs` processes. Tasks start as chunks; when a worker dies, the
    unfinished games of the tasks in flight are played again one per task, and a game that is
    in flight at a second death is played alone, then reported lost if it kills that worker."""
    todo = deque((chunk, 1) for chunk in _chunks(seeds, jobs))
    alone: list = []
    pool = _Pool(ruleset, jobs, start_method)
    def lose(seed, message):
        info["lost_seeds"].append(seed)
        players, agent_specs, base, rotate = game_args
        seats = seat_agents(agent_specs, players, (seed - base) if rotate else 0)
        finished(dict(GameResult(seed, [], {}, 0, {}, message).to_json(), agents=seats, lost=True))

    try:
        while todo and pool.deaths <= len(seeds) + jobs:  # more deaths than games: give up
            for chunk, attempt in _play_until_a_death(pool, todo, game_args, finished):
                if attempt == 1:
                    todo.extend(([game_seed], 2) for game_seed in chunk)
                else:
                    alone.extend(chunk)
        for game_seed in alone:  # each suspect played by itself: a death now is its own
            if not _play_alone(pool, game_seed, game_args, finished):
                lose(game_seed, LOST)
        for chunk, _ in todo:
            for game_seed in chunk:
                lose(game_seed, f"lost: not played, the worker processes kept dying ({pool.deaths} times)")
    finally:
        pool.close()
        info["worker_deaths"] = pool.deaths


def _chunks(seeds: list, jobs: int) -> list:
    """The seeds cut into tasks that shrink as the run goes on (guided self-scheduling): big
    ones first, so the parent hands out and collects few, then down to one game each, so the
    workers finish together (a run of slow games does not end on one busy worker)."""
    chunks, start = [], 0
    while start < len(seeds):
        size = max(1, min(_MAX_CHUNK, (len(seeds) - start) // (jobs * _SHARE)))
        chunks.append(seeds[start:start + size])
        start += size
    return chunks


def _task(chunk, game_args) -> tuple:
    players, agent_specs, base, rotate = game_args
    return (chunk, players, agent_specs, base, rotate)


def _play_until_a_death(pool, todo: deque, game_args, finished) -> list:
    """Keep the workers busy with tasks from `todo` until it is empty ([]) or a worker dies:
    then the tasks that did not finish, as (chunk, attempt), and the pool is replaced."""
    executor = pool.get()
    in_flight: dict = {}
    while todo or in_flight:
        while todo and len(in_flight) < pool.jobs * 2:
            chunk, attempt = todo.popleft()
            try:
                future = executor.submit(_run_chunk, _task(chunk, game_args))
            except BrokenProcessPool:  # a worker died while no task of ours was waiting on it
                todo.appendleft((chunk, attempt))
                break
            in_flight[future] = (chunk, attempt)
        if not in_flight:
            pool.broken()
            return []
        ready, _ = wait(in_flight, return_when=FIRST_COMPLETED)
        lost = _collect(ready, in_flight, finished)
        if lost is not None:
            pool.broken()
            return lost + list(in_flight.values())
    return []


def _play_alone(pool, seed: int, game_args, finished) -> bool:
    """One game with no other task in the pool; False if its worker died. (A pool found
    broken before the game was handed over is replaced once.)"""
    for _ in range(2):
        try:
            future = pool.get().submit(_run_chunk, _task([seed], game_args))
        except BrokenProcessPool:
            pool.broken()
            continue
        survived = _collect([future], {future: ([seed], 3)}, finished) is None
        if not survived:
            pool.broken()
        return survived
    return False


def _collect(ready, in_flight: dict, finished):
    """Hand over the results of the finished tasks; the tasks a dead worker took with it, or
    None if no worker died. Raises RulesChanged if a worker refused to play."""
    lost = None
    for future in ready:
        task = in_flight.pop(future)
        try:
            records = future.result()
        except BrokenProcessPool:
            lost = (lost or []) + [task]
            continue
        if isinstance(records, dict):
            raise RulesChanged(records["rules_changed"])
        for record in records:
            finished(record)
    return lost
