"""Game speed in one run, as ratios against references timed in the same run (issue 15).

Owns the measurements of issue 15's targets: the hand-written tic-tac-toe random playout of the
issue (integer board, no any()), a stricter one (bitboards, lines through the last move only),
and rulebook's tic-tac-toe through the API against both (on the compiled engine, with rows
for the reference engine too; a tree without the compiled engine plays the reference in
both); OpenSpiel's pure-Python tic-tac-toe and Kuhn poker against ours (when open_spiel is installed); random games/s
of the real bundled games as a ratio to the hand-written reference; MCTS iterations/s on Davos
(`mcts:40:10`); `simulate --jobs 2` against `--jobs 1` (and identical results) on a short run
(300 random games, shown without a target) and on the studies the target is judged on (1000
random games; 12 games with one `mcts:40:10` seat, turn about); peak RSS of a
Davos `simulate` in a child process. With --baseline REV (default 7d90d55, "today" in the issue)
the same measurements run on REV, checked out into a temporary git worktree, in a subprocess with
that tree first on sys.path, and a table metric | baseline | now | now/baseline is printed with
the issue's must-targets marked met / not met. Nothing here asserts on time: a shared, noisy
machine is handled by interleaved bursts and medians, and every speed is also given as a ratio to
a reference measured alongside it.

Run: .venv/bin/python tools/bench/games.py [--quick] [--baseline REV | --no-baseline]
"""
import argparse
import inspect
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import instructions  # noqa: E402  (tools/bench/instructions.py)
DEFAULT_BASELINE = "7d90d55"
REAL_GAMES = (("davos", 4), ("deep-state", 3), ("global-mogul", 3), ("corporate-times", 4))
LINES = (0b000000111, 0b000111000, 0b111000000, 0b001001001,
         0b010010010, 0b100100100, 0b100010001, 0b001010100)
# for each cell, the winning lines through it: only those can be completed by a move there
LINES_THROUGH = tuple(tuple(line for line in LINES if line >> cell & 1) for cell in range(9))
FULL_BOARD = 0b111111111
LINE_CELLS = tuple(tuple(cell for cell in range(9) if line >> cell & 1) for line in LINES)


def plain_playout(rng):
    """One random tic-tac-toe game, hand-written as tight as plain Python gets: one integer
    bitboard per player, a swap-remove list of empty cells, only the lines through the last
    move checked. Returns (winner 0/1 or None, X's bitboard, O's bitboard)."""
    randrange = rng.randrange
    empty = [0, 1, 2, 3, 4, 5, 6, 7, 8]
    boards = [0, 0]
    player = 0
    remaining = 9
    while True:
        index = randrange(remaining)
        cell = empty[index]
        remaining -= 1
        empty[index] = empty[remaining]
        board = boards[player] | (1 << cell)
        boards[player] = board
        for line in LINES_THROUGH[cell]:
            if board & line == line:
                return player, boards[0], boards[1]
        if not remaining:
            return None, boards[0], boards[1]
        player ^= 1


def integer_board_playout(rng):
    """One random tic-tac-toe game as issue 15 defines its reference: an integer board (0 empty,
    1 X, 2 O), the empty cells listed each move, the eight lines checked in a plain loop (no
    any()). Stricter figures use `plain_playout`. Returns the winner 0/1 or None."""
    randrange = rng.randrange
    board = [0, 0, 0, 0, 0, 0, 0, 0, 0]
    mark = 1
    while True:
        empty = [cell for cell in range(9) if not board[cell]]
        board[empty[randrange(len(empty))]] = mark
        for first, second, third in LINE_CELLS:
            if board[first] == mark and board[second] == mark and board[third] == mark:
                return mark - 1
        if len(empty) == 1:
            return None
        mark = 3 - mark


def api_playout(ruleset, rng, seed, engine=None):
    """One random game through the public API (new_game, legal_actions, apply) on `engine`
    (None: new_game's default, for a tree whose new_game has no engine parameter)."""
    if engine is None:
        state = ruleset.new_game(ruleset.players[0], seed=seed)
    else:
        state = ruleset.new_game(ruleset.players[0], seed=seed, engine=engine)
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state


def openspiel_playouts(rng) -> dict:
    """{"openspiel_tictactoe": playout, "openspiel_kuhn": playout} of OpenSpiel's pure-Python games
    when open_spiel is importable, else {}."""
    try:
        import pyspiel
        import open_spiel.python.games  # noqa: F401 - registers the python_* games
    except ImportError:
        return {}
    tictactoe = pyspiel.load_game("python_tic_tac_toe")
    kuhn = pyspiel.load_game("python_kuhn_poker")
    return {"openspiel_tictactoe": lambda: openspiel_playout(tictactoe, rng),
            "openspiel_kuhn": lambda: openspiel_playout(kuhn, rng)}


def openspiel_playout(game, rng):
    """One random game of an OpenSpiel game, chance nodes sampled by their probabilities."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            actions = [action for action, _ in outcomes]
            weights = [probability for _, probability in outcomes]
            state.apply_action(rng.choices(actions, weights)[0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    return state.returns()


def run_burst(fn, seconds, clock=time.perf_counter):
    """Call fn until `seconds` have passed on `clock` (at least once); returns (calls, elapsed
    seconds). `time.process_time` counts only this process's CPU time (other jobs on a shared
    machine then weigh on neither side of a ratio)."""
    calls, start = 0, clock()
    while True:
        fn()
        calls += 1
        elapsed = clock() - start
        if elapsed >= seconds:
            return calls, elapsed


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def summarize(bursts, reference, strict_reference=None):
    """bursts: a list of {name: (units, seconds)}, one dict per round of interleaved bursts.
    Returns {name: {"rate": units/s over all bursts, "ratio": median over the rounds of
    rate / reference's rate in the same round}}: load on the machine then weighs on both alike.
    With `strict_reference`, "strict_ratio" is the same against that one."""
    def rate(round_, name):
        return round_[name][0] / round_[name][1]

    result = {}
    for name in bursts[0]:
        units = sum(round_[name][0] for round_ in bursts)
        seconds = sum(round_[name][1] for round_ in bursts)
        result[name] = {"rate": units / seconds,
                        "ratio": median([rate(round_, name) / rate(round_, reference) for round_ in bursts])}
        if strict_reference is not None:
            result[name]["strict_ratio"] = median([rate(round_, name) / rate(round_, strict_reference)
                                                   for round_ in bursts])
    return result


def interleaved(functions, reference, rounds, seconds, units=None, strict_reference=None, clock=time.perf_counter):
    """Time each of `functions` ({name: fn}) in turn, `rounds` times, `seconds` per burst on
    `clock`; units[name] (default 1) is how many units one call counts for (e.g. MCTS iterations)."""
    units = units or {}
    bursts = []
    for _ in range(rounds):
        round_ = {}
        for name, fn in functions.items():
            calls, elapsed = run_burst(fn, seconds, clock)
            round_[name] = (calls * units.get(name, 1), elapsed)
        bursts.append(round_)
    return summarize(bursts, reference, strict_reference)


def import_interpreter(root):
    """Import the `interpreter` package of the tree at `root` (now, or a baseline worktree)."""
    sys.path.insert(0, root)
    import interpreter
    from interpreter.play import play_game
    return interpreter, play_game


def fastest_engine(interpreter):
    """(engine of the target rows, engine of the "reference engine" rows) for new_game's
    `engine` parameter: ("compiled", "reference") when the tree has one, else (None, None): a
    tree from before the compiled engine (the baseline 7d90d55) has only the reference."""
    if "engine" in inspect.signature(interpreter.load("tictactoe").new_game).parameters:
        return "compiled", "reference"
    return None, None


def measure_tictactoe_and_peers(interpreter, rounds, seconds):
    """The hand-written references (issue 15's integer board; the stricter bitboard), our
    tic-tac-toe and Kuhn poker on the compiled engine (the target rows; the reference engine on
    a tree without it) and on the reference engine ("*_reference"), OpenSpiel's pure-Python ones."""
    rng = random.Random(1)
    seeds = iter(range(10 ** 9))
    tictactoe = interpreter.load("tictactoe")
    kuhn = interpreter.load("kuhn-poker")
    fastest, reference = fastest_engine(interpreter)
    functions = {"reference": lambda: integer_board_playout(rng),
                 "bitboard": lambda: plain_playout(rng),
                 "tictactoe": lambda: api_playout(tictactoe, rng, next(seeds), fastest),
                 "kuhn": lambda: api_playout(kuhn, rng, next(seeds), fastest),
                 "tictactoe_reference": lambda: api_playout(tictactoe, rng, next(seeds), reference),
                 "kuhn_reference": lambda: api_playout(kuhn, rng, next(seeds), reference)}
    functions.update(openspiel_playouts(rng))
    for fn in functions.values():  # warm up
        fn()
    return interleaved(functions, "reference", rounds, seconds, strict_reference="bitboard")


def measure_real_games(interpreter, play_game, rounds, seconds):
    """Random games/s of the real bundled games, interleaved with the hand-written reference."""
    rng = random.Random(2)
    functions = {"reference": lambda: integer_board_playout(rng)}
    for name, players in REAL_GAMES:
        ruleset = interpreter.load(name)
        seeds = iter(range(10 ** 9))
        functions[name] = (lambda ruleset=ruleset, players=players, seeds=seeds:
                           play_game(ruleset, players, next(seeds), ["random"]))
    return interleaved(functions, "reference", rounds, seconds)


def davos_decision_states(interpreter, count):
    """Up to `count` states of a random 4-player Davos game where the mover has a real choice."""
    ruleset = interpreter.load("davos")
    rng = random.Random(3)
    state = ruleset.new_game(4, seed=3)
    found = []
    while not state.is_terminal and len(found) < count:
        legal = state.legal_actions()
        if len(legal) > 1:
            found.append((state.copy(), legal[0].player))
        state.apply(legal[rng.randrange(len(legal))])
    return found


def measure_mcts(interpreter, rounds, seconds):
    """MCTS (`mcts:40:10`) iterations/s on Davos decisions, interleaved with the reference."""
    from interpreter.agents import make_agent
    agent = make_agent("mcts:40:10", seed=5)
    states = davos_decision_states(interpreter, 12)
    position = [0]

    def decide():
        state, player = states[position[0] % len(states)]
        position[0] += 1
        agent.act(state, player)

    rng = random.Random(4)
    functions = {"reference": lambda: integer_board_playout(rng), "mcts": decide}
    return interleaved(functions, "reference", rounds, seconds, units={"mcts": agent.iterations})


# the MCTS study of the `--jobs` target: one seat searches (`mcts:40:10`), turn about
MCTS_STUDY_AGENTS = ("--agents", "mcts:40:10,random,random,random", "--rotate")


def simulate_arguments(games, jobs, per_game, agents=()):
    return ["simulate", "davos", "--players", "4", "--games", str(games), "--seed", "7", "--json",
            "--jobs", str(jobs), "--per-game", per_game, *agents]


def simulate_command(games, jobs, per_game, agents=()):
    return [sys.executable, "-m", "interpreter"] + simulate_arguments(games, jobs, per_game, agents)


# a child that runs the command through `interpreter.cli.run` and then writes its own peak RSS
# (VmHWM of /proc/self/status: this process's memory only; wait4's ru_maxrss would also count
# the bench process it was forked from, whose memory the exec'd child inherits as its high mark)
PEAK_RSS_CHILD = """import sys
from interpreter.cli import run
code = run(sys.argv[2:])
try:
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM"))
except OSError:
    peak = ""
with open(sys.argv[1], "w") as out:
    out.write(peak)
sys.exit(code)
"""


def child_environment(root):
    environment = dict(os.environ, PYTHONPATH=root, RULEBOOK_CACHE="0")
    return environment


def run_child(command, root):
    """Run a child process in `root`; returns (exit code, wall seconds, CPU seconds, peak RSS in
    MB) from os.wait4: that child's own usage, CPU of the workers it waited for included (the
    RSS figure also holds the bench process's own at the fork: see PEAK_RSS_CHILD)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=root, env=child_environment(root),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    kilobytes = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss / 1024
    return child.returncode, elapsed, usage.ru_utime + usage.ru_stime, kilobytes / 1024


def measure_jobs(root, games, rounds, agents=()):
    """`simulate --jobs 2` against `--jobs 1` on Davos 4p (random agents, or `agents`), over
    interleaved pairs of runs.
    The machine's two cores are shared with other work, so the wall-clock speed-up says more
    about the load than about the pool. The CPU-time figure is what two free cores would give:
    the --jobs 1 run's CPU seconds against the serial start-up (CPU of a 1-game run) plus half
    of the rest of the --jobs 2 run's CPU seconds (parent and both workers: the pool's overhead
    counts, an uneven split of the games between the workers does not). The start-up is a
    1-game run of random agents whatever `agents` are: imports, loading and checking the rules.
    Also whether the per-game results are identical."""
    wall_speedups, cpu_speedups, identical, failures = [], [], True, 0
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(rounds):
            outputs, wall, cpu = {}, {}, {}
            code, _, start_up, _ = run_child(simulate_command(1, 1, os.path.join(folder, "start.jsonl")), root)
            failures += code != 0
            for jobs in (1, 2):
                outputs[jobs] = os.path.join(folder, f"{round_}-{jobs}.jsonl")
                code, wall[jobs], cpu[jobs], _ = run_child(simulate_command(games, jobs, outputs[jobs], agents), root)
                failures += code != 0
            wall_speedups.append(wall[1] / wall[2])
            cpu_speedups.append(cpu[1] / (start_up + max(cpu[2] - start_up, 0) / 2))
            with open(outputs[1]) as one, open(outputs[2]) as two:
                identical = identical and one.read() == two.read()
    return {"speedup": median(wall_speedups), "cpu_speedup": median(cpu_speedups), "games": games,
            "agents": " ".join(agents), "load": os.getloadavg()[0], "identical": identical and not failures,
            "failures": failures}


def measure_memory(root, games):
    """Peak RSS (MB) of one `simulate davos --games N --jobs 1` child process (its VmHWM)."""
    with tempfile.TemporaryDirectory() as folder:
        peak_file = os.path.join(folder, "peak")
        command = [sys.executable, "-c", PEAK_RSS_CHILD, peak_file] + simulate_arguments(
            games, 1, os.path.join(folder, "games.jsonl"))
        code, _, _, megabytes = run_child(command, root)
        try:
            with open(peak_file) as peak:
                megabytes = int(peak.read().strip()) / 1024
        except (OSError, ValueError):  # no /proc, or the command failed: wait4's figure
            pass
    return {"peak_rss_mb": megabytes, "exit_code": code, "games": games}


PLANS = {  # rounds and seconds per burst, games for simulate
    "quick": {"rounds": 5, "seconds": 0.12, "real_seconds": 0.25, "mcts_seconds": 0.3,
              "jobs_games": 100, "jobs_rounds": 1, "study_games": None, "mcts_study_games": None,
              "memory_games": 100},
    "full": {"rounds": 9, "seconds": 0.3, "real_seconds": 0.8, "mcts_seconds": 0.8,
             "jobs_games": 300, "jobs_rounds": 3, "study_games": 1000, "mcts_study_games": 12,
             "memory_games": 1000},
}


def measure(root, quick, count_instructions=False):
    """Every measurement on the tree at `root`; a measurement that fails is recorded, not fatal.
    `count_instructions`: also the 1000-game `--jobs` study in instructions (full run, valgrind
    installed; ~5 min: done for the tree measured now, not for the baseline). It is shown beside
    the CPU-time figure, which carries the target: the start-up's instructions run slower than
    the games' (a new process: cold caches, page faults, files read), so the count reads high."""
    plan = PLANS["quick" if quick else "full"]
    interpreter, play_game = import_interpreter(root)
    counted = count_instructions and plan["study_games"] and instructions.available()
    steps = {
        "peers": lambda: measure_tictactoe_and_peers(interpreter, plan["rounds"], plan["seconds"]),
        "games": lambda: measure_real_games(interpreter, play_game, plan["rounds"], plan["real_seconds"]),
        "mcts": lambda: measure_mcts(interpreter, plan["rounds"], plan["mcts_seconds"]),
        # a short run (300 random games, ~1 s of games): its start-up does not split, so it is
        # shown without a target (docs/performance.md, "The `--jobs 2` target")
        "jobs": lambda: measure_jobs(root, plan["jobs_games"], plan["jobs_rounds"]),
        # the target, on studies (full run only): 1000 random games (the size of the memory
        # target's study), and an MCTS study (one seat searching, turn about)
        "jobs_study": lambda: (measure_jobs(root, plan["study_games"], plan["jobs_rounds"])
                               if plan["study_games"] else {"skipped": "quick run"}),
        "jobs_mcts": lambda: (measure_jobs(root, plan["mcts_study_games"], plan["jobs_rounds"], MCTS_STUDY_AGENTS)
                              if plan["mcts_study_games"] else {"skipped": "quick run"}),
        # the 1000-game study again, in instructions (instructions.py): free of the host's noise
        "jobs_instructions": lambda: (instructions.jobs_study(root, plan["study_games"]) if counted
                                      else {"skipped": "not counted"}),
        "memory": lambda: measure_memory(root, plan["memory_games"]),
    }
    results = {}
    for name, step in steps.items():
        try:
            results[name] = step()
        except Exception as error:  # noqa: BLE001 - a benchmark reports, it does not stop
            results[name] = {"error": f"{type(error).__name__}: {error}"}
    return results


def lookup(results, section, name, field):
    value = results.get(section, {}).get(name) if name else results.get(section)
    if isinstance(value, dict):
        return value.get(field)
    return None


def inverse(value):
    return 1 / value if value else None


# the `--jobs` rows: the short run is shown for what it is, the target is judged on the studies
JOBS_ROWS = (("jobs", "note:a short run: start-up-bound, no target"), ("jobs_study", "ratio>=1.8"),
             ("jobs_mcts", "ratio>=1.8"))


def metrics(results):
    """The figures compared between trees: (label, value, target kind). Speeds are ratios to
    the hand-written reference of the same run, so they compare across runs and trees."""
    rows = [("hand-written tic-tac-toe playouts/s (int board)", lookup(results, "peers", "reference", "rate"), None),
            ("  bitboard version playouts/s", lookup(results, "peers", "bitboard", "rate"), None),
            ("tic-tac-toe API / hand-written (int board)", lookup(results, "peers", "tictactoe", "ratio"),
             "ratio>=0.2"),
            ("  stricter: API / bitboard version", lookup(results, "peers", "tictactoe", "strict_ratio"), None),
            ("tic-tac-toe ours / OpenSpiel py",
             _divide(lookup(results, "peers", "tictactoe", "ratio"),
                     lookup(results, "peers", "openspiel_tictactoe", "ratio")), "ratio>1"),
            ("Kuhn poker ours / OpenSpiel py",
             _divide(lookup(results, "peers", "kuhn", "ratio"),
                     lookup(results, "peers", "openspiel_kuhn", "ratio")), "ratio>1"),
            # the rows above time the compiled engine (on a tree that has it); these the reference
            ("  reference engine: tic-tac-toe API / int board", lookup(results, "peers", "tictactoe_reference", "ratio"),
             None),
            ("  reference engine: tic-tac-toe / OpenSpiel py",
             _divide(lookup(results, "peers", "tictactoe_reference", "ratio"),
                     lookup(results, "peers", "openspiel_tictactoe", "ratio")), None),
            ("  reference engine: Kuhn poker / OpenSpiel py",
             _divide(lookup(results, "peers", "kuhn_reference", "ratio"),
                     lookup(results, "peers", "openspiel_kuhn", "ratio")), None)]
    for name, players in REAL_GAMES:
        rows.append((f"{name} {players}p games/s / hand-written",
                     lookup(results, "games", name, "ratio"), "x1.5"))
        rows.append(("  games/s (raw, noisy)", lookup(results, "games", name, "rate"), None))
    rows.append(("davos mcts:40:10 iterations/s / hand-written", lookup(results, "mcts", "mcts", "ratio"), "x1.5"))
    rows.append(("  iterations/s (raw, noisy)", lookup(results, "mcts", "mcts", "rate"), None))
    counted = lookup(results, "jobs_instructions", None, "instruction_speedup")
    for section, kind in JOBS_ROWS:
        if "skipped" in results.get(section, {"skipped": "not measured"}):
            continue  # a quick run (both trees of a run follow the same plan)
        games = lookup(results, section, None, "games")
        what = f", {games}{' MCTS' if lookup(results, section, None, 'agents') else ''} games" if games else ""
        rows.append((f"simulate --jobs 2 / --jobs 1 (davos, CPU time{what})",
                     lookup(results, section, None, "cpu_speedup"), kind))
        if section == "jobs_study" and counted is not None:
            rows.append((f"simulate --jobs 2 / --jobs 1 (davos, instructions{what})", counted,
                         "note:the work's split, free of the host's noise; reads high (see docs/performance.md)"))
            rows.append(("  start-up / games / pool's share, G instructions", None, _counted_note(results)))
        rows.append(("  wall clock on shared cores (load avg below)", lookup(results, section, None, "speedup"), None))
        rows.append(("  load average (1 min) at the end", lookup(results, section, None, "load"), None))
        rows.append(("  identical per-game results", lookup(results, section, None, "identical"), None))
    memory_games = lookup(results, "memory", None, "games")
    rows.append((f"peak RSS MB, davos simulate {memory_games} games",
                 lookup(results, "memory", None, "peak_rss_mb"), "not above"))
    return rows


def _counted_note(results):
    """'note:S / G / P' of the counted study: the start-up, the games and the pool's share."""
    found = results.get("jobs_instructions", {})
    start_up, jobs_one, jobs_two = (found.get(name) for name in ("start_up", "jobs_1", "jobs_2"))
    if None in (start_up, jobs_one, jobs_two):
        return None
    return (f"note:{start_up / 1e9:.3f} / {(jobs_one - start_up) / 1e9:.3f} / {(jobs_two - jobs_one) / 1e9:+.3f}; "
            f"identical: {'yes' if found.get('identical') else 'NO'}")


def _divide(numerator, denominator):
    return numerator / denominator if numerator is not None and denominator else None


def verdict(kind, baseline, now):
    """'met' / 'not met' for an issue-15 must-target, '' when it has none or a figure is missing."""
    if kind is not None and kind.startswith("note:"):
        return kind[5:]
    if kind is None or now is None:
        return ""
    if kind.startswith("ratio"):
        operator, bound = (">=", kind[7:]) if ">=" in kind else (">", kind[6:])
        met = now >= float(bound) if operator == ">=" else now > float(bound)
        return f"must {operator}{bound}: {'met' if met else 'NOT MET'}"
    if baseline is None:
        return ""
    if kind == "x1.5":
        return f"must >=1.5x baseline: {'met' if now >= 1.5 * baseline else 'NOT MET'}"
    return f"must not exceed baseline: {'met' if now <= baseline else 'NOT MET'}"


def show(value):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def table(baseline_results, now_results, baseline_label):
    """The printed comparison: metric | baseline | now | now/baseline | target."""
    now_rows = metrics(now_results)
    # matched by label: a section one tree skipped or lacks gives no row there (sub-rows such as
    # "  identical per-game results" repeat, so their labels count in order)
    baseline_values = _by_label(metrics(baseline_results)) if baseline_results else {}
    lines = [f"{'metric':48s} | {'baseline ' + baseline_label:>16s} | {'now':>10s} | {'now/baseline':>12s} | target"]
    lines.append("-" * len(lines[0]) + "-" * 24)
    for key, (label, now, kind) in zip(_by_label(now_rows), now_rows):
        before = baseline_values.get(key)
        change = None if isinstance(now, bool) else _divide(now, before)
        lines.append(f"{label:48s} | {show(before):>16s} | {show(now):>10s} | {show(change):>12s} | "
                     f"{verdict(kind, before, now)}")
    return lines


def _by_label(rows):
    """{(label, which time it recurs): value} of metric rows, in their order."""
    seen, out = {}, {}
    for label, value, _ in rows:
        seen[label] = seen.get(label, 0) + 1
        out[(label, seen[label])] = value
    return out


def errors(results):
    return [f"{section}: {value['error']}" for section, value in results.items()
            if isinstance(value, dict) and "error" in value]


def measure_baseline(revision, quick):
    """Check `revision` out into a temporary git worktree, measure it in a subprocess with that
    tree first on sys.path, and remove the worktree again."""
    folder = tempfile.mkdtemp(prefix="rulebook-baseline-")
    tree = os.path.join(folder, "tree")
    subprocess.run(["git", "-C", REPO, "worktree", "add", "--detach", "--quiet", tree, revision], check=True)
    try:
        command = [sys.executable, os.path.abspath(__file__), "--measure-json", "--root", tree]
        if quick:
            command.append("--quick")
        finished = subprocess.run(command, cwd=tree, env=child_environment(tree),
                                  capture_output=True, text=True)
        if finished.returncode != 0:
            return {"baseline": {"error": finished.stderr.strip()[-500:]}}
        return json.loads(finished.stdout)
    finally:
        subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", tree], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short bursts and small simulate runs (~1 min)")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, metavar="REV",
                        help=f"commit to compare with (default {DEFAULT_BASELINE})")
    parser.add_argument("--no-baseline", action="store_true", help="measure this tree only")
    parser.add_argument("--no-instructions", action="store_true",
                        help="skip the --jobs study counted in instructions (callgrind, ~5 min)")
    parser.add_argument("--measure-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", default=REPO, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ["RULEBOOK_CACHE"] = "0"
    if args.measure_json:
        print(json.dumps(measure(args.root, args.quick)))
        return 0
    baseline_results = None if args.no_baseline else measure_baseline(args.baseline, args.quick)
    now_results = measure(args.root, args.quick, count_instructions=not args.no_instructions)
    print(f"issue 15 speed targets ({'quick' if args.quick else 'full'} run; speeds as ratios to the "
          "hand-written integer-board tic-tac-toe of the same run, medians of interleaved bursts)")
    for line in table(baseline_results, now_results, "" if args.no_baseline else args.baseline):
        print(line)
    for label, results in (("baseline", baseline_results or {}), ("now", now_results)):
        for problem in errors(results):
            print(f"{label} {problem}")
    print("targets are informational: nothing here fails on a figure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
