"""What one seat sees of a state, for the browser: `seat_view(state, seat)` is the view model's
`interpreter.view.table_view` (the ruleset's `view:` section, or its defaults): board tables,
the seat's own area, the other players' areas as that seat sees them, the decision and what it
is about, the seat's actions grouped by kind and asked in steps, score rows and the last moves.

Everything comes from `state.observe(seat)` and the history in its public form (see
interpreter/view); `seat` None is everyone's view of a finished game.
"""
from __future__ import annotations

from interpreter.view import table_view
from interpreter.view.cells import Viewer
from interpreter.view.spec import view_spec


def seat_view(state, seat, *, actions: bool = True, shared: dict = None, finished_game: bool = False) -> dict:
    """The view of `state` for `seat` (an int), or for everyone when `seat` is None (only for a
    finished game: `finished_game=True` for its earlier states). `shared`: see `table_view`."""
    return table_view(state, seat, actions=actions, shared=shared, finished_game=finished_game)


def format_value(ruleset, value) -> str:
    """A short readable text for a value, as the view shows it: hidden values as 'hidden (n)',
    component ids by name."""
    return Viewer(ruleset, view_spec(ruleset), {"players": []}).cell(value)["text"]
