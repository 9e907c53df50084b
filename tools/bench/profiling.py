"""Where the engine's time goes (issue 15): cProfile of seeded random games of one bundled
ruleset (or tic-tac-toe playouts through the API, or MCTS decisions on Davos), the top
functions by own time and by cumulative time. A tool for finding the next thing to speed up;
speeds themselves are compared in games.py.

Run: .venv/bin/python tools/bench/profiling.py davos --players 4 --games 20 [--top 30] [--warm-up 1]
     .venv/bin/python tools/bench/profiling.py global-mogul --players 3 --games 40 --no-profile --root TREE
     .venv/bin/python tools/bench/profiling.py tictactoe --games 2000 [--api]
     .venv/bin/python tools/bench/profiling.py davos --players 4 --mcts 6
"""
import argparse
import cProfile
import os
import pstats
import random
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def random_games(ruleset, players, games):
    from interpreter.play import play_game
    for seed in range(games):
        play_game(ruleset, players, seed, ["random"])


def api_playouts(ruleset, players, games):
    """Random games through the plain API (legal_actions, apply), as games.py's api_playout."""
    rng = random.Random(1)
    for seed in range(games):
        state = ruleset.new_game(players, seed=seed)
        while not state.is_terminal:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])


def mcts_decisions(ruleset, players, decisions):
    from interpreter.agents import make_agent
    agent = make_agent("mcts:40:10", seed=5)
    state = ruleset.new_game(players, seed=3)
    rng = random.Random(3)
    done = 0
    while not state.is_terminal and done < decisions:
        legal = state.legal_actions()
        if len(legal) > 1:
            agent.act(state, legal[0].player)
            done += 1
        state.apply(legal[rng.randrange(len(legal))])


def load_from(root: str, name: str, players=None) -> tuple:
    """(the bundled ruleset `name` loaded by the interpreter of the tree `root`, its player
    count: `players`, or the ruleset's smallest)."""
    sys.path.insert(0, root)
    import interpreter
    ruleset = interpreter.load(name)
    return ruleset, players or ruleset.players[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--mcts", type=int, default=0, metavar="DECISIONS", help="profile MCTS decisions instead")
    parser.add_argument("--api", action="store_true", help="play through legal_actions/apply, not play_game")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-profile", action="store_true", help="only the CPU seconds, no profiler")
    parser.add_argument("--warm-up", type=int, default=0, metavar="GAMES",
                        help="play this many games first, untimed and unprofiled (compiles what play compiles lazily)")
    parser.add_argument("--root", default=REPO, help="the tree whose interpreter is measured (default: this one)")
    args = parser.parse_args(argv)
    ruleset, players = load_from(args.root, args.ruleset, args.players)
    if args.mcts:
        work = lambda: mcts_decisions(ruleset, players, args.mcts)  # noqa: E731
    elif args.api:
        work = lambda: api_playouts(ruleset, players, args.games)  # noqa: E731
    else:
        work = lambda: random_games(ruleset, players, args.games)  # noqa: E731
    if args.warm_up:
        random_games(ruleset, players, args.warm_up)
    if args.no_profile:
        start = time.process_time()
        work()
        print(f"{time.process_time() - start:.3f} s CPU")
        return 0
    profiler = cProfile.Profile()
    profiler.runcall(work)
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
