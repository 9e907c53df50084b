"""The small commands of `rulebook`: schema, list, simulate, perft, check, graph, analyze, and
`load_for_play` (a ruleset and a player count, as play, simulate, perft and info take them)."""
from __future__ import annotations

import json

from .collector import cycle_collector_paused
from .parser import Usage

__all__ = ["cmd_schema", "cmd_list", "cmd_simulate", "cmd_perft", "cmd_check", "cmd_graph", "cmd_analyze",
           "load_for_play"]


def cmd_schema(args, out, err, _in) -> int:
    from ..schema import schema

    print(json.dumps(schema(), indent=2), file=out)
    return 0


def cmd_list(args, out, err, _in) -> int:
    from ..compose import bundled_rulesets

    for name, path in bundled_rulesets().items():
        print(f"{name}\t{path}", file=out)
    return 0


def _players(ruleset, count):
    if count is None:
        return ruleset.players[0]
    if count not in ruleset.players:
        raise Usage(f"rulebook: error: {ruleset.name} with these modules is played by "
                     f"{', '.join(map(str, ruleset.players))} players, not {count}")
    return count


def load_for_play(args):
    from ..loader import key_pos

    with cycle_collector_paused():
        from ..ruleset import load

        ruleset = load(args.ruleset, modules=args.module)
    players = _players(ruleset, args.players)
    # the one test of which combinations exist, shared with validate
    from ..compose import combination_error, combination_players

    counts = combination_players(ruleset.combinations, ruleset.modules)
    if counts is None:
        raise combination_error(ruleset.combinations, ruleset.modules, key_pos(ruleset.tree, "modules"))
    if args.players is None:
        players = counts[0]
    elif players not in counts:
        raise Usage(f"rulebook: error: {'+'.join(sorted(ruleset.modules)) or 'base'} is played by "
                     f"{', '.join(map(str, counts))} players, not {players}")
    return ruleset, players


def cmd_simulate(args, out, err, _in) -> int:
    ruleset, players = load_for_play(args)
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    if "human" in specs:
        raise Usage("rulebook: error: simulate plays agents only (random, greedy, mcts)")
    from ..agents import make_agent

    try:
        for spec in specs:
            make_agent(spec)
    except ValueError as error:
        raise Usage(f"rulebook: error: {error}")
    if args.games < 1 or args.jobs < 1:
        raise Usage("rulebook: error: --games and --jobs must be at least 1")
    from ..runs import run_command

    return run_command(ruleset, players, specs, args, out, err)


def cmd_perft(args, out, err, _in) -> int:
    from ..play import perft

    ruleset, players = load_for_play(args)
    if args.depth < 0:
        raise Usage("rulebook: error: --depth must be 0 or more")
    counts = perft(ruleset, players, args.depth, args.seed)
    print(f"perft {ruleset.name} players={players} depth={args.depth}: {counts['leaves']} leaves "
          f"({counts['nodes']} nodes, set-up {counts['setup']}, {counts['setups']} set-up outcome(s))", file=out)
    return 0


def cmd_check(args, out, err, _in) -> int:
    if args.conformance:
        from ..conformance import run_command

        return run_command(args, out, err)
    from ..scenario import run_scenarios

    results = run_scenarios(args.ruleset, args.module, args.only)
    passed = sum(1 for result in results if result.ok)
    failed = len(results) - passed
    for result in results:
        if result.ok:
            if args.verbose:
                print(f"ok    {result.file}: {result.name}", file=out)
        else:
            print(f"FAIL  {result.file}: {result.name}", file=out)
            for message in result.messages:
                print("      " + message.replace("\n", "\n      "), file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return 0 if failed == 0 and results else 1


def cmd_graph(args, out, err, _in) -> int:
    from ..play import graph_svg, graph_text
    from ..ruleset import load

    ruleset = load(args.ruleset, modules=args.module)
    if args.format == "svg":
        print(graph_svg(ruleset), file=out, end="")
        return 0
    print(graph_text(ruleset, args.format), file=out, end="")
    return 0


def cmd_analyze(args, out, err, stdin) -> int:
    from ..analyze.command import cmd_analyze as analyze

    return analyze(args, out, err, stdin)
