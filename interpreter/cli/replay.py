"""`rulebook replay FILE`: read a replay written by `rulebook play` (or a state saved by
`State.to_json`), play it again move by move and print each move (another player's secret move,
decision answer and chance outcome hidden with --player P), the final scores and the state
hash. `--step` steps through it with the table view (interpreter.terminal.replay); `--at N`
shows the table after move N.
"""
from __future__ import annotations

import json

from ..engine.labels import label_seen_by

__all__ = ["cmd_replay", "replay_entries", "printable"]


def printable(text) -> str:
    """Text that any output stream can take (a lone surrogate from a hostile file is escaped)."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")[:300]


def replay_entries(data):
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


def _read(path, err):
    """The replay's JSON, or None after saying why it cannot be read."""
    from ..errors import RulebookError
    from ..loader import read_limited

    try:  # a regular file under the size limit, never a pipe or a device (issue 16.10)
        return json.loads(read_limited(path, path).decode("utf-8"))
    except RulebookError as error:
        print(f"rulebook: error: cannot read replay {path}: {error.diagnostics[0].message}", file=err)
    except (ValueError, RecursionError) as error:
        print(f"rulebook: error: cannot read replay {path}: {error}", file=err)
    return None


def _start(args, data, err):
    """(rules, state at set-up, entries), or None after saying what is wrong."""
    from ..errors import RuleRuntimeError
    from ..ruleset import load
    from ..settings import parse_assignments

    found = replay_entries(data)
    if found is None:
        print(f"rulebook: error: {args.file} is not a replay (it needs 'ruleset', 'players' and 'actions'; "
              "`rulebook play` writes one) nor a saved state (State.to_json)", file=err)
        return None
    ruleset, modules, players, seed, entries = found
    try:
        given = data.get("settings") or []
        settings = dict(given) if isinstance(given, dict) else parse_assignments(given if isinstance(given, list) else [])
    except (ValueError, TypeError) as error:
        print(f"rulebook: error: {args.file}: {error}", file=err)
        return None
    rules = load(ruleset, modules=modules if isinstance(modules, list) else [], settings=settings)
    manual = any(isinstance(entry, dict) and "chance" in entry for entry in entries)
    try:
        state = rules.new_game(players, seed=int(seed), chance="manual" if manual else "seeded")
    except (RuleRuntimeError, ValueError, TypeError, OverflowError) as error:
        print(f"rulebook: error: {args.file}: cannot start the game: {error}", file=err)
        return None
    return rules, state, entries


def apply_entry(state, rules, entry, number, viewer):
    """Apply one entry; (outcome, the line that tells it) or (None, an error line) if the entry
    is not a move. `viewer`: the player whose eyes the line is for (None: the whole record)."""
    if isinstance(entry, dict) and "chance" in entry:
        res = state.apply_chance(entry["chance"])
        outcome = "(hidden)" if viewer is not None else repr(entry["chance"])
        return res, printable(f"{number:4d}. chance: {outcome}") + ("" if res else f"  REFUSED: {_reason(res, viewer)}")
    move = entry.get("action") if isinstance(entry, dict) else None
    if not isinstance(move, dict):
        return None, printable(f"move {number} is not an action: {move!r}")
    at_once = state.is_simultaneous()  # a choice made with others at once is theirs until all are in
    res = state.apply(move)
    if res.code == "bad_action":
        return None, printable(f"move {number} is not an action: {move!r}")
    rule = rules.actions.get(move.get("action"))
    others = viewer is not None and move.get("player") != viewer
    secret = others and rule is not None and getattr(rule, "secret", False)
    # another player's answer to a decision may name a hidden card (as in play and the web table)
    shown = ("has chosen (at once with others)" if others and at_once else
             f"made a secret move: {move.get('action')}" if secret else
             "made a decision" if others and move.get("action") == "choose" else
             label_seen_by(rules, move, viewer).get("label") if others else move.get("label"))
    return res, (printable(f"{number:4d}. player {move.get('player')}: {shown}")
                 + ("" if res else printable(f"  REFUSED: {_reason(res, viewer)}")))


def _reason(outcome, viewer) -> str:
    """Why a move was refused, as `viewer` may read it (None: the whole record, every value)."""
    return outcome.reason if viewer is None else outcome.public_reason


def cmd_replay(args, out, err, stdin) -> int:
    data = _read(args.file, err)
    if data is None:
        return 1
    started = _start(args, data, err)
    if started is None:
        return 1
    rules, state, entries = started
    if args.step:
        from ..terminal.replay import step_through

        return step_through(rules, state, entries, args, out, err, stdin)
    states = [state.copy()] if args.at is not None else None
    for number, entry in enumerate(entries, 1):
        res, line = apply_entry(state, rules, entry, number, args.player)
        if res is None:
            print(f"rulebook: error: {args.file}: {line}", file=err)
            return 1
        print(line, file=out)
        if not res:
            return 1
        if states is not None:
            states.append(state.copy())
    print_end(state, out)
    if states is not None:
        from ..terminal.replay import show_at

        return show_at(states, args, out, err)
    return 0


def print_end(state, out) -> None:
    table = state.scores() if state.is_terminal else {}
    if table:
        print("final scores: " + ", ".join(f"player {p}: {s['total']}" for p, s in table.items()), file=out)
        print(f"winners: {', '.join(map(str, state.winners()))}", file=out)
    print(f"state hash {state.hash()}", file=out)
