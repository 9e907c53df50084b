"""`rulebook diff OLD NEW`: what changed between two versions of a game's rules, as rules
(not as YAML lines), and optionally what the change does to the balance.

A side is a ruleset name or path, a git revision of one (`davos@HEAD~3`: the ruleset folder at
that commit, exported with `git archive` into a temporary folder that is removed afterwards), or
either of those with modules (`-m` for the NEW side, `--old-module` for the OLD side).

Owns the command's arguments and exit codes. The parts: rulediff.sides (reading a side, git
revisions), rulediff.semantic (the diff of two composed rule trees), rulediff.balance (the same
seeds played on both sides, Wilson intervals), rulediff.report (text and JSON). They are imported
when the command runs, so that `rulebook --help` stays fast.
"""
from __future__ import annotations

__all__ = ["add_parser", "run_command", "DiffError"]


class DiffError(Exception):
    """A side that cannot be read (unknown revision, not a git checkout, unsafe archive) or a
    simulation the two sides cannot share (no common player count)."""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "diff", help="what changed between two versions of the rules (and, with --simulate, in play)",
        description="Each side is NAME, PATH, NAME@REV or PATH@REV (a git revision of the ruleset "
                    "folder). -m adds a module to the NEW side, --old-module to the OLD side.")
    parser.add_argument("old", help="the old side: NAME, PATH, NAME@REV or PATH@REV")
    parser.add_argument("new", help="the new side: NAME, PATH, NAME@REV or PATH@REV")
    parser.add_argument("--module", "-m", action="append", default=[], metavar="NAME",
                   help="a module of the NEW side (repeatable)")
    parser.add_argument("--old-module", action="append", default=[], metavar="NAME",
                   help="a module of the OLD side (repeatable)")
    parser.add_argument("--simulate", type=int, metavar="K", help="also play K seeded games on each side and compare")
    parser.add_argument("--players", type=int, help="player count for --simulate (default: the smallest both allow)")
    parser.add_argument("--seed", type=int, default=0, help="first seed for --simulate (default 0)")
    parser.add_argument("--agents", default="random",
                        help="agents for --simulate, one per seat, repeated (default random)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--exit-code", action="store_true",
                        help="exit 1 when the rules differ (as git diff --exit-code)")


def run_command(args, out, err) -> int:
    """`rulebook diff`: 0 whether or not the sides differ (1 with --exit-code when they do),
    1 for a ruleset with errors or a failed game, 2 for a usage error."""
    import json

    from .balance import common_players, compare_balance
    from .report import json_report, text_report
    from .semantic import diff_rulesets
    from .sides import open_side

    if args.simulate is not None and args.simulate < 1:
        print("rulebook diff: error: --simulate needs at least 1 game", file=err)
        return 2
    try:
        with open_side(args.old, args.old_module) as old, open_side(args.new, args.module) as new:
            changes = diff_rulesets(old.rs, new.rs, new.where)
            balance = None
            if args.simulate:
                players = common_players(old.rs, new.rs, args.players)
                agents = [a.strip() for a in args.agents.split(",") if a.strip()]
                balance = compare_balance(old.rs, new.rs, players, args.simulate, args.seed, agents)
            if args.json:
                print(json.dumps(json_report(old, new, changes, balance), indent=2, ensure_ascii=False), file=out)
            else:
                out.write(text_report(old, new, changes, balance))
    except DiffError as error:
        print(f"rulebook diff: error: {error}", file=err)
        return 2
    if balance is not None and (balance["old"]["errors"] or balance["new"]["errors"]):
        return 1
    return 1 if (args.exit_code and changes) else 0
