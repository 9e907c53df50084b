"""The plain-data view the terminal draws: `player_view(state, player)` (None: everything, for
a replay's whole record). It takes the language's view model (`interpreter.view.table_view`)
when the installed code has one, and otherwise builds the same shape from the generic seat view
of the web table (`interpreter.web.view.seat_view`, itself made from `observe`). Either way
nothing the player may not see reaches the dict.

Shape: {"player", "you": {"name", "colour"}, "names": {seat: name}, "phase", "step",
"terminal", "board": [table], "own": [table], "others": [table], "decision": {"player",
"prompt"} | None, "scores": [row] | None, "log": [line] | None}; a table is {"title",
"columns", "rows"} with text cells.
"""
from __future__ import annotations

__all__ = ["player_view", "player_name", "hides_information", "format_value", "public_move_text"]

from ..web.view import format_value, seat_view


def player_view(state, player, finished_game: bool = False) -> dict:
    """`player`'s view; None is everyone's, only for a finished game (`finished_game`: the
    caller vouches that the game of this earlier state is over — a replay's step)."""
    if player is None and not (state.is_terminal or finished_game):
        raise ValueError("everyone's view is only for a finished game: it shows every hand")
    model = _language_view(state, player, finished_game)
    if model is not None:
        return model
    return _generic_view(state, player)


def _language_view(state, player, finished_game=False):
    """The view model of the `view:` section, normalised; None where the code has none."""
    try:
        from .. import view as language_view  # the view section's model (issue 11 item 1)
    except ImportError:
        return None
    table_view = getattr(language_view, "table_view", None)
    if table_view is None:
        return None
    from .adapt import normalise

    try:
        model = table_view(state, player, finished_game=finished_game) if player is None else table_view(state, player)
    except TypeError:  # an older table_view without finished_game
        model = table_view(state, player)
    except (AttributeError, KeyError, IndexError, ValueError):
        return None  # a view model that fails on this state: the generic view still shows the table
    return normalise(model, state, player)


def player_name(view: dict, player) -> str:
    """A seat's name as the players know it (the view's name, e.g. RED), else 'player N'."""
    if player is None:
        return "everyone"
    return (view.get("names") or {}).get(player) or f"player {player}"


def hides_information(ruleset) -> list:
    """What makes a game one with hidden information: the vars a player may not see whole and
    the secret actions (empty for a game of perfect information)."""
    hidden = [name for name, decl in ruleset.vars.items() if decl.visibility != "public"]
    secret = [name for name, rule in ruleset.actions.items() if getattr(rule, "secret", False)]
    return hidden + [f"secret action {name}" for name in secret]


def _generic_view(state, player) -> dict:
    """The view of `seat_view`: per-player vars split into the player's own area (their row)
    and the others' rows; everything else is the board."""
    seat = seat_view(state, player)
    board, own, others = [], [], []
    for table in seat["tables"]:
        if table["title"] != "players":
            board.append(table)
            continue
        columns = table["columns"][1:]
        if player is None:
            others.append(table)
            continue
        mine = table["rows"][player] if player < len(table["rows"]) else []
        own.append({"title": f"your area (player {player})", "columns": ["", ""],
                    "rows": [[name, value] for name, value in zip(columns, mine[1:])]})
        rows = [row for index, row in enumerate(table["rows"]) if index != player]
        if rows:
            others.append({"title": "the other players", "columns": table["columns"], "rows": rows})
    decision = seat["pending"]
    return {"player": player, "you": {"name": f"player {player}" if player is not None else "everyone",
                                      "colour": None},
            "names": {}, "phase": seat["phase"], "step": seat["step"], "terminal": seat["terminal"],
            "board": board, "own": own, "others": others, "decision": decision, "scores": None, "log": None}


def public_move_text(state, action, watcher) -> str:
    """A move of another player as `watcher` may read it (the view's `move_text`: its kind and
    arguments by name, never a label template that may read the state)."""
    try:
        from ..view import view_spec
        from ..view.cells import Viewer
        from ..view.steps import move_text
    except ImportError:
        return action.name
    viewer = Viewer(state.rs, view_spec(state.rs), state.observe(watcher)["vars"])
    return move_text(state, viewer, {"action": action.to_json()}, watcher)

