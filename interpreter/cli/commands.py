"""The small commands of `rulebook`: schema, list, simulate, perft, check, graph, analyze, and
`load_for_play` (a ruleset and a player count, as play, simulate, perft and info take them)."""
from __future__ import annotations

import json

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


def _players(rs, n):
    if n is None:
        return rs.players[0]
    if n not in rs.players:
        raise Usage(f"rulebook: error: {rs.name} with these modules is played by "
                     f"{', '.join(map(str, rs.players))} players, not {n}")
    return n


def load_for_play(args):
    from ..loader import key_pos
    from ..ruleset import load

    rs = load(args.ruleset, modules=args.module)
    players = _players(rs, args.players)
    # the one test of which combinations exist, shared with validate
    from ..compose import combination_error, combination_players

    counts = combination_players(rs.combinations, rs.modules)
    if counts is None:
        raise combination_error(rs.combinations, rs.modules, key_pos(rs.tree, "modules"))
    if args.players is None:
        players = counts[0]
    elif players not in counts:
        raise Usage(f"rulebook: error: {'+'.join(sorted(rs.modules)) or 'base'} is played by "
                     f"{', '.join(map(str, counts))} players, not {players}")
    return rs, players


def cmd_simulate(args, out, err, _in) -> int:
    rs, players = load_for_play(args)
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    if "human" in specs:
        raise Usage("rulebook: error: simulate plays agents only (random, greedy, mcts)")
    from ..agents import make_agent

    try:
        for s in specs:
            make_agent(s)
    except ValueError as e:
        raise Usage(f"rulebook: error: {e}")
    if args.games < 1 or args.jobs < 1:
        raise Usage("rulebook: error: --games and --jobs must be at least 1")
    from ..runs import run_command

    return run_command(rs, players, specs, args, out, err)


def cmd_perft(args, out, err, _in) -> int:
    from ..play import perft

    rs, players = load_for_play(args)
    if args.depth < 0:
        raise Usage("rulebook: error: --depth must be 0 or more")
    r = perft(rs, players, args.depth, args.seed)
    print(f"perft {rs.name} players={players} depth={args.depth}: {r['leaves']} leaves "
          f"({r['nodes']} nodes, set-up {r['setup']}, {r['setups']} set-up outcome(s))", file=out)
    return 0


def cmd_check(args, out, err, _in) -> int:
    if args.conformance:
        from ..conformance import run_command

        return run_command(args, out, err)
    from ..scenario import run_scenarios

    results = run_scenarios(args.ruleset, args.module, args.only)
    passed = sum(1 for r in results if r.ok)
    failed = len(results) - passed
    for r in results:
        if r.ok:
            if args.verbose:
                print(f"ok    {r.file}: {r.name}", file=out)
        else:
            print(f"FAIL  {r.file}: {r.name}", file=out)
            for m in r.messages:
                print("      " + m.replace("\n", "\n      "), file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return 0 if failed == 0 and results else 1


def cmd_graph(args, out, err, _in) -> int:
    from ..play import graph_svg, graph_text
    from ..ruleset import load

    rs = load(args.ruleset, modules=args.module)
    if args.format == "svg":
        print(graph_svg(rs), file=out, end="")
        return 0
    print(graph_text(rs, args.format), file=out, end="")
    return 0


def cmd_analyze(args, out, err, stdin) -> int:
    from ..analyze.command import cmd_analyze as analyze

    return analyze(args, out, err, stdin)
