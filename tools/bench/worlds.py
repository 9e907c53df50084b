"""How often `determinize` draws a world by replaying the history (`State.replayed`) rather
than falling back to re-dealing the present hidden items, and the CPU it costs (issue 9 item 3).

Random seeded games (the moves drawn by random.Random(seed)), one world per player every
`--every` moves (the world's seed is the step number); prints the worlds replayed out of all
and the CPU seconds spent in `determinize`.

Run: /work/venv/bin/python tools/bench/worlds.py [--ruleset davos --players 4] [--seeds 8] [--every 10]
"""
import argparse
import os
import random
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)  # this tree's interpreter, not the installed one


def measure(name: str, players: int, seeds: int, every: int) -> dict:
    """{"worlds", "replayed", "cpu_s"} over `seeds` random games of `name`."""
    import interpreter

    ruleset = interpreter.load(name)
    worlds = replayed = 0
    cpu = 0.0
    for seed in range(seeds):
        rng = random.Random(seed)
        state = ruleset.new_game(players, seed=seed)
        while not state.is_terminal:
            if state.steps and state.steps % every == 0:
                for player in range(players):
                    start = time.process_time()
                    world = state.determinize(player, state.steps)
                    cpu += time.process_time() - start
                    worlds += 1
                    replayed += world.replayed
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    return {"worlds": worlds, "replayed": replayed, "cpu_s": cpu}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="davos")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--every", type=int, default=10)
    args = parser.parse_args(argv)
    result = measure(args.ruleset, args.players, args.seeds, args.every)
    share = result["replayed"] / result["worlds"] if result["worlds"] else 0.0
    import interpreter
    print(os.path.dirname(os.path.dirname(interpreter.__file__)))
    print(f"{args.ruleset} {args.players}p, seeds 0-{args.seeds - 1}, a world per player every {args.every} moves: "
          f"{result['replayed']} of {result['worlds']} replayed ({share:.0%}), "
          f"{result['worlds'] - result['replayed']} re-dealt, {result['cpu_s']:.1f} CPU s in determinize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
