"""The view model: how people see a game, as plain data, for the terminal and the web table.

    from interpreter.view import table_view, component_view
    view = table_view(state, player)        # player: a seat number (None: everyone, finished games)

A ruleset's `view:` section (docs/language.md, "View") says which vars form the shared board,
what each player's area holds, how components and players are shown, which vars are internal,
how a parameterised action is asked and what a decision is about; without one, sensible
defaults apply. `table_view` is built only from `state.observe(player)` and the history in its
public form: another player's secrets never enter it.

The dict (stable; new keys may be added, none renamed):

    {"ruleset": str, "title": str, "step": int, "terminal": bool,
     "phase": {"id": str, "label": str},
     "you": PLAYER,                                   # seat None: "everyone"
     "players": [PLAYER + {"current": bool, "you": bool}],
     "board": [TABLE],                                # the shared board
     "own_area": AREA or None,                        # the viewer's own area
     "other_areas": [AREA],                           # the other players' areas as the viewer sees them
     "decision": None or PLAYER + {"yours": bool, "prompt": str, "about": str},
     "actions": [GROUP],                              # the viewer's legal actions (empty when not their turn)
     "scores": {"columns": [str], "rows": [[CELL (the player, with "seat"), CELL per row, CELL total]],
                "winners": [seat], "decided_by": str}    # the last two once the game is over
     "log": [PLAYER + {"text": str}],                 # the last moves as the viewer may read them
     "log_lines": [str]}                              # the engine's last log lines (only with `log: public`)

    PLAYER = {"seat": int, "name": str, "colour": str}
    AREA   = PLAYER + {"fields": [{"title": str, "cell": CELL}]}
    TABLE  = {"id": str, "title": str, "columns": [str], "rows": [[CELL]]}
    CELL   = {"text": str} + optional "colour", "ref" (component id), "hidden": true,
             "parts": [CELL] (the items of a list or map; a player's part has "seat" and "colour")
    GROUP  = {"kind": action id or "choose", "title": str,
              "steps": [{"param": str, "question": str}],       # asked in this order; "shown": true when the
                                                                # view's `values:` says how the value reads (the path)
              "choices": [{"index": int, "label": str (the engine's), "text": str (as shown),
                           "path": [str, one per step], "args": {}}]}

`index` is the position of the action in `state.legal_actions(player)` filtered to the viewer
(`interpreter.view.steps.legal_for`). `component_view(state, player, id)` is one component as
`show CARD` prints it: CELL + {"type": str, "fields": [{"title", "cell"}]}.
"""
from __future__ import annotations

from .model import table_view
from .spec import compile_view, view_spec
from .steps import legal_for

__all__ = ["table_view", "component_view", "compile_view", "view_spec", "legal_for"]


def component_view(state, player, component_id: str):
    """One component by id (or by its shown name), as `show CARD` prints it, or None."""
    from .cells import Viewer

    observation = state.observe(player if player is not None else 0)
    viewer = Viewer(state.rs, view_spec(state.rs), observation["vars"], player)
    if component_id not in state.rs.entities:
        wanted = str(component_id).strip().lower()
        matches = [key for key, entity in state.rs.entities.items()
                   if isinstance(entity, dict) and str(entity.get("name", "")).lower() == wanted]
        if not matches:
            return None
        component_id = matches[0]
    return viewer.component(component_id)
