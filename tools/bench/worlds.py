"""How often `determinize` draws a world by replaying the history (`State.replayed`) rather
than falling back to re-dealing the present hidden items, and the CPU it costs (issue 9 item 3).

Random seeded games (the moves drawn by random.Random(seed)), one world per player every
`--every` moves (the world's seed is the step number); prints the worlds replayed out of all,
the worlds re-dealt, the CPU seconds spent in `determinize`, and how many of the replayed
worlds the search (`world_search.search_world`, after the repairs gave up) found, with its CPU.

Run: /work/venv/bin/python tools/bench/worlds.py [--ruleset davos --players 4] [--seeds 8] [--every 10]
"""
import argparse
import os
import random
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)  # this tree's interpreter, not the installed one


def _count_searches(world_search) -> dict:
    """Wrap `search_world` to count its calls, the worlds it found and its CPU seconds."""
    counts = {"searched": 0, "found": 0, "search_cpu_s": 0.0}
    search_world = world_search.search_world

    def counted(*args, **kwargs):
        start = time.process_time()
        world = search_world(*args, **kwargs)
        counts["search_cpu_s"] += time.process_time() - start
        counts["searched"] += 1
        counts["found"] += world is not None
        return world

    world_search.search_world = counted
    return counts


def measure(name: str, players: int, seeds: int, every: int) -> dict:
    """{"worlds", "replayed", "cpu_s", "searched", "found", "search_cpu_s"} over `seeds`
    random games of `name`."""
    import interpreter
    from interpreter.engine import world_search

    counts = _count_searches(world_search)
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
    return {"worlds": worlds, "replayed": replayed, "cpu_s": cpu, **counts}


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
    print(f"search (after the repairs gave up): {result['found']} of {result['searched']} found, "
          f"{result['search_cpu_s']:.2f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
