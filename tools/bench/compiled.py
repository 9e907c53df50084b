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
- `--real`: the real games (davos 4p, deep-state 3p, global-mogul 3p), random games through
  `apply_id`, compiled games/s divided by the reference engine's: CPU seconds of the same
  seeded games (the same moves: the games are identical) on each engine, the engines
  alternating within each round (which goes first alternates too); one ratio per round.

Run: .venv/bin/python tools/bench/compiled.py [--rounds 5] [--seconds 0.4] [--real [--games 4]]
"""
import argparse
import gc
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

from games import interleaved, median, openspiel_playouts, plain_playout  # noqa: E402

from interpreter import load  # noqa: E402

REAL_GAMES = (("davos", 4), ("deep-state", 3), ("global-mogul", 3))
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


def functions(rng):
    seeds = iter(range(10 ** 9))
    tictactoe, kuhn = load("tictactoe"), load("kuhn-poker")
    found = {"integer_board": lambda: integer_board_playout(rng), "bitboard": lambda: plain_playout(rng)}
    for engine in ("compiled", "reference"):
        found[f"tictactoe_{engine}"] = lambda engine=engine: api_playout(tictactoe, engine, rng, next(seeds))
        found[f"kuhn_{engine}"] = lambda engine=engine: api_playout(kuhn, engine, rng, next(seeds))
        found[f"tictactoe_ids_{engine}"] = lambda engine=engine: ids_playout(tictactoe, engine, rng, next(seeds))
    found.update(openspiel_playouts(rng))
    return found


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
    if "openspiel_kuhn" in results:
        for engine in ("compiled", "reference"):
            rows.append((f"tic-tac-toe ({engine}) / OpenSpiel py", over(f"tictactoe_{engine}", "openspiel_tictactoe"),
                         "must > 1" if engine == "compiled" else ""))
            rows.append((f"Kuhn poker ({engine}) / OpenSpiel py", over(f"kuhn_{engine}", "openspiel_kuhn"),
                         "must > 1" if engine == "compiled" else ""))
    return rows


def random_game(ruleset, players, engine, seed):
    """One random game through apply_id (the moves drawn from `seed`: the same on both engines)."""
    state = ruleset.new_game(players, seed=seed, engine=engine)
    rng = random.Random(seed)
    while not state.is_terminal:
        state.apply_id(rng.randrange(len(state.legal_action_ids())))
    return state


def cpu_seconds(ruleset, players, engine, seeds):
    """CPU seconds of the random games of `seeds`, and their final hashes. A full garbage
    collection first: one landing inside a batch (~40-70 ms, the size of the whole process's
    heap, not of the engine's work) would otherwise decide the round it falls in."""
    gc.collect()
    start = time.process_time()
    finals = [random_game(ruleset, players, engine, seed) for seed in seeds]
    elapsed = time.process_time() - start
    return elapsed, [state.hash() for state in finals]


def real_game_ratios(rounds, games):
    """{(name, players): [compiled games/s / reference games/s, one per round]}."""
    found = {}
    for name, players in REAL_GAMES:
        ruleset = load(name)
        random_game(ruleset, players, "compiled", 10 ** 6)  # warm up (and generate the module)
        ratios = []
        for round_ in range(rounds):
            seeds = range(round_ * games, (round_ + 1) * games)
            order = ("reference", "compiled") if round_ % 2 == 0 else ("compiled", "reference")
            timed = {engine: cpu_seconds(ruleset, players, engine, seeds) for engine in order}
            if timed["reference"][1] != timed["compiled"][1]:
                raise SystemExit(f"{name}: the compiled games differ from the reference games")
            ratios.append(timed["reference"][0] / timed["compiled"][0])
        found[(name, players)] = ratios
    return found


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
    parser.add_argument("--real", action="store_true", help="only the real games, compiled / reference engine")
    parser.add_argument("--games", type=int, default=4, help="seeded games per engine per round (--real)")
    args = parser.parse_args(argv)
    if args.real:
        print(f"real games, compiled / reference engine (random games via apply_id, CPU time of "
              f"{args.games} seeded games per engine, {args.rounds} rounds)")
        for (name, players), ratios in real_game_ratios(args.rounds, args.games).items():
            rounds = " ".join(f"{ratio:.2f}" for ratio in ratios)
            print(f"  {name + ' ' + str(players) + 'p':18} median {median(ratios):.2f}   rounds: {rounds}")
        return
    rng = random.Random(1)
    timed = functions(rng)
    for fn in timed.values():  # warm up (and generate the game modules)
        fn()
    results = interleaved(timed, "bitboard", args.rounds, args.seconds)
    print(f"rates (noisy; {args.rounds} interleaved rounds of {args.seconds}s bursts)")
    for name, entry in results.items():
        print(f"  {name:28} {entry['rate']:12,.0f} /s")
    print("ratios (median over rounds of the per-round ratios)")
    for label, value, target in ratio_lines(results):
        print(f"  {label:48} {value:8.3f}  {verdict(value, target)}")


if __name__ == "__main__":
    main()
