"""MCTS iterations per CPU second (issue 9 item 3, issue 15's MCTS target), several trees
compared in one run: each tree is measured in its own subprocess (that tree first on sys.path),
the trees taking turns round after round, and the median per tree is printed with its ratio to
the first tree. Decisions are taken from a seeded random game: the first ones (as games.py's
`davos_decision_states`) or spread over the whole game (`--spread`), where determinizing a
world replays a long history.

`--repeat K` goes K times round the decisions with one agent, as games.py's `measure_mcts` does
(the worlds kept from the last round's later decisions then meet earlier states).

`--game N` measures instead every decision of seat 0 along N whole seeded random games, the
agent deciding at each as `simulate` has it play (its worlds kept from one decision to the
next, drawn anew where the game contradicts them); the random move is played, so every tree
meets the same states.

Run: /work/venv/bin/python tools/bench/mcts.py [--ruleset davos --players 4] [--spread | --game N]
         [--decisions 12] [--repeat 1] [--rounds 3] [--agent mcts:40:10] [TREE ...]
TREE is a directory holding an `interpreter` package (default: this tree); export a commit with
`git archive REV | tar -x -C DIR`.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def decision_states(interpreter, name, players, count, spread):
    """Up to `count` (state, player) of a random seeded game where the mover has a real choice:
    the first ones, or (`spread`) evenly spaced over the whole game."""
    ruleset = interpreter.load(name)
    rng = random.Random(3)
    state = ruleset.new_game(players, seed=3)
    found = []
    while not state.is_terminal and (spread or len(found) < count):
        legal = state.legal_actions()
        if len(legal) > 1:
            found.append((state.copy(), legal[0].player))
        state.apply(legal[rng.randrange(len(legal))])
    if spread and len(found) > count:
        found = [found[index * len(found) // count] for index in range(count)]
    return found


def measure_here(args):
    """Iterations per CPU second of the agent over the decision states, in this process."""
    import interpreter
    from interpreter.agents import make_agent
    if args.game:
        return measure_game(interpreter, args)
    states = decision_states(interpreter, args.ruleset, args.players, args.decisions, args.spread)
    agent = make_agent(args.agent, seed=5)
    start = time.process_time()
    for _ in range(args.repeat):
        for state, player in states:
            agent.act(state, player)
    seconds = time.process_time() - start
    return {"iterations_per_s": agent.iterations * len(states) * args.repeat / seconds, "cpu_s": seconds,
            "tree": os.path.dirname(os.path.dirname(interpreter.__file__))}


def measure_game(interpreter, args):
    """Iterations per CPU second of the agent deciding for seat 0 at every one of its decisions
    in turn along whole seeded random games (as in `simulate`: its worlds are kept from one
    decision to the next and drawn anew where the game contradicts them). The move played is
    the random one, not the agent's, so every tree meets the same states."""
    from interpreter.agents import make_agent
    ruleset = interpreter.load(args.ruleset)
    seconds = iterations = 0.0
    for game in range(args.game):
        agent = make_agent(args.agent, seed=5 + game)
        rng = random.Random(game)
        state = ruleset.new_game(args.players, seed=100 + game)
        while not state.is_terminal:
            legal = state.legal_actions()
            if legal[0].player == 0 and len(legal) > 1:
                start = time.process_time()
                agent.act(state, 0)
                seconds += time.process_time() - start
                iterations += agent.iterations
            state.apply(legal[rng.randrange(len(legal))])
    return {"iterations_per_s": iterations / seconds, "cpu_s": seconds,
            "tree": os.path.dirname(os.path.dirname(interpreter.__file__))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", default=[REPO])
    parser.add_argument("--ruleset", default="davos")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--decisions", type=int, default=12)
    parser.add_argument("--spread", action="store_true", help="decisions spread over a whole game")
    parser.add_argument("--repeat", type=int, default=1, help="times round the decisions, one agent")
    parser.add_argument("--game", type=int, default=0, metavar="GAMES",
                        help="instead: every decision of seat 0 along GAMES whole random games")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--agent", default="mcts:40:10")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure_here(args)))
        return 0
    options = ["--ruleset", args.ruleset, "--players", str(args.players), "--decisions", str(args.decisions),
               "--agent", args.agent, "--game", str(args.game), "--repeat", str(args.repeat)] + (["--spread"] if args.spread else [])
    rates: dict = {tree: [] for tree in args.trees}
    for _ in range(args.rounds):
        for tree in args.trees:
            command = [sys.executable, os.path.abspath(__file__), "--child"] + options
            environment = dict(os.environ, PYTHONPATH=os.path.abspath(tree))  # that tree's interpreter first
            finished = subprocess.run(command, capture_output=True, text=True, check=True, env=environment)
            rates[tree].append(json.loads(finished.stdout.strip().splitlines()[-1])["iterations_per_s"])
    first = statistics.median(rates[args.trees[0]])
    what = (f"every decision of seat 0 along {args.game} random games" if args.game else
            f"{args.decisions} decisions{' spread over a game' if args.spread else ''}"
            f"{f', {args.repeat} times round' if args.repeat > 1 else ''}")
    print(f"{args.agent} on {args.ruleset} {args.players}p, {what}, {args.rounds} interleaved rounds (CPU time)")
    for tree, values in rates.items():
        middle = statistics.median(values)
        print(f"{tree:40s} {middle:8.1f} iterations/s  {middle / first:5.2f}x  "
              f"({', '.join(f'{value:.1f}' for value in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
