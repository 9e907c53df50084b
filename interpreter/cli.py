"""The `rulebook` command line. `run(argv, stdout, stderr) -> exit code`, so it is testable with
StringIO. Exit codes: 0 success, 1 the ruleset (or a game, or a check) has errors, 2 usage.

Heavy modules are imported inside the commands so that `rulebook --help` stays fast.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys

from . import doc, info, rulediff  # light at import: their heavy parts load when the command runs
from .web import command as web_command  # light too: starlette and uvicorn load when `serve` runs

__all__ = ["run", "main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _Usage(f"{self.prog}: error: {message}\n(see '{self.prog} --help')")


class _Usage(Exception):
    pass


def _jobs(text: str) -> int:
    from .runs import parse_jobs

    try:
        return parse_jobs(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', not {text!r}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rulebook", description="Play, check and study board games whose rules are data.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def ruleset_args(sp, modules=True):
        sp.add_argument("ruleset", help="a bundled ruleset name (e.g. davos) or a path")
        if modules:
            sp.add_argument("--module", "-m", action="append", default=[], metavar="NAME",
                            help="add a module (repeatable)")

    v = sub.add_parser("validate", help="check a ruleset: schema, names, expressions, phase graph, counts")
    v.add_argument("ruleset", nargs="+", metavar="ruleset",
                   help="a bundled ruleset name (e.g. davos) or a path; several are checked in turn")
    v.add_argument("--module", "-m", action="append", default=[], metavar="NAME", help="add a module (repeatable)")
    v.add_argument("--all-combinations", action="store_true", help="check every module combination the game allows")
    v.add_argument("--format", choices=["text", "json"], default="text")
    v.add_argument("--provenance", action="store_true", help="report how many definitions cite the rulebook")
    v.add_argument("--no-warnings", action="store_true", help="hide warnings")
    v.add_argument("--list", action="store_true", help="every definition by provenance kind with file:line")

    sub.add_parser("schema", help="print the JSON Schema of rule files (draft 2020-12)")
    sub.add_parser("list", help="list the bundled rulesets")

    pl = sub.add_parser("play", help="play a game in the terminal")
    ruleset_args(pl)
    pl.add_argument("--players", type=int)
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("--agents", default="human,random", help="comma-separated: human, random, greedy, mcts[:N]")
    pl.add_argument("--save", metavar="FILE", help="where to save the replay (default: <ruleset>-<seed>.replay.json)")

    sm = sub.add_parser("simulate", help="play many seeded games with agents")
    ruleset_args(sm)
    sm.add_argument("--players", type=int)
    sm.add_argument("--games", type=int, default=100)
    sm.add_argument("--seed", type=int, default=0)
    sm.add_argument("--agents", default="random",
                    help="comma-separated, one per seat, repeated: random, greedy, mcts[:ITER[:ROLLOUT]]")
    sm.add_argument("--rotate", action="store_true",
                    help="rotate the agents over the seats from game to game (fair matches)")
    sm.add_argument("--jobs", type=_jobs, default=1, metavar="N|auto", help="worker processes (auto: one per CPU)")
    sm.add_argument("--json", action="store_true", help="one JSON object on stdout")
    sm.add_argument("--per-game", metavar="FILE", help="write one JSON line per game")

    from .analyze.command import add_parser as add_analyze_parser

    add_analyze_parser(sub)

    pf = sub.add_parser("perft", help="count the leaves of the game tree to a depth")
    ruleset_args(pf)
    pf.add_argument("--players", type=int)
    pf.add_argument("--depth", type=int, required=True)
    pf.add_argument("--seed", type=int, default=0)

    ck = sub.add_parser("check", help="run the ruleset's examples/ scenarios, or (--conformance) the engine's "
                                      "invariants on seeded random games")
    ruleset_args(ck)
    ck.add_argument("--conformance", action="store_true",
                    help="check the invariants every ruleset must keep (see docs/api.md) instead of the scenarios")
    ck.add_argument("--games", type=int, default=5, help="with --conformance: games per player count")
    ck.add_argument("--players", type=int, help="with --conformance: one player count (default: every allowed)")
    ck.add_argument("--seed", type=int, default=0, help="with --conformance: the first seed")
    ck.add_argument("--only", help="run only scenario files whose name contains this")
    ck.add_argument("--verbose", "-v", action="store_true")

    gr = sub.add_parser("graph", help="draw the phase graph")
    ruleset_args(gr)
    gr.add_argument("--format", choices=["mermaid", "dot", "svg"], default="mermaid")

    rp = sub.add_parser("replay", help="step through a saved game")
    rp.add_argument("file")
    rp.add_argument("--step", action="store_true", help="wait for Enter between moves")
    doc.add_parser(sub)
    rulediff.add_parser(sub)
    info.add_parser(sub, ruleset_args)
    web_command.add_parser(sub)
    from .settings import add_set_flag

    add_set_flag(sub, ("validate", "play", "simulate", "perft", "check", "graph", "doc", "diff", "info"))
    return p


def _collect_less_often() -> None:
    """A command builds many small objects that live to its end (rule trees, parse trees,
    compiled code): Python's cyclic collector, run every 700 allocations by default, would
    walk them again and again. A command is one short process, so it runs the collector every
    50,000 allocations instead (validating every bundled ruleset: about 15 % less time).
    Reference counting frees everything else as before."""
    if gc.get_threshold()[0] < 50_000:
        gc.set_threshold(50_000, 20, 100)


def run(argv=None, stdout=None, stderr=None, stdin=None) -> int:
    _collect_less_often()
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    stdin = stdin or sys.stdin
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except _Usage as e:
        print(str(e), file=stderr)
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)
    if not args.command:
        parser.print_help(stdout)
        return 2
    from .errors import RulebookError
    from .settings import overriding, parse_assignments

    try:
        overrides = parse_assignments(getattr(args, "set", None))
    except ValueError as e:  # a --set that is not NAME=VALUE
        print(f"rulebook: error: {e}", file=stderr)
        return 2
    try:
        with overriding(overrides):
            return _COMMANDS[args.command](args, stdout, stderr, stdin)
    except RulebookError as e:
        print(e.render(), file=stderr)
        return 1
    except _Usage as e:
        print(str(e), file=stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=stderr)
        return 130


def main() -> None:
    try:
        code = run()
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `rulebook simulate ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 0
    _exit(code)


def _exit(code: int) -> None:
    """End the process without Python's own teardown. Everything a command writes is closed
    by the command, the exit handlers (the per-user cache) run here, and the output is
    flushed; what is skipped is freeing, one by one, every object the command built, which
    after validating every bundled ruleset took longer (about 0.4 s) than any stage of it."""
    import atexit

    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe or stream: nothing more to say
                pass
        os._exit(code)


# ------------------------------------------------------------------------------ commands
def _combinations(rs_tree_combos, module_decls, base_players):
    combos = rs_tree_combos or [{"modules": [], "players": list(base_players)}]
    return combos


def cmd_validate(args, out, err, _in) -> int:
    """One ruleset as before; several in turn (one process: imports and shared work paid once),
    the exit code the worst of them, and with --format json a list of their reports."""
    if len(args.ruleset) == 1:
        return _validate(args.ruleset[0], args, out, err)
    from .errors import RulebookError

    reports: list = []
    code = 0
    for name in args.ruleset:
        try:
            code = max(code, _validate(name, args, out, err, reports if args.format == "json" else None))
        except RulebookError as e:
            print(e.render(), file=err)
            code = max(code, 1)
            if args.format == "json":
                reports.append({"ruleset": name, "valid": False,
                                "errors": [d.to_json() for d in e.diagnostics]})
    if args.format == "json":
        print(json.dumps(reports, indent=2), file=out)
    return code


def _validate(name, args, out, err, collect=None) -> int:
    from .compose import find_ruleset
    from .errors import RulebookError
    from .ruleset import load

    folder = find_ruleset(name)
    shown = name if not os.path.exists(name) else os.path.basename(os.path.abspath(folder))
    todo = [list(args.module)]
    done = {}  # modules -> the ruleset already loaded with them
    if args.all_combinations:
        rs0 = load(folder, modules=args.module)
        done[tuple(sorted(args.module))] = rs0
        combos = rs0.combinations or [{"modules": [], "players": list(rs0.players)}]
        todo = [sorted(c.get("modules") or []) for c in combos]
    all_diags = []
    warnings = []
    reports = []
    ok = True
    for mods in todo:
        try:
            rs = done.get(tuple(sorted(mods))) or load(folder, modules=mods)
            _allowed(rs)
            warnings.extend(w for w in rs.warnings if w not in warnings)
            reports.append((mods, rs))
        except RulebookError as e:
            ok = False
            all_diags.append((mods, e))
    if args.format == "json":
        payload = {
            "ruleset": name, "valid": ok,
            "combinations": [{"modules": m, "valid": True, "players": list(r.players)} for m, r in reports]
                            + [{"modules": m, "valid": False, "stage": e.stage,
                                "errors": [d.to_json() for d in e.diagnostics]} for m, e in all_diags],
            "warnings": [w.to_json() for w in warnings] if not args.no_warnings else [],
        }
        if args.provenance and reports:
            payload["provenance"] = reports[0][1].provenance
        if args.list and reports:
            payload["provenance_list"] = doc.provenance_list(reports[0][1], as_json=True)
        if collect is not None:
            collect.append(payload)
        else:
            print(json.dumps(payload, indent=2), file=out)
        return 0 if ok else 1
    for mods, e in all_diags:
        label = "+".join(mods) or "base"
        print(f"{shown} [{label}]: {e.stage} stage failed with {len(e.diagnostics)} error(s)", file=err)
        print(e.render(), file=err)
    if not args.no_warnings:
        for w in warnings:
            print(w.render(), file=err)
    for mods, rs in reports:
        label = "+".join(mods) or "base"
        print(f"{shown} [{label}]: valid ({len(rs.phases)} phases, {len(rs.actions)} actions, "
              f"{len(rs.entities)} components, players {','.join(map(str, rs.players))})", file=out)
    if args.provenance and reports:
        print(_provenance_text(reports[0][1]), file=out)
    if args.list and reports:
        print(doc.provenance_list(reports[0][1]), file=out)
    return 0 if ok else 1


def _allowed(rs) -> None:
    """Refuse a module combination the game does not allow (the test simulate and play use)."""
    from .compose import combination_error, combination_players
    from .loader import key_pos

    if combination_players(rs.combinations, rs.modules) is None:
        raise combination_error(rs.combinations, rs.modules, key_pos(rs.tree, "modules"))


def _provenance_text(rs) -> str:
    lines = ["provenance (definitions by where their values come from):"]
    total = {}
    for section, counts in sorted(rs.provenance.items()):
        parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        lines.append(f"  {section:28s} {parts}")
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
    lines.append("  " + "total".ljust(28) + " " + ", ".join(f"{k} {v}" for k, v in sorted(total.items())))
    return "\n".join(lines)


def cmd_schema(args, out, err, _in) -> int:
    from .schema import schema

    print(json.dumps(schema(), indent=2), file=out)
    return 0


def cmd_list(args, out, err, _in) -> int:
    from .compose import bundled_rulesets

    for name, path in bundled_rulesets().items():
        print(f"{name}\t{path}", file=out)
    return 0


def _players(rs, n):
    if n is None:
        return rs.players[0]
    if n not in rs.players:
        raise _Usage(f"rulebook: error: {rs.name} with these modules is played by "
                     f"{', '.join(map(str, rs.players))} players, not {n}")
    return n


def _load_for_play(args):
    from .loader import key_pos
    from .ruleset import load

    rs = load(args.ruleset, modules=args.module)
    players = _players(rs, args.players)
    # the one test of which combinations exist, shared with validate
    from .compose import combination_error, combination_players

    counts = combination_players(rs.combinations, rs.modules)
    if counts is None:
        raise combination_error(rs.combinations, rs.modules, key_pos(rs.tree, "modules"))
    if args.players is None:
        players = counts[0]
    elif players not in counts:
        raise _Usage(f"rulebook: error: {'+'.join(sorted(rs.modules)) or 'base'} is played by "
                     f"{', '.join(map(str, counts))} players, not {players}")
    return rs, players


def cmd_simulate(args, out, err, _in) -> int:
    rs, players = _load_for_play(args)
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    if "human" in specs:
        raise _Usage("rulebook: error: simulate plays agents only (random, greedy, mcts)")
    from .agents import make_agent

    try:
        for s in specs:
            make_agent(s)
    except ValueError as e:
        raise _Usage(f"rulebook: error: {e}")
    if args.games < 1 or args.jobs < 1:
        raise _Usage("rulebook: error: --games and --jobs must be at least 1")
    from .runs import run_command

    return run_command(rs, players, specs, args, out, err)


def cmd_perft(args, out, err, _in) -> int:
    from .play import perft

    rs, players = _load_for_play(args)
    if args.depth < 0:
        raise _Usage("rulebook: error: --depth must be 0 or more")
    r = perft(rs, players, args.depth, args.seed)
    print(f"perft {rs.name} players={players} depth={args.depth}: {r['leaves']} leaves "
          f"({r['nodes']} nodes, set-up {r['setup']}, {r['setups']} set-up outcome(s))", file=out)
    return 0


def cmd_check(args, out, err, _in) -> int:
    if args.conformance:
        from .conformance import run_command

        return run_command(args, out, err)
    from .scenario import run_scenarios

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
    from .play import graph_svg, graph_text
    from .ruleset import load

    rs = load(args.ruleset, modules=args.module)
    if args.format == "svg":
        print(graph_svg(rs), file=out, end="")
        return 0
    print(graph_text(rs, args.format), file=out, end="")
    return 0


# ------------------------------------------------------------------------------ play / replay
def _describe(state, player, last_log_len, out):
    view = state.observe(player)
    log = state.log[last_log_len:]
    for line in log:
        print(f"  · {line}", file=out)
    print(f"[step {view['step']}] phase {view['phase']}, you are player {player}", file=out)
    for name, val in view["vars"].items():
        if name in ("players", "num_players", "current_phase"):
            continue
        text = json.dumps(val)
        print(f"  {name}: {text if len(text) < 160 else text[:157] + '...'}", file=out)
    if view["pending"] and view["pending"]["player"] == player:
        print(f"  decision: {view['pending']['prompt']}", file=out)


def cmd_play(args, out, err, stdin) -> int:
    from .agents import make_agent

    rs, players = _load_for_play(args)
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    try:
        agents = [make_agent(specs[i % len(specs)], args.seed * 1009 + i) for i in range(players)]
    except ValueError as e:
        raise _Usage(f"rulebook: error: {e}")
    st = rs.new_game(players, seed=args.seed)
    moves = []
    seen = 0
    save = args.save or f"{rs.name}-{args.seed}.replay.json"

    def write_replay():
        with open(save, "w", encoding="utf-8") as fh:
            json.dump({"ruleset": rs.folder, "modules": list(rs.modules), "settings": getattr(args, "set", []), "players": players,
                       "seed": args.seed, "agents": specs, "actions": moves}, fh, indent=1)

    while not st.is_terminal:
        legal = st.legal_actions()
        p = legal[0].player
        agent = agents[p]
        if agent is None:
            _describe(st, p, seen, out)
            seen = len(st.log)
            for i, a in enumerate(legal):
                print(f"  {i:3d}. {a.label}", file=out)
            while True:
                out.write(f"player {p}> ")
                out.flush()
                line = stdin.readline()
                if not line:
                    write_replay()
                    print(f"\nsaved the game so far to {save}", file=out)
                    return 0
                line = line.strip()
                if line in ("q", "quit"):
                    write_replay()
                    print(f"saved the game so far to {save}", file=out)
                    return 0
                if line.isdigit() and int(line) < len(legal):
                    a = legal[int(line)]
                    break
                match = [a for a in legal if a.label == line]
                if match:
                    a = match[0]
                    break
                print(f"  type a number from 0 to {len(legal) - 1} (or q to save and quit)", file=out)
        else:
            a = agent.act(st, p)
            if st.pending is not None and any(x is None for x in agents):
                # the answer to a decision may name what only its player could see
                print(f"player {p} ({specs[p % len(specs)]}) answers: {st.pending['prompt']}", file=out)
            else:
                print(f"player {p} ({specs[p % len(specs)]}): {a.label}", file=out)
        res = st.apply(a)
        if not res:
            print(f"  refused: {res.reason}", file=out)
            continue
        moves.append(a.to_json())
    write_replay()
    sc = st.scores()
    print("game over. scores: " + ", ".join(f"player {p}: {s['total']}" for p, s in sc.items()), file=out)
    print(f"winners: {', '.join(map(str, st.winners()))}", file=out)
    print(f"replay saved to {save}", file=out)
    return 0


def cmd_replay(args, out, err, stdin) -> int:
    from .errors import RuleRuntimeError
    from .ruleset import load
    from .state import Action

    try:
        with open(args.file, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as e:
        print(f"rulebook: error: cannot read replay {args.file}: {e}", file=err)
        return 1
    if not (isinstance(data, dict) and isinstance(data.get("ruleset"), str)
            and isinstance(data.get("players"), int) and isinstance(data.get("actions", []), list)):
        print(f"rulebook: error: {args.file} is not a replay (it needs 'ruleset', 'players' and 'actions'; "
              "`rulebook play` writes one)", file=err)
        return 1
    from .settings import parse_assignments

    rs = load(data["ruleset"], modules=data.get("modules") or [], settings=parse_assignments(data.get("settings") or []))
    try:
        st = rs.new_game(data["players"], seed=int(data.get("seed", 0)))
    except (RuleRuntimeError, ValueError, TypeError) as e:
        print(f"rulebook: error: {args.file}: cannot start the game: {e}", file=err)
        return 1
    for i, aj in enumerate(data.get("actions") or []):
        try:
            a = Action.from_json(aj)
        except (KeyError, TypeError, AttributeError):
            print(f"rulebook: error: {args.file}: move {i + 1} is not an action: {aj!r}"[:300], file=err)
            return 1
        res = st.apply(a)
        print(f"{i + 1:4d}. player {aj.get('player')}: {aj.get('label')}" + ("" if res else f"  REFUSED: {res.reason}"), file=out)
        if not res:
            return 1
        if args.step:
            stdin.readline()
    sc = st.scores() if st.is_terminal else {}
    if sc:
        print("final scores: " + ", ".join(f"player {p}: {s['total']}" for p, s in sc.items()), file=out)
        print(f"winners: {', '.join(map(str, st.winners()))}", file=out)
    print(f"state hash {st.hash()}", file=out)
    return 0


def cmd_analyze(args, out, err, stdin) -> int:
    from .analyze.command import cmd_analyze as analyze

    return analyze(args, out, err, stdin)


_COMMANDS = {
    "validate": cmd_validate, "schema": cmd_schema, "list": cmd_list, "play": cmd_play,
    "simulate": cmd_simulate, "perft": cmd_perft, "check": cmd_check, "graph": cmd_graph,
    "replay": cmd_replay, "analyze": cmd_analyze,
    "info": lambda args, out, err, _in: info.run_info(args, out, *_load_for_play(args)),
    "doc": lambda args, out, err, _in: doc.run_command(args, out, err),
    "diff": lambda args, out, err, _in: rulediff.run_command(args, out, err),
    "serve": web_command.cmd_serve,
}
