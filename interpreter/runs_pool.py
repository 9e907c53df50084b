"""The worker processes of `simulate --jobs N` (runs.py imports this module only then).

Owns:
- handing the rules to the workers: they are forked with the parent's loaded ruleset (they
  read no rule file; the generated game module and the play code are built before the fork, so
  the workers share them), or, where processes cannot be forked, load it themselves and refuse
  to play unless its digest equals the parent's (`RulesChanged`);
- cutting the seeds into tasks (`_chunks`) and keeping the workers busy: each worker has a pipe
  for its tasks and one for its results, and holds at most two tasks (the one it plays, the
  next); the parent waits on the result pipes and the processes in its own thread (no threads
  and no shared queue: a death is the death of one known worker);
- a worker process that dies is detected (its process ends, its result pipe closes: never a
  hang); the results it sent before are kept, the task it was playing is the suspect, its games
  are played again one per task, and a game that kills its worker even when played alone, with
  no other task in any worker, is reported as lost with its seed. The tasks it had not started
  are handed out again as they were. A worker that dies holding no task lost no game: it is
  replaced when work needs it and counted apart (`idle_deaths`), never toward the limit of
  deaths after which the run gives up (a new worker is given a task at once, so idle deaths
  stay below the workers times the deaths that count, plus one round).
"""
from __future__ import annotations

import gc
import multiprocessing
import signal
from collections import deque
from multiprocessing.connection import wait
from typing import Optional

from .compiled.module import game_module
from .expr.compiler import compile_waiting
from .play import GameResult, seat_agents
from .runs import LOST, RulesChanged, as_finished, play_one

__all__ = ["run_in_pool"]

_MAX_CHUNK = 16  # games per task at most: a finished game is written soon, the parent wakes seldom
_SHARE = 4  # a task holds at most 1/(jobs * _SHARE) of the games left (each task costs the parent a wake-up)
_HELD = 2  # tasks a worker holds: the one it plays and the next, so it never waits for the parent


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
    """A worker's task: play some seeds; their games as the parent hands them on (`as_finished`:
    their lines made here, the parent only writes them), or the reason it refuses to play."""
    seeds, players, agent_specs, base, rotate, wanted = args
    if "changed" in _WORKER:
        return {"rules_changed": _WORKER["changed"]}
    ruleset = _WORKER["rs"]
    records = [play_one(ruleset, players, seed, agent_specs, (seed - base) if rotate else 0) for seed in seeds]
    return as_finished(records, ruleset.digest, wanted)


def _worker_main(tasks, results, expected: Optional[tuple], inherited: list) -> None:
    """A worker process: close the pipe ends of the parent and of the other workers that a fork
    copied (then this worker's result pipe ends when it does), then play task after task until
    the parent sends None or closes the task pipe."""
    for connection in inherited:
        connection.close()
    _init_worker(expected)
    while True:
        try:
            task = tasks.recv()
        except EOFError:
            return
        if task is None:
            return
        results.send(_run_chunk(task))


class _Worker:
    """One worker process, the parent's ends of its two pipes, and the tasks it holds (oldest
    first: the first is the one it plays)."""

    __slots__ = ("process", "tasks", "results", "held")

    def __init__(self, process, tasks, results):
        self.process, self.tasks, self.results = process, tasks, results
        self.held: deque = deque()

    def give(self, task: tuple, game_args) -> None:
        """Hand over a task (chunk, attempt); a worker already dead keeps it (its death, seen
        next, gives it back)."""
        self.held.append(task)
        try:
            self.tasks.send(_task(task[0], game_args))
        except OSError:  # the reader is gone: the process has ended or is ending
            pass


class _Pool:
    """The worker processes of a run; a dead one is replaced when work needs it."""

    def __init__(self, ruleset, jobs: int, start_method: Optional[str]):
        self.rs, self.jobs = ruleset, jobs
        method = start_method or ("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        self.context = multiprocessing.get_context(method)
        self.workers: list = []
        self.deaths = 0  # of workers that held a task: the run gives up after too many
        self.idle_deaths = 0  # of workers that held none (nothing lost): not held against the run
        self.expected: Optional[tuple] = None
        self.prepared = False
        self.thaw = False  # this pool froze the cycle collector's view of the parent's objects

    def _prepare(self) -> None:
        if self.prepared:
            return
        self.prepared = True
        if self.context.get_start_method() != "fork":
            self.expected = (self.rs.folder, list(self.rs.modules), self.rs.digest, dict(self.rs.overrides))
            return
        _WORKER.clear()
        _WORKER["rs"] = self.rs
        # the workers inherit the compiled code instead of each compiling it on first use
        compile_waiting(self.rs.unit.ns)
        game_module(self.rs)  # and the generated game module (play_game's compiled engine)
        # what exists now is shared with the workers: the cycle collector of a worker leaves it
        # alone, so it is not copied page by page into each worker (as the gc module's
        # documentation advises for a fork without exec); thawed in close() (an embedder's own
        # freeze is left as it is)
        self.thaw = gc.get_freeze_count() == 0
        if self.thaw:
            gc.freeze()

    def start(self, count: int) -> None:
        """Start workers until `count` are alive."""
        self._prepare()
        while len(self.workers) < count:
            task_reader, task_writer = self.context.Pipe(duplex=False)
            result_reader, result_writer = self.context.Pipe(duplex=False)
            forked = self.expected is None
            # a forked worker closes every end it does not use (a spawned one gets only its own)
            inherited = ([end for worker in self.workers for end in (worker.tasks, worker.results)]
                         + [task_writer, result_reader]) if forked else []
            process = self.context.Process(target=_worker_main, name="rulebook-worker",
                                           args=(task_reader, result_writer, self.expected, inherited))
            process.start()
            task_reader.close()
            result_writer.close()
            self.workers.append(_Worker(process, task_writer, result_reader))

    def hand_out(self, todo: deque, game_args) -> None:
        """Fill the workers up to `_HELD` tasks each, the least busy first."""
        while todo:
            worker = min(self.workers, key=lambda candidate: len(candidate.held))
            if len(worker.held) >= _HELD:
                return
            worker.give(todo.popleft(), game_args)

    def busy(self) -> bool:
        return any(worker.held for worker in self.workers)

    def collect(self, finished) -> list:
        """Wait until a worker sends results or ends; hand over the results. The tasks each dead
        worker held, oldest first (the first is the one it was playing). Raises RulesChanged if a
        worker refused to play."""
        by_pipe = {worker.results: worker for worker in self.workers}
        by_sentinel = {worker.process.sentinel: worker for worker in self.workers}
        dead = []
        for ready in wait(list(by_pipe) + list(by_sentinel)):
            worker = by_pipe.get(ready) or by_sentinel[ready]
            if worker in dead:
                continue
            if not _receive(worker, finished, drain=ready is not worker.results):
                dead.append(worker)
        return [self._bury(worker) for worker in dead]

    def _end(self, workers: list, stop: bool) -> None:
        for worker in workers:
            if stop or worker.held:
                worker.process.terminate()
            else:
                try:
                    worker.tasks.send(None)
                except OSError:
                    pass
        for worker in workers:
            worker.process.join()
            worker.tasks.close()
            worker.results.close()
            self.workers.remove(worker)

    def _bury(self, worker: _Worker) -> deque:
        if worker.held:
            self.deaths += 1
        else:
            self.idle_deaths += 1
        self.workers.remove(worker)
        worker.tasks.close()
        worker.results.close()
        worker.process.join()
        return worker.held

    def end_busy(self) -> list:
        """Stop the workers that still hold tasks (not deaths); those tasks, oldest first."""
        busy = [worker for worker in self.workers if worker.held]
        self._end(busy, stop=True)
        return [task for worker in busy for task in worker.held]

    def close(self, stop: bool) -> None:
        """End every worker: with `stop` (after a Ctrl-C or an error nothing more of theirs is
        wanted) at once, otherwise each leaves when told (it holds no task by then)."""
        self._end(list(self.workers), stop)
        _WORKER.clear()
        if self.thaw:
            gc.unfreeze()
            self.thaw = False


def _receive(worker: _Worker, finished, drain: bool) -> bool:
    """Read what the worker sent (all of it if its process has ended); False once its result
    pipe is closed (the worker is dead)."""
    while True:
        try:
            games = worker.results.recv()
        except (EOFError, OSError):  # closed, or closed in the middle of a message
            return False
        worker.held.popleft()
        if isinstance(games, dict):
            raise RulesChanged(games["rules_changed"])
        finished(*games)
        if not (drain or worker.results.poll()):
            return True


def run_in_pool(ruleset, seeds, game_args, jobs, finished, info, start_method) -> None:
    """Play the seeds over `jobs` processes. Tasks start as chunks; when a worker dies, the games
    of the task it was playing are played again one per task, and a game that is being played
    at a second death is played alone, then reported lost if it kills that worker."""
    todo = deque((chunk, 1) for chunk in _chunks(seeds, jobs))
    alone: list = []
    pool = _Pool(ruleset, jobs, start_method)

    def lose(seed, message):
        info["lost_seeds"].append(seed)
        players, agent_specs, base, rotate, wanted = game_args
        seats = seat_agents(agent_specs, players, (seed - base) if rotate else 0)
        record = dict(GameResult(seed, [], {}, 0, {}, message).to_json(), agents=seats, lost=True)
        finished(*as_finished([record], ruleset.digest, wanted))

    stop = True
    try:
        while (todo or pool.busy()) and pool.deaths <= len(seeds) + jobs:  # more deaths than games: give up
            if todo:
                pool.start(jobs)
                pool.hand_out(todo, game_args)
            for held in pool.collect(finished):
                if not held:  # it died between tasks: nothing of the run was lost with it
                    continue
                (chunk, attempt), waiting = held[0], list(held)[1:]
                todo.extendleft(reversed(waiting))  # not started: handed out again as they were
                if attempt == 1:
                    todo.extend(([game_seed], 2) for game_seed in chunk)
                else:
                    alone.extend(chunk)
        todo.extend(pool.end_busy())  # given up: what the living workers hold is not played either
        for game_seed in alone:  # each suspect played by itself: a death now is its own
            if not _play_alone(pool, game_seed, game_args, finished):
                lose(game_seed, LOST)
        for chunk, _ in todo:
            for game_seed in chunk:
                lose(game_seed, f"lost: not played, the worker processes kept dying ({pool.deaths} times)")
        stop = False
    finally:
        pool.close(stop)
        info["worker_deaths"] = pool.deaths + pool.idle_deaths
        info["idle_worker_deaths"] = pool.idle_deaths


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
    return (chunk, *game_args)


def _play_alone(pool, seed: int, game_args, finished) -> bool:
    """One game with no other task in any worker; False if its worker died."""
    pool.start(1)
    worker = pool.workers[0]
    worker.give(([seed], 3), game_args)
    while worker.held:
        if any(held is worker.held for held in pool.collect(finished)):
            return False
    return True
