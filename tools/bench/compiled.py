"""The compiled game (interpreter/compiled/, issue 15) against its references, as ratios measured
in one run (interleaved bursts, median of the per-round ratios; never a timed assertion):

- tic-tac-toe random playouts through the API (new_game, legal_actions, apply) on
  engine="compiled" and on the reference engine, divided by two hand-written versions:
    integer board  the issue's definition: a list of 9 ints, empty cells listed each move,
                   every line checked with plain comparisons (no any())
    bitboard       tools/bench/games.py `plain_playout` (bitboards, swap-remove, only the lines
                   through the last move): ~2.5x faster than the integer board, stricter
  must >= 0.2 of the integer board, aim 0.33.
- tic-tac-toe and Kuhn poker games/s divided by OpenSpiel's pure-Python `python_tic_tac_toe` /
  `python_kuhn_poker` (chance sampled by probability), when open-spiel is installed: must > 1.
- the same playouts with `legal_action_ids()` / `apply_id()` (what agents and MCTS use).
- the real games (`--real`, default Davos 4p, Deep State 3p, Global Mogul 3p, Corporate Times
  4p): CPU seconds of the same seeded random games through `apply_id` on each engine, the
  engines alternating within each round; compiled / reference games/s per round, and the share
  of the compiled games' moves made by the generated code (a move the generated code does not
  make counts as handed over, or as made while the reference holds the game).
- with `--against TREE` (another checkout, e.g. main's), its compiled engine timed in the same
  rounds (its `interpreter` package imported under another name), and this tree's speed divided
  by that tree's for each compiled playout: a before/after of a change in one run.

Bursts are timed in this process's CPU time by default (`--clock wall` for elapsed time): on a
shared machine the other jobs then weigh on neither side of a ratio.

Instruction counts (the steadiest figure on a shared machine): `--playouts N [--game NAME]` plays
300 untimed warm-up playouts, then N (API, engine="compiled"; `--game integer_board` for the
hand-written one), and prints nothing; run it under `valgrind --tool=callgrind` with
PYTHONHASHSEED=0 for N and for 0, and divide the difference of the totals by N.

Run: .venv/bin/python tools/bench/compiled.py [--rounds 5] [--seconds 0.4] [--against TREE] [--clock cpu|wall]
     .venv/bin/python tools/bench/compiled.py --real [corporate-times@4 davos@4:big+mean ...] [--games 4]
     valgrind --tool=callgrind .venv/bin/python tools/bench/compiled.py --playouts 200 [--game kuhn-poker]
"""
import argparse
import gc
import importlib.util
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

from games import interleaved, median, openspiel_playouts, plain_playout  # noqa: E402

from interpreter import load  # noqa: E402

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def integer_board_playout(rng):
    """One random tic-tac-toe game on an integer board (0 empty, 1 X, 2 O), every line checked
    after each move with plain comparisons: the issue's "tightest plain-Python version"."""
    randrange = rng.randrange
    board = [0, 0, 0, 0, 0, 0, 0, 0, 0]
    player = 1
    for _ in range(9):
        empty = [cell for cell in range(9) if board[cell] == 0]
        board[empty[randrange(len(empty))]] = player
        for first, second, third in LINES:
            if board[first] == player and board[second] == player and board[third] == player:
                return player
        player = 3 - player
    return 0


def api_playout(ruleset, engine, rng, seed):
    """One random game through the public API."""
    state = ruleset.new_game(ruleset.players[0], seed=seed, engine=engine)
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state


def ids_playout(ruleset, engine, rng, seed):
    """One random game through the ids agents use (legal_action_ids, apply_id)."""
    state = ruleset.new_game(ruleset.players[0], seed=seed, engine=engine)
    while not state.is_terminal:
        state.apply_id(rng.randrange(len(state.legal_action_ids())))
    return state


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
COMPILED_PLAYOUTS = ("tictactoe_compiled", "kuhn_compiled", "tictactoe_ids_compiled", "kuhn_ids_compiled")


def functions(rng, against=None):
    """{name: playout}; with `against` (another tree's interpreter package) its compiled
    playouts too, named "<name>@against"."""
    seeds = iter(range(10 ** 9))
    trees = [("", load)] + ([("@against", against.load)] if against is not None else [])
    found = {"integer_board": lambda: integer_board_playout(rng), "bitboard": lambda: plain_playout(rng)}
    for suffix, load_ruleset in trees:
        tictactoe, kuhn = load_ruleset("tictactoe"), load_ruleset("kuhn-poker")
        for engine in ("compiled",) if suffix else ("compiled", "reference"):
            for game, ruleset in (("tictactoe", tictactoe), ("kuhn", kuhn)):
                found[f"{game}_{engine}{suffix}"] = \
                    lambda ruleset=ruleset, engine=engine: api_playout(ruleset, engine, rng, next(seeds))
                found[f"{game}_ids_{engine}{suffix}"] = \
                    lambda ruleset=ruleset, engine=engine: ids_playout(ruleset, engine, rng, next(seeds))
    found.update(openspiel_playouts(rng))
    return found


def import_tree(root):
    """The `interpreter` package of the checkout at `root`, imported as "interpreter_against"
    (its modules import each other relatively, so the two trees do not mix)."""
    folder = os.path.join(os.path.abspath(root), "interpreter")
    spec = importlib.util.spec_from_file_location("interpreter_against", os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    spec.loader.exec_module(package)
    return package


def ratio_lines(results):
    """(label, ratio, target) rows, each a ratio of two rates measured in the same rounds."""
    def over(name, reference):
        return results[name]["ratio"] / results[reference]["ratio"]

    rows = []
    for engine in ("compiled", "reference"):
        rows.append((f"tic-tac-toe API ({engine}) / integer board", over(f"tictactoe_{engine}", "integer_board"),
                     "must >= 0.2, aim 0.33" if engine == "compiled" else ""))
        rows.append((f"tic-tac-toe API ({engine}) / bitboard", over(f"tictactoe_{engine}", "bitboard"), ""))
        rows.append((f"tic-tac-toe ids ({engine}) / integer board", over(f"tictactoe_ids_{engine}", "integer_board"), ""))
    rows.append(("integer board / bitboard", over("integer_board", "bitboard"), ""))
    rows.append(("tic-tac-toe compiled / reference engine", over("tictactoe_compiled", "tictactoe_reference"), ""))
    rows.append(("Kuhn poker compiled / reference engine", over("kuhn_compiled", "kuhn_reference"), ""))
    rows.append(("Kuhn poker ids (compiled) / integer board", over("kuhn_ids_compiled", "integer_board"), ""))
    for name in COMPILED_PLAYOUTS:
        if f"{name}@against" in results:
            rows.append((f"{name}: this tree / --against tree", over(name, f"{name}@against"), ""))
    if "openspiel_kuhn" in results:
        for engine in ("compiled", "reference"):
            rows.append((f"tic-tac-toe ({engine}) / OpenSpiel py", over(f"tictactoe_{engine}", "openspiel_tictactoe"),
                         "must > 1" if engine == "compiled" else ""))
            rows.append((f"Kuhn poker ({engine}) / OpenSpiel py", over(f"kuhn_{engine}", "openspiel_kuhn"),
                         "must > 1" if engine == "compiled" else ""))
        rows.append(("Kuhn poker ids (compiled) / OpenSpiel py", over("kuhn_ids_compiled", "openspiel_kuhn"), ""))
    return rows


REAL_GAMES = ("davos@4", "deep-state@3", "global-mogul@3", "corporate-times@4")


def real_game(spec: str):
    """'NAME@PLAYERS[:module+module]' -> (ruleset, players)."""
    name, _, modules = spec.partition(":")
    name, _, players = name.partition("@")
    ruleset = load(name, modules=tuple(module for module in modules.split("+") if module))
    return ruleset, int(players) if players else ruleset.players[0]


def games_cpu_seconds(ruleset, players, engine, seeds) -> float:
    """CPU seconds of one random game per seed through apply_id (the moves drawn from the seed).
    A full garbage collection first: one landing inside a batch (~40-70 ms, the size of the whole
    process's heap, not of the engine's work) would otherwise decide the round it falls in."""
    gc.collect()
    start = time.process_time()
    for seed in seeds:
        state = ruleset.new_game(players, seed=seed, engine=engine)
        rng = random.Random(seed)
        while not state.is_terminal:
            state.apply_id(rng.randrange(len(state.legal_action_ids())))
    return time.process_time() - start


def move_shares(ruleset, players, seeds) -> str:
    """Which engine made the moves of the compiled games: the generated code, the reference
    after a hand-over, or the reference while it holds the game (a `choose` answered, ...)."""
    counts = {"generated": 0, "handed over": 0, "reference holds": 0}
    for seed in seeds:
        state = ruleset.new_game(players, seed=seed, engine="compiled")
        rng = random.Random(seed)
        while not state.is_terminal:
            held = state._ref is not None
            state.apply_id(rng.randrange(len(state.legal_action_ids())))
            by_reference = state._undo[-1][0] == "reference"  # (taken back at once or not)
            kind = "reference holds" if held else "handed over" if by_reference else "generated"
            counts[kind] += 1
    total = sum(counts.values()) or 1
    return ", ".join(f"{kind} {100 * count / total:.0f} %" for kind, count in counts.items())


def real_game_ratios(specs, rounds: int, games: int) -> None:
    """Print compiled / reference games/s of each real game, per round and the median."""
    print(f"real games: compiled / reference games/s (CPU seconds of {games} seeded games per engine, "
          f"{rounds} rounds, the engines alternating)")
    for spec in specs:
        ruleset, players = real_game(spec)
        seeds = range(games)
        games_cpu_seconds(ruleset, players, "compiled", seeds[:1])  # generates the game module
        ratios, seconds = [], {"reference": 0.0, "compiled": 0.0}
        for round_number in range(rounds):
            engines = ("reference", "compiled") if round_number % 2 == 0 else ("compiled", "reference")
            spent = {engine: games_cpu_seconds(ruleset, players, engine, seeds) for engine in engines}
            ratios.append(spent["reference"] / spent["compiled"])
            for engine in engines:
                seconds[engine] += spent[engine]
        per_round = " ".join(f"{ratio:.2f}" for ratio in ratios)
        rates = {engine: rounds * games / spent for engine, spent in seconds.items()}
        print(f"  {spec:28} {median(ratios):6.2f}  (rounds: {per_round}; reference "
              f"{rates['reference']:.1f} games/s, compiled {rates['compiled']:.1f})")
        print(f"  {'':28} moves: {move_shares(ruleset, players, seeds)}")


def play_untimed(game: str, playouts: int) -> None:
    """300 warm-up playouts of `game` (through the API on the compiled engine, or the integer
    board), then `playouts` more: the work an instruction count divides by."""
    rng = random.Random(1)
    ruleset = None if game == "integer_board" else load(game)
    for number in range(300 + playouts):
        if ruleset is None:
            integer_board_playout(rng)
        else:
            api_playout(ruleset, "compiled", rng, number)


def verdict(value, target):
    if not target:
        return ""
    bound = float(target.split()[2].rstrip(","))
    met = value >= bound if ">=" in target else value > bound
    return f"{target}: {'met' if met else 'NOT MET'}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.4, help="seconds per burst")
    parser.add_argument("--against", metavar="TREE", help="another checkout to time in the same rounds")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu", help="what a burst is timed by")
    parser.add_argument("--real", nargs="*", metavar="NAME@PLAYERS[:MODULES]",
                        help=f"time real games instead (default: {' '.join(REAL_GAMES)})")
    parser.add_argument("--games", type=int, default=4, help="seeded games per engine and round (--real)")
    parser.add_argument("--playouts", type=int, metavar="N", help="play N playouts after 300 warm-up ones, untimed")
    parser.add_argument("--game", default="tictactoe", help="the game of --playouts (or integer_board)")
    args = parser.parse_args(argv)
    if args.playouts is not None:
        play_untimed(args.game, args.playouts)
        return
    if args.real is not None:
        real_game_ratios(args.real or REAL_GAMES, args.rounds, args.games)
        return
    os.environ["RULEBOOK_CACHE"] = "0"
    rng = random.Random(1)
    timed = functions(rng, import_tree(args.against) if args.against else None)
    for fn in timed.values():  # warm up (and generate the game modules)
        fn()
    results = interleaved(timed, "bitboard", args.rounds, args.seconds, clock=CLOCKS[args.clock])
    print(f"rates (noisy; {args.rounds} interleaved rounds of {args.seconds}s bursts, {args.clock} time)")
    for name, entry in results.items():
        print(f"  {name:28} {entry['rate']:12,.0f} /s")
    print("ratios (median over rounds of the per-round ratios)")
    for label, value, target in ratio_lines(results):
        print(f"  {label:52} {value:8.3f}  {verdict(value, target)}")


if __name__ == "__main__":
    main()
