"""The `rulebook` command line. `run(argv, stdout, stderr) -> exit code`, so it is testable with
StringIO. Exit codes: 0 success, 1 the ruleset (or a game, or a check) has errors, 2 usage.

Heavy modules are imported inside the commands so that `rulebook --help` stays fast.
"""
from __future__ import annotations

import argparse
import json
import os
import re
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
    rp.add_argument("--player", type=int, default=None,
                    help="show the game as this player saw it: others' secret moves and unseen chance hidden")
    doc.add_parser(sub)
    rulediff.add_parser(sub)
    info.add_parser(sub, ruleset_args)
    web_command.add_parser(sub)
    from .settings import add_set_flag

    add_set_flag(sub, ("validate", "play", "simulate", "perft", "check", "graph", "doc", "diff", "info"))
    return p


def run(argv=None, stdout=None, stderr=None, stdin=None) -> int:
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
    except OSError as e:  # a file that cannot be written or read: say which, no traceback
        print(f"rulebook: error: {e.strerror or e}" + (f": {e.filename}" if e.filename else ""), file=stderr)
        return 1
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
    """End the process without Python's own teardown: the exit handlers run and the output is
    flushed; what is skipped is freeing, one by one, every object the command built. Measured
    on `rulebook validate <all six bundled rulesets> --all-combinations`: 0.62 s with this
    against 0.87 s with `sys.exit` (median of 5 fresh processes). Only `main()` does this;
    `run()`, the function embedders call, leaves the process alone."""
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
    """Validate one ruleset (every combination with --all-combinations), one combination at a
    time: each loaded ruleset is reduced to its report line before the next is loaded, so
    thousands of combinations do not sit in memory together."""
    from .compose import find_ruleset
    from .errors import RulebookError
    from .ruleset import load

    folder = find_ruleset(name)
    shown = name if not os.path.exists(name) else os.path.basename(os.path.abspath(folder))
    first = None  # (modules, ruleset) loaded to find the combinations, reused once
    todo = [list(args.module)]
    if args.all_combinations:
        first_rs = load(folder, modules=args.module)
        first = (sorted(args.module), first_rs)
        combos = first_rs.combinations or [{"modules": [], "players": list(first_rs.players)}]
        todo = [sorted(c.get("modules") or []) for c in combos]
        del first_rs
    valid, failed, warnings = [], [], []
    provenance = None
    for mods in todo:
        try:
            if first is not None and first[0] == sorted(mods):
                rs, first = first[1], None
            else:
                rs = load(folder, modules=mods)
            _allowed(rs)
        except RulebookError as e:
            failed.append((mods, e))
            continue
        warnings.extend(w for w in rs.warnings if w not in warnings)
        valid.append((mods, len(rs.phases), len(rs.actions), len(rs.entities), list(rs.players)))
        if provenance is None and (args.provenance or args.list):
            provenance = _provenance_of(rs, args)
        del rs
    if args.format == "json":
        payload = {
            "ruleset": name, "valid": not failed,
            "combinations": [{"modules": m, "valid": True, "players": players} for m, _, _, _, players in valid]
                            + [{"modules": m, "valid": False, "stage": e.stage,
                                "errors": [d.to_json() for d in e.diagnostics]} for m, e in failed],
            "warnings": [w.to_json() for w in warnings] if not args.no_warnings else [],
        }
        if provenance is not None and args.provenance:
            payload["provenance"] = provenance["counts"]
        if provenance is not None and args.list:
            payload["provenance_list"] = provenance["list_json"]
        if collect is not None:
            collect.append(payload)
        else:
            print(json.dumps(payload, indent=2), file=out)
        return 1 if failed else 0
    _print_validation(shown, valid, failed, warnings, provenance, args, out, err)
    return 1 if failed else 0


def _print_validation(shown, valid, failed, warnings, provenance, args, out, err) -> None:
    for mods, e in failed:
        print(f"{shown} [{'+'.join(mods) or 'base'}]: {e.stage} stage failed with {len(e.diagnostics)} error(s)",
              file=err)
        print(e.render(), file=err)
    if not args.no_warnings:
        for w in warnings:
            print(w.render(), file=err)
    for mods, phases, actions, components, players in valid:
        print(f"{shown} [{'+'.join(mods) or 'base'}]: valid ({phases} phases, {actions} actions, "
              f"{components} components, players {','.join(map(str, players))})", file=out)
    if provenance is not None and args.provenance:
        print(provenance["text"], file=out)
    if provenance is not None and args.list:
        print(provenance["list_text"], file=out)


def _provenance_of(rs, args) -> dict:
    """What --provenance and --list report, taken from the first valid combination (so the
    loaded ruleset itself need not be kept)."""
    report = {"counts": rs.provenance, "text": _provenance_text(rs)}
    if args.list:
        report["list_json"] = doc.provenance_list(rs, as_json=True)
        report["list_text"] = doc.provenance_list(rs)
    return report


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
MAX_REFUSALS = 20  # `play` stops an agent after this many refused moves in a row
def _describe(state, player, last_log_len, out):
    view = state.observe(player)
    log = state.log_for(player)[last_log_len:]  # the public lines and this player's own
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
        agents = [make_agent(specs[seat % len(specs)], args.seed * 1009 + seat) for seat in range(players)]
    except ValueError as e:
        raise _Usage(f"rulebook: error: {e}")
    state = rs.new_game(players, seed=args.seed)
    moves = []
    seen = 0  # log lines already shown to a human
    refused = 0  # refused moves in a row (an agent that keeps proposing them is stopped)
    save = args.save or _default_save_path(rs.name, args.seed)

    def write_replay():
        with _open_for_writing(save, follow=bool(args.save)) as fh:
            json.dump({"ruleset": rs.folder, "modules": list(rs.modules), "settings": getattr(args, "set", []), "players": players,
                       "seed": args.seed, "agents": specs, "actions": moves}, fh, indent=1)

    while not state.is_terminal:
        legal = state.legal_actions()
        if not legal:
            write_replay()
            print(f"rulebook: error: nobody can act in phase '{state.phase}' at step {state.steps}", file=err)
            return 1
        player = legal[0].player
        agent = agents[player]
        if agent is None:
            _describe(state, player, seen, out)
            seen = len(state.log)
            action = _ask_human(state.legal_actions(player), player, stdin, out)
            if action is None:
                write_replay()
                print(f"saved the game so far to {save}", file=out)
                return 0
        else:
            action = agent.act(state, player)
            _announce(state, player, specs[player % len(specs)], action, any(x is None for x in agents), out)
        outcome = state.apply(action)
        if not outcome:
            print(f"  refused: {outcome.reason}", file=out)
            refused += 1
            if refused >= MAX_REFUSALS:
                write_replay()
                print(f"rulebook: error: player {player} ({specs[player % len(specs)]}) proposed {refused} refused "
                      f"moves in a row; the game stops (the moves so far are saved to {save})", file=err)
                return 1
            continue
        refused = 0
        moves.append(action.to_json())
    write_replay()
    table = state.scores()
    print("game over. scores: " + ", ".join(f"player {p}: {s['total']}" for p, s in table.items()), file=out)
    print(f"winners: {', '.join(map(str, state.winners()))}", file=out)
    print(f"replay saved to {save}", file=out)
    return 0


def _ask_human(legal, player, stdin, out):
    """The action a human picks (by number or label), or None to save and quit."""
    for index, action in enumerate(legal):
        print(f"  {index:3d}. {action.label}", file=out)
    while True:
        out.write(f"player {player}> ")
        out.flush()
        line = stdin.readline()
        if not line:
            print("", file=out)
            return None
        line = line.strip()
        if line in ("q", "quit"):
            return None
        if line.isdigit() and int(line) < len(legal):
            return legal[int(line)]
        matches = [action for action in legal if action.label == line]
        if matches:
            return matches[0]
        print(f"  type a number from 0 to {len(legal) - 1} (or q to save and quit)", file=out)


def _announce(state, player, spec, action, human_watching, out):
    rule = state.rs.actions.get(action.name)
    if state.is_simultaneous():
        # several players choose at once: nobody sees a choice until all are in
        print(f"player {player} ({spec}) has chosen", file=out)
    elif rule is not None and getattr(rule, "secret", False):
        # a secret move: the table learns only that it was made (`secret: true`)
        print(f"player {player} ({spec}) made a secret move: {action.name}", file=out)
    elif state.pending is not None and human_watching:
        # the answer to a decision may name what only its player could see
        print(f"player {player} ({spec}) answers: {state.pending['prompt']}", file=out)
    else:
        print(f"player {player} ({spec}): {action.label}", file=out)


def _printable(text) -> str:
    """Text that any output stream can take (a lone surrogate from a hostile file is escaped)."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")[:300]


def _replay_entries(data):
    """(ruleset, modules, players, seed, entries) of a replay written by `rulebook play`
    ("actions") or of a state saved by State.to_json ("history"); None if it is neither."""
    if not isinstance(data, dict) or not isinstance(data.get("ruleset"), str):
        return None
    if isinstance(data.get("state"), dict) and isinstance(data.get("history"), list):
        game_vars = data["state"].get("vars") or {}
        return (data["ruleset"], data.get("modules") or [], game_vars.get("num_players"),
                data["state"].get("seed", 0), data["history"])
    if isinstance(data.get("players"), int) and isinstance(data.get("actions", []), list):
        return (data["ruleset"], data.get("modules") or [], data["players"], data.get("seed", 0),
                [{"action": move} for move in data.get("actions") or []])
    return None


def _default_save_path(game_name: str, seed: int) -> str:
    """`<name>-<seed>.replay.json` in the working directory, the name cut down to letters,
    digits, '.', '_' and '-' (a game's name is rule-file text: '../../x' must not choose
    where the file goes)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(game_name)).strip(".-")[:60] or "game"
    return os.path.join(os.getcwd(), f"{safe}-{int(seed)}.replay.json")


def _open_for_writing(path: str, follow: bool):
    """A text file opened for writing; a default path (follow=False) is never a symlink
    planted to redirect the write."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    return os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8")


def cmd_replay(args, out, err, stdin) -> int:
    from .errors import RuleRuntimeError
    from .ruleset import load

    from .errors import RulebookError
    from .loader import read_limited

    try:  # a regular file under the size limit, never a pipe or a device (issue 16.10)
        data = json.loads(read_limited(args.file, args.file).decode("utf-8"))
    except RulebookError as e:
        print(f"rulebook: error: cannot read replay {args.file}: {e.diagnostics[0].message}", file=err)
        return 1
    except (ValueError, RecursionError) as e:
        print(f"rulebook: error: cannot read replay {args.file}: {e}", file=err)
        return 1
    found = _replay_entries(data)
    if found is None:
        print(f"rulebook: error: {args.file} is not a replay (it needs 'ruleset', 'players' and 'actions'; "
              "`rulebook play` writes one) nor a saved state (State.to_json)", file=err)
        return 1
    ruleset, modules, players, seed, entries = found
    from .settings import parse_assignments

    try:
        given = data.get("settings") or []
        settings = dict(given) if isinstance(given, dict) else parse_assignments(given if isinstance(given, list) else [])
    except (ValueError, TypeError) as e:
        print(f"rulebook: error: {args.file}: {e}", file=err)
        return 1
    rules = load(ruleset, modules=modules if isinstance(modules, list) else [], settings=settings)
    manual = any(isinstance(e, dict) and "chance" in e for e in entries)
    try:
        state = rules.new_game(players, seed=int(seed), chance="manual" if manual else "seeded")
    except (RuleRuntimeError, ValueError, TypeError, OverflowError) as e:
        print(f"rulebook: error: {args.file}: cannot start the game: {e}", file=err)
        return 1
    for number, entry in enumerate(entries, 1):
        if isinstance(entry, dict) and "chance" in entry:
            res = state.apply_chance(entry["chance"])
            outcome = "(hidden)" if args.player is not None else repr(entry["chance"])
            print(_printable(f"{number:4d}. chance: {outcome}") + ("" if res else f"  REFUSED: {res.reason}"),
                  file=out)
        else:
            move = entry.get("action") if isinstance(entry, dict) else None
            if not isinstance(move, dict):
                print(_printable(f"rulebook: error: {args.file}: move {number} is not an action: {move!r}"), file=err)
                return 1
            at_once = state.is_simultaneous()  # a choice made with others at once is theirs until all are in
            res = state.apply(move)
            if res.code == "bad_action":
                print(_printable(f"rulebook: error: {args.file}: move {number} is not an action: {move!r}"), file=err)
                return 1
            rule = rules.actions.get(move.get("action"))
            others = args.player is not None and move.get("player") != args.player
            secret = others and rule is not None and getattr(rule, "secret", False)
            # another player's answer to a decision may name a hidden card (as in play and the web table)
            shown = ("has chosen (at once with others)" if others and at_once else
                     f"made a secret move: {move.get('action')}" if secret else
                     "made a decision" if others and move.get("action") == "choose" else move.get("label"))
            print(_printable(f"{number:4d}. player {move.get('player')}: {shown}")
                  + ("" if res else _printable(f"  REFUSED: {res.reason}")), file=out)
        if not res:
            return 1
        if args.step:
            stdin.readline()
    table = state.scores() if state.is_terminal else {}
    if table:
        print("final scores: " + ", ".join(f"player {p}: {s['total']}" for p, s in table.items()), file=out)
        print(f"winners: {', '.join(map(str, state.winners()))}", file=out)
    print(f"state hash {state.hash()}", file=out)
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
