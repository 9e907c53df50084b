"""Find the deck and supply edge cases that random play reaches (a developer tool).

Plays seeded random games of a ruleset through the public API and watches every shared zone:
each list variable, each list inside a map variable (`deck.corp`), and each number that starts
above zero (a supply). It reports, per zone, in how many games the zone ran empty (or a supply
reached zero) while the game was still going, and in how many it grew back after being empty
(a reshuffle or a refill). A rule branch that random play reaches this way deserves a scenario.

    python tools/edge_cases.py global-mogul --module standard --players 4 --games 200

Per-player values (hands, cash) are not watched: they empty and refill in every game. The tool
knows no game: it reads only `state.vars`.
"""
import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import interpreter  # noqa: E402


def zones(variables, per_player_names):
    """Every watched zone of the state: name -> size (lists) or value (numbers)."""
    found = {}
    for name, value in variables.items():
        if name in per_player_names:
            continue
        if isinstance(value, list) and all(not isinstance(x, (list, dict)) for x in value):
            found[name] = ("list", len(value))
        elif isinstance(value, dict):
            for key, inner in value.items():
                if isinstance(inner, list) and all(not isinstance(x, (list, dict)) for x in inner):
                    found[f"{name}.{key}"] = ("list", len(inner))
        elif isinstance(value, int) and not isinstance(value, bool):
            found[name] = ("number", value)
    return found


def watch_game(ruleset, players, seed, per_player_names):
    """The events of one random game: {(zone, 'emptied' | 'refilled')}."""
    state = ruleset.new_game(players=players, seed=seed)
    chooser = random.Random(seed)
    start = zones(state.vars, per_player_names)
    watched = {z for z, (kind, size) in start.items() if size > 0}
    empty = set()
    events = set()
    while not state.is_terminal:
        state.apply(chooser.choice(state.legal_actions()))
        if state.is_terminal:
            break
        for zone, (kind, size) in zones(state.vars, per_player_names).items():
            if zone not in watched:
                if kind == "list" and size > 0:
                    watched.add(zone)
                continue
            if size <= 0 and zone not in empty:
                empty.add(zone)
                events.add((zone, "emptied"))
            elif size > 0 and zone in empty:
                empty.discard(zone)
                events.add((zone, "refilled"))
    return events


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset")
    parser.add_argument("--module", "-m", action="append", default=[])
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    ruleset = interpreter.load(args.ruleset, modules=args.module)
    per_player_names = {name for name, decl in ruleset.vars.items() if decl.per_player}
    counts = Counter()
    for seed in range(args.seed, args.seed + args.games):
        counts.update(watch_game(ruleset, args.players, seed, per_player_names))
    print(f"{args.ruleset} {args.module or '[base]'} {args.players} players, {args.games} games")
    for (zone, event), games in sorted(counts.items()):
        print(f"  {zone:30} {event:9} in {games} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
