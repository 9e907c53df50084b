"""Many seeded games in one run: `rulebook simulate` and the `simulate()` API.

Owns what makes a run trustworthy:
- the rules are loaded once, in the parent (with `--jobs N` the worker processes get them
  from the parent: runs_pool.py);
- a game that raises (engine or agent) is one error with its seed, message and place, and the
  run goes on;
- a worker process that dies costs no game silently (runs_pool.py): its games are played
  again, and one that kills its worker even when played alone is reported as lost;
- every finished game is handed on at once (the CLI writes its line to the per-game file), so
  an interrupted run keeps what finished; with `--jobs N` the worker that played it makes its
  line (`as_finished`), so the parent writes lines and keeps small records.

The same arguments give the same per-game results for any number of jobs. The process pool
(multiprocessing) is imported only when a run has more than one job.
"""
from __future__ import annotations

import json
import os
import time
import traceback
from typing import Callable, Optional

from .play import GameResult, play_game, seat_agents

__all__ = ["simulate", "summarize", "RulesChanged", "LOST", "parse_jobs", "as_finished"]

LOST = "lost: the worker process died while playing this game (also when played again alone)"
_ERROR_GAMES_SHOWN = 50  # error games listed one by one in the summary


class RulesChanged(Exception):
    """A worker loaded rules that differ from the ones the run started with."""


def parse_jobs(text: str) -> int:
    """`--jobs N` or `--jobs auto` (one per CPU)."""
    if text == "auto":
        return os.cpu_count() or 1
    return int(text)


# ----------------------------------------------------------------------------- one game
def _failed_game(seed: int, seats: list, error: Exception) -> dict:
    """The record of a game that raised: the first line of the message and the innermost place."""
    first_line = (str(error).strip().splitlines() or [""])[0]
    frames = traceback.extract_tb(error.__traceback__)
    place = ""
    if frames:
        frame = frames[-1]
        place = f" (at {_short_path(frame.filename)}:{frame.lineno} in {frame.name})"
    message = f"crashed: {type(error).__name__}: {first_line}"[:300] + place
    result = GameResult(seed, [], {}, 0, {}, message).to_json()
    result["agents"] = seats
    return result


def _short_path(filename: str) -> str:
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.abspath(filename)
    return os.path.relpath(path, package_root) if path.startswith(package_root + os.sep) else filename


def play_one(ruleset, players: int, seed: int, agent_specs, shift: int) -> dict:
    """One game as a per-game record; never raises for what happens inside the game."""
    try:
        record = play_game(ruleset, players, seed, agent_specs, shift=shift).to_json()
        record["agents"] = record["agents"] or seat_agents(agent_specs, players, shift)
        return record
    except Exception as error:  # noqa: BLE001 - any failure of one game is that game's error
        return _failed_game(seed, seat_agents(agent_specs, players, shift), error)


# ----------------------------------------------------------------------------- a run
def simulate(target, modules, players: int, games: int, seed: int, agent_specs,
             jobs: int = 1, progress=None, rotate: bool = False,
             on_result: Optional[Callable[[dict], None]] = None, stats: Optional[dict] = None,
             start_method: Optional[str] = None, keep: Optional[Callable[[dict], dict]] = None,
             on_lines: Optional[Callable[[list, str], None]] = None, final_vars: bool = True):
    """Play `games` seeded games (seeds `seed`, `seed + 1`, ...) and return (records sorted by
    seed, seconds). `target` is a loaded Ruleset (then `modules` is ignored) or a name/path,
    loaded once here. `on_result(record)` is called as each game finishes (with the whole
    record); `keep(record)`, if given, is what of it the returned list holds (a long run then
    need not hold every game's final vars); `stats`, if given, receives `worker_deaths`,
    `idle_worker_deaths` (of those, the workers that held no task) and `lost_seeds`. Raises
    RulesChanged if a worker's rules differ.
    `on_lines(seeds, text)`, if given, receives the finished games' per-game lines (each whole
    record as JSON with sorted keys, one line each), before `on_result` sees them: one game at a
    time with one job, a worker's task at a time with more (the worker writes the lines, the
    parent only passes them on). `final_vars=False` leaves each game's final vars out of the
    records `on_result`, `keep` and the returned list see (they are in its line)."""
    from .ruleset import Ruleset, load

    ruleset = target if isinstance(target, Ruleset) else load(target, modules=modules, check=False)
    started = time.perf_counter()
    done: list = []

    def finished(text: Optional[str], records: list) -> None:
        if on_lines and records:
            on_lines([record["seed"] for record in records], text)
        for record in records:
            if on_result:
                on_result(record)
            done.append(keep(record) if keep else record)
            if progress:
                progress(len(done), games)

    seeds = [seed + i for i in range(games)]
    info = {"worker_deaths": 0, "idle_worker_deaths": 0, "lost_seeds": []}
    wanted = (on_lines is not None, final_vars)
    if jobs <= 1:
        for game_seed in seeds:
            record = play_one(ruleset, players, game_seed, agent_specs, (game_seed - seed) if rotate else 0)
            finished(*as_finished([record], ruleset.digest, wanted))
    else:
        from .runs_pool import run_in_pool

        run_in_pool(ruleset, seeds, (players, agent_specs, seed, rotate, wanted), jobs, finished, info, start_method)
    if stats is not None:
        stats.update(info)
    done.sort(key=lambda record: record["seed"])
    return done, time.perf_counter() - started


def as_finished(records: list, digest: str, wanted: tuple) -> tuple:
    """Finished games as `simulate` hands them on, made where they were played (a worker sends
    this): (their per-game lines, or None if no lines are wanted; the records, each with the
    rules' digest and without its final vars if they are not wanted)."""
    lines, final_vars = wanted
    for record in records:
        record["digest"] = digest
    text = "".join(per_game_line(record) for record in records) if lines else None
    return text, (records if final_vars else [_without_final_vars(record) for record in records])


def per_game_line(record: dict) -> str:
    """A game's line in the per-game file: its whole record as JSON with sorted keys."""
    return json.dumps(record, sort_keys=True) + "\n"


# ----------------------------------------------------------------------------- summary
def summarize(results, players: int, seconds: float) -> dict:
    completed = [result for result in results if not result["error"]]
    lost = [result for result in results if result.get("lost")]
    failed = [result for result in results if result["error"] and not result.get("lost")]
    summary = {
        "games": len(results),
        "completed": len(completed),
        "errors": len(failed),
        "lost": len(lost),
        "lost_seeds": [result["seed"] for result in lost],
        "error_kinds": _error_kinds(failed),
        "error_games": [{"seed": result["seed"], "error": result["error"]} for result in failed[:_ERROR_GAMES_SHOWN]],
        "seconds": round(seconds, 3),
    }
    summary.update(_wins(completed, players))
    steps = [result["steps"] for result in completed]
    totals = [seed["total"] for result in completed for seed in result["scores"].values()]
    summary.update({
        "mean_steps": (sum(steps) / len(steps)) if steps else 0,
        "min_steps": min(steps) if steps else 0,
        "max_steps": max(steps) if steps else 0,
        "score_min": min(totals) if totals else 0,
        "score_max": max(totals) if totals else 0,
        "score_mean": (sum(totals) / len(totals)) if totals else 0,
    })
    return summary


def _error_kinds(failed) -> dict:
    kinds: dict = {}
    for result in failed:
        key = result["error"].split(" (action")[0][:160]
        kinds[key] = kinds.get(key, 0) + 1
    return kinds


def _wins(completed, players: int) -> dict:
    """Wins by seat and by agent. A player wins when it is among the game's winners: team-mates
    win together (a shared win counts for each of them), not a draw. A game is a draw when
    nobody wins or every player does."""
    wins = {str(p): 0 for p in range(players)}
    by_agent: dict = {}
    draws = shared_wins = 0
    for result in completed:
        seats = result.get("agents") or []
        for agent in seats:
            by_agent.setdefault(agent, {"seats": 0, "wins": 0, "shared": 0})["seats"] += 1
        winners = result["winners"]
        if len(winners) in (0, players):
            draws += 1
            continue
        shared = len(winners) > 1
        shared_wins += shared
        for winner in winners:
            wins[str(winner)] += 1
            if seats:
                by_agent[seats[winner]]["wins"] += 1
                by_agent[seats[winner]]["shared"] += shared
    return {"wins_by_seat": wins, "wins_by_agent": by_agent, "draws": draws, "shared_wins": shared_wins}


# ----------------------------------------------------------------------------- the command
class PerGameFile:
    """The per-game JSON lines: each game appended (and flushed) as it finishes; at the end the
    file is rewritten in seed order (through a temporary file and a rename, so a crash never
    leaves it half written) unless the games finished in that order (`--jobs 1`)."""

    def __init__(self, path: str):
        self.path = path
        self.handle = open(path, "w", encoding="utf-8")
        self.seeds: list = []  # the seed of each line written, in the file's order

    def write(self, record: dict) -> None:
        self.write_lines([record["seed"]], per_game_line(record))

    def write_lines(self, seeds: list, text: str) -> None:
        """The lines of some games (one each, in the order of `seeds`), written and flushed."""
        self.handle.write(text)
        self.handle.flush()
        self.seeds.extend(seeds)

    def finish(self) -> None:
        """Rewrite the lines written so far in seed order (each line is kept as it was written;
        the seeds are the ones remembered when writing, not read back from the lines)."""
        self.handle.close()
        if all(before < after for before, after in zip(self.seeds, self.seeds[1:])):
            return
        with open(self.path, encoding="utf-8") as written:
            lines = written.readlines()
        if len(lines) != len(self.seeds):  # (every record is one line: json.dumps escapes line breaks)
            # something else wrote to the file meanwhile: left as it is, said as a file error (no traceback)
            raise OSError(0, f"the per-game file has {len(lines)} lines for the {len(self.seeds)} games written "
                             "(was it changed during the run?); left unsorted", self.path)
        order = sorted(range(len(lines)), key=self.seeds.__getitem__)
        temporary = f"{self.path}.{os.getpid()}.partial"
        with open(temporary, "w", encoding="utf-8") as out:
            out.writelines(lines[index] for index in order)
        os.replace(temporary, self.path)

    def close(self) -> None:
        if not self.handle.closed:
            self.handle.close()


def run_command(ruleset, players: int, specs: list, args, out, err) -> int:
    """`rulebook simulate` once the arguments are checked: play, write, print; exit code 0 if
    every game completed, 1 if any game had an error or was lost."""
    per_game = PerGameFile(args.per_game) if args.per_game else None
    stats: dict = {}
    try:
        results, seconds = simulate(ruleset, None, players, args.games, args.seed, specs, jobs=args.jobs,
                                    progress=_progress_bar(err, args.json), rotate=args.rotate,
                                    on_lines=per_game.write_lines if per_game else None, stats=stats,
                                    final_vars=False)
    except RulesChanged as error:
        print(f"rulebook: error: {error}; the run is stopped (the games so far are kept"
              + (f" in {args.per_game})" if per_game else ")"), file=err)
        return 1
    finally:
        if per_game:
            per_game.close()
    if per_game:
        per_game.finish()
    summary = summarize(results, players, seconds)
    summary.update({"ruleset": ruleset.name, "modules": list(ruleset.modules), "players": players, "agents": specs,
                    "seed": args.seed, "jobs": args.jobs, "digest": ruleset.digest,
                    "worker_deaths": stats.get("worker_deaths", 0),
                    "idle_worker_deaths": stats.get("idle_worker_deaths", 0)})
    if args.json:
        print(json.dumps(summary, sort_keys=True), file=out)
    else:
        _print_summary(summary, specs, args, out)
    return 0 if summary["errors"] == 0 and summary["lost"] == 0 else 1


def _without_final_vars(record: dict) -> dict:
    """A record as the summary needs it: the game's final vars (most of a record: 2.6 of 3 kB
    for Davos) are written to the per-game file, not held for the whole run."""
    return {key: value for key, value in record.items() if key != "final_vars"}


def _progress_bar(err, quiet: bool):
    if quiet or not (hasattr(err, "isatty") and err.isatty()):
        return None

    def progress(done, total):
        width = 30
        filled = int(width * done / total)
        err.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        err.flush()
        if done == total:
            err.write("\n")
    return progress


def _print_summary(summary: dict, specs: list, args, out) -> None:
    mods = "+".join(summary["modules"]) or "base"
    print(f"{summary['ruleset']} [{mods}], {summary['players']} players, agents {','.join(specs)}, "
          f"seed {args.seed}, rules {summary['digest']}", file=out)
    print(f"games: {summary['games']}  completed: {summary['completed']}  errors: {summary['errors']}"
          + (f"  lost: {summary['lost']}" if summary["lost"] else ""), file=out)
    print("wins by seat: " + "  ".join(f"{k}: {v}" for k, v in summary["wins_by_seat"].items())
          + f"  draws: {summary['draws']}"
          + (f"  shared wins: {summary['shared_wins']}" if summary["shared_wins"] else ""), file=out)
    if len(set(specs)) > 1 or args.rotate:
        print("wins by agent: " + "  ".join(
            f"{a}: {v['wins']} of {v['seats']} seats" + (f" ({v['shared']} of them shared)" if v["shared"] else "")
            for a, v in summary["wins_by_agent"].items()), file=out)
    print(f"score: min {summary['score_min']}  mean {summary['score_mean']:.2f}  max {summary['score_max']}", file=out)
    print(f"steps per game: mean {summary['mean_steps']:.1f}  min {summary['min_steps']}  max {summary['max_steps']}",
          file=out)
    print(f"time: {summary['seconds']:.2f} s ({summary['games'] / max(summary['seconds'], 1e-9):.1f} games/s)", file=out)
    for kind, count in summary["error_kinds"].items():
        print(f"error ×{count}: {kind}", file=out)
    for game in summary["error_games"][:5]:
        print(f"  e.g. seed {game['seed']}: {game['error']}", file=out)
    if summary["worker_deaths"]:
        print(f"worker processes died: {summary['worker_deaths']} (their unfinished games were played again"
              + ("; the lost ones could not be)" if summary["lost"] else ")"), file=out)
    if summary["lost"]:
        print(f"lost games (seeds): {', '.join(map(str, summary['lost_seeds']))}", file=out)
