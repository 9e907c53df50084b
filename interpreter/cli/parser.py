"""The argument parser of `rulebook`: every command, its flags and their help. Building it
imports only light modules (`rulebook --help` stays fast)."""
from __future__ import annotations

import argparse
from typing import Optional

from .. import doc, info, rulediff  # light at import: their heavy parts load when the command runs
from ..web import command as web_command  # light too: starlette and uvicorn load when `serve` runs

__all__ = ["Parser", "Usage", "build_parser"]


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Usage(f"{self.prog}: error: {message}\n(see '{self.prog} --help')")


class Usage(Exception):
    pass


def _jobs(text: str) -> int:
    from ..runs import parse_jobs

    try:
        return parse_jobs(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto', not {text!r}")


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser of `rulebook`. Given the command the arguments start with, only that command's
    sub-parser is built: its parsing, its errors and its `--help` are the same, and a one-game
    `simulate` does not build the other thirteen (~18 M instructions, 1 % of its start-up:
    argparse makes a help formatter, which reads the terminal's size, for each argument it
    adds). Without a command it knows (`rulebook --help`, a misspelt command), all are built."""
    parser = Parser(prog="rulebook", description="Play, check and study board games whose rules are data.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, add_subparser in _SUBPARSERS.items():
        if command not in _SUBPARSERS or name == command:
            add_subparser(sub)
    from ..settings import add_set_flag

    add_set_flag(sub, ("validate", "play", "simulate", "perft", "check", "graph", "doc", "diff", "info"))
    return parser


def _ruleset_args(command, modules=True):
    command.add_argument("ruleset", help="a bundled ruleset name (e.g. davos) or a path")
    if modules:
        command.add_argument("--module", "-m", action="append", default=[], metavar="NAME",
                             help="add a module (repeatable)")


def _analyze_parser(sub) -> None:
    from ..analyze.command import add_parser as add_analyze_parser

    add_analyze_parser(sub)


def _perft_parser(sub) -> None:
    perft = sub.add_parser("perft", help="count the leaves of the game tree to a depth")
    _ruleset_args(perft)
    perft.add_argument("--players", type=int)
    perft.add_argument("--depth", type=int, required=True)
    perft.add_argument("--seed", type=int, default=0)


def _graph_parser(sub) -> None:
    graph = sub.add_parser("graph", help="draw the phase graph")
    _ruleset_args(graph)
    graph.add_argument("--format", choices=["mermaid", "dot", "svg"], default="mermaid")


def _play_parser(sub) -> None:
    play = sub.add_parser("play", help="play a game in the terminal (type 'help' at a prompt for the commands)")
    _ruleset_args(play)
    play.add_argument("--players", type=int)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--agents", default="human,random", help="comma-separated: human, random, greedy, mcts[:N]")
    play.add_argument("--save", metavar="FILE", help="where to save the replay (default: <ruleset>-<seed>.replay.json)")


def _replay_parser(sub) -> None:
    replay = sub.add_parser("replay", help="step through a saved game")
    replay.add_argument("file")
    replay.add_argument("--step", action="store_true",
                        help="step through the game with the table view: Enter or n (next), p (previous), "
                             "goto N, q (quit)")
    replay.add_argument("--player", type=int, default=None,
                        help="show the game as this player saw it: others' secret moves and unseen chance hidden")
    replay.add_argument("--at", type=int, default=None, metavar="N",
                        help="after the list of moves, show the table as it was after move N (0: the set-up)")

def _validate_parser(sub) -> None:
    validate = sub.add_parser("validate", help="check a ruleset: schema, names, expressions, phase graph, counts")
    validate.add_argument("ruleset", nargs="+", metavar="ruleset",
                          help="a bundled ruleset name (e.g. davos) or a path; several are checked in turn")
    validate.add_argument("--module", "-m", action="append", default=[], metavar="NAME", help="add a module (repeatable)")
    validate.add_argument("--all-combinations", action="store_true", help="check every module combination the game allows")
    validate.add_argument("--format", choices=["text", "json"], default="text")
    validate.add_argument("--provenance", action="store_true", help="report how many definitions cite the rulebook")
    validate.add_argument("--no-warnings", action="store_true", help="hide warnings")
    validate.add_argument("--list", action="store_true", help="every definition by provenance kind with file:line")


def _simulate_parser(sub) -> None:
    simulate = sub.add_parser("simulate", help="play many seeded games with agents")
    _ruleset_args(simulate)
    simulate.add_argument("--players", type=int)
    simulate.add_argument("--games", type=int, default=100)
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument("--agents", default="random",
                          help="comma-separated, one per seat, repeated: random, greedy, mcts[:ITER[:ROLLOUT]]")
    simulate.add_argument("--rotate", action="store_true",
                          help="rotate the agents over the seats from game to game (fair matches)")
    simulate.add_argument("--jobs", type=_jobs, default=1, metavar="N|auto", help="worker processes (auto: one per CPU)")
    simulate.add_argument("--json", action="store_true", help="one JSON object on stdout")
    simulate.add_argument("--per-game", metavar="FILE", help="write one JSON line per game")


def _check_parser(sub) -> None:
    check = sub.add_parser("check", help="run the ruleset's examples/ scenarios, or (--conformance) the engine's "
                                         "invariants on seeded random games")
    _ruleset_args(check)
    check.add_argument("--conformance", action="store_true",
                       help="check the invariants every ruleset must keep (see docs/api.md) instead of the scenarios")
    check.add_argument("--games", type=int, default=5, help="with --conformance: games per player count")
    check.add_argument("--players", type=int, help="with --conformance: one player count (default: every allowed)")
    check.add_argument("--seed", type=int, default=0, help="with --conformance: the first seed")
    check.add_argument("--only", help="run only scenario files whose name contains this")
    check.add_argument("--verbose", "-v", action="store_true")


# every command's sub-parser, in the order `rulebook --help` lists them
_SUBPARSERS = {
    "validate": _validate_parser,
    "schema": lambda sub: sub.add_parser("schema", help="print the JSON Schema of rule files (draft 2020-12)"),
    "list": lambda sub: sub.add_parser("list", help="list the bundled rulesets"),
    "play": _play_parser,
    "simulate": _simulate_parser,
    "analyze": _analyze_parser,
    "perft": _perft_parser,
    "check": _check_parser,
    "graph": _graph_parser,
    "replay": _replay_parser,
    "doc": doc.add_parser,
    "diff": rulediff.add_parser,
    "info": lambda sub: info.add_parser(sub, _ruleset_args),
    "serve": web_command.add_parser,
}
