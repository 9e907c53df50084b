"""Where the compiled game's legal-move listings spend their time (issue 15), and the most that
keeping some defines' values for one listing could buy. A tool for deciding what to build;
speeds themselves are compared in games.py.

  share  the CPU share of each phase's generated listing (`listed_P`, or `legal_P` when it
         has no `listed_P`) in seeded random games (`play_game`, random agents)
  parts  (`--parts`) the CPU of one listing and of each generated expression it calls, with
         the expression's text, in seeded random games
  bound  (`--memo d_a,d_b`) the positions where one listing was called in seeded games are
         kept (a deep copy of the vars, the player, the round); the listing is timed on them
         as it is and with the named defines' values kept for the listing (a dict by
         arguments, emptied when a listing starts, no work bound charged again: the most a
         real memo could buy), rounds alternating, median CPU seconds; the moves are checked
         equal first

Run: python tools/bench/listing.py deep-state --players 3 --games 30 [--root TREE]
     python tools/bench/listing.py deep-state --players 3 --games 30 --listing listed_0 --parts
     python tools/bench/listing.py deep-state --players 3 --games 6 --listing legal_2 --memo d_gcount
"""
import argparse
import copy
import os
import statistics
import sys
import time

from profiling import load_from

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def listings(module) -> dict:
    """{name: function} of the generated listings in a game module's namespace."""
    namespace = next(function for function in module.legal if function is not None).__globals__
    names = [name for name in namespace if name.startswith("listed_")]
    names += [name for name in namespace if name.startswith("legal_") and "listed_" + name[6:] not in namespace]
    return {name: namespace[name] for name in names if callable(namespace[name])}


def timed(function, spent: dict, name: str, counts=None):
    def wrapper(*args):
        start = time.process_time()
        try:
            return function(*args)
        finally:
            spent[name] = spent.get(name, 0.0) + time.process_time() - start
            if counts is not None:
                counts[name] = counts.get(name, 0) + 1
    return wrapper


def share(ruleset, players: int, games: int) -> None:
    from interpreter.compiled.module import game_module
    from interpreter.play import play_game
    play_game(ruleset, players, 10_000, ["random"])  # compiles what play compiles lazily
    module = game_module(ruleset)
    namespace = next(function for function in module.legal if function is not None).__globals__
    spent: dict = {}
    for name, function in listings(module).items():
        namespace[name] = timed(function, spent, name)
    start = time.process_time()
    for seed in range(games):
        play_game(ruleset, players, seed, ["random"])
    total = time.process_time() - start
    print(f"{games} games: {total:.3f} s CPU")
    for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {name:12} {seconds:.3f} s  {seconds / total:6.1%}")


def parts(ruleset, players: int, games: int, name: str) -> None:
    """The CPU of listing `name` and of each generated expression it calls, over seeded games
    (a clock read around every call: the small ones are over-counted)."""
    from interpreter.compiled.module import game_module
    from interpreter.play import play_game
    play_game(ruleset, players, 10_000, ["random"])
    namespace = next(function for function in game_module(ruleset).legal if function is not None).__globals__
    texts = {handle.name: handle.source for handle in ruleset.unit.pending}
    called = [called for called in namespace[name].__code__.co_names if called.startswith("_h")]
    spent: dict = {}
    counts: dict = {}
    plain = {called: namespace[called] for called in [name, *called]}
    for called, function in plain.items():
        namespace[called] = timed(function, spent, called, counts)
    try:
        for seed in range(games):
            play_game(ruleset, players, seed, ["random"])
    finally:
        namespace.update(plain)
    total = spent.get(name, 0.0)
    print(f"{name}: {counts.get(name, 0)} calls, {total:.3f} s CPU")
    for called in sorted(spent, key=lambda key: -spent[key]):
        if called != name:
            function_name = plain[called].__name__
            text = texts.get(function_name.split("_k")[0] if "_k" in function_name else function_name, "?")
            print(f"  {called:6} {counts[called]:7} calls {spent[called]:.3f} s {spent[called] / total:6.1%}  {text}")


def positions(ruleset, players: int, games: int, name: str) -> tuple:
    """(the listing function, [(vars, player, round), ...]) of every call of listing `name`."""
    from interpreter.compiled.module import game_module
    from interpreter.play import play_game
    play_game(ruleset, players, 10_000, ["random"])
    module = game_module(ruleset)
    namespace = next(function for function in module.legal if function is not None).__globals__
    function = namespace[name]
    kept = []

    def keeping(st, game_vars, player, round_, *rest):
        kept.append((copy.deepcopy(game_vars), player, round_))
        return function(st, game_vars, player, round_, *rest)

    namespace[name] = keeping
    try:
        for seed in range(games):
            play_game(ruleset, players, seed, ["random"])
    finally:
        namespace[name] = function
    return function, kept


def kept_for_the_listing(function, memos: list):
    """`function` (a define) with its values kept by arguments in a dict `memos` empties."""
    values: dict = {}
    memos.append(values)

    def kept(game_vars, names, *args):
        try:
            return values[args]
        except KeyError:
            value = values[args] = function(game_vars, names, *args)
            return value
        except TypeError:  # an argument that is a list or a map
            return function(game_vars, names, *args)
    return kept


def timing_repeats(function, memos: list, spent: list):
    """`function` (a define) called every time, the CPU of each call with arguments it was
    called with before in the listing added to `spent[0]` (outside another such call): what a
    memo would not compute again."""
    seen: dict = {}
    memos.append(seen)

    def timing(game_vars, names, *args):
        try:
            again = args in seen
        except TypeError:
            again = False
        if not again or spent[1]:
            seen[args] = True
            return function(game_vars, names, *args)
        spent[1] = True
        start = time.process_time()
        try:
            return function(game_vars, names, *args)
        finally:
            spent[0] += time.process_time() - start
            spent[1] = False
    return timing


def bound(ruleset, players: int, games: int, name: str, defines: list, rounds: int) -> None:
    from interpreter.expr.compiler import compile_waiting
    listing, kept = positions(ruleset, players, games, name)
    namespace = ruleset.unit.ns
    # every define compiled first: a stub not compiled yet would find the wrapper in the
    # namespace and call it again (the wrapper calling the stub, for ever)
    compile_waiting(namespace)
    plain = {define: namespace[define] for define in defines}
    memos: list = []
    memoised = {define: kept_for_the_listing(plain[define], memos) for define in defines}
    repeats = [0.0, False]  # CPU seconds in calls made again, inside one now
    timing = {define: timing_repeats(plain[define], memos, repeats) for define in defines}
    budget = listing.__globals__["_budget"]
    extra = ([],) if name.startswith("listed_") else ()

    def run(with_memo: bool, wrappers=None) -> tuple:
        namespace.update(wrappers or (memoised if with_memo else plain))
        moves = []
        start = time.process_time()
        for game_vars, player, round_ in kept:
            budget.reset()
            for values in memos:
                values.clear()
            moves.append(listing(None, game_vars, player, round_, *extra))
        seconds = time.process_time() - start
        namespace.update(plain)
        return seconds, [[move[:2] for move in listed] for listed in moves]

    if run(False)[1] != run(True)[1]:
        raise SystemExit("the listings differ with the defines kept: no bound measured")
    repeated = run(False, timing)[0]
    plain_times, memo_times = [], []
    for _ in range(rounds):
        plain_times.append(run(False)[0])
        memo_times.append(run(True)[0])
    print(f"{name}: {len(kept)} positions from {games} games")
    print(f"  as it is                     median {statistics.median(plain_times):.4f} s CPU")
    print(f"  {', '.join(defines)} kept for the listing  median {statistics.median(memo_times):.4f} s CPU")
    print(f"  in calls made again with the same arguments: {repeats[0]:.4f} s CPU (of {repeated:.4f} s timed so)")
    print(f"  as it is / kept, per round   median {statistics.median(p / m for p, m in zip(plain_times, memo_times)):.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--listing", default="listed_0", help="the generated listing kept and timed by --memo")
    parser.add_argument("--parts", action="store_true", help="time the expressions --listing calls, in games")
    parser.add_argument("--memo", default="", metavar="D_A,D_B", help="defines (generated names, d_...) kept for a listing")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--root", default=REPO, help="the tree whose interpreter is measured (default: this one)")
    args = parser.parse_args(argv)
    ruleset, players = load_from(args.root, args.ruleset, args.players)
    if args.parts:
        parts(ruleset, players, args.games, args.listing)
    elif args.memo:
        bound(ruleset, players, args.games, args.listing, args.memo.split(","), args.rounds)
    else:
        share(ruleset, players, args.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
