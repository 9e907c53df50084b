"""The language's view model (`interpreter.view.table_view`) in the shape the terminal draws
(see `view.py`): keys it lacks are filled from the generic view, so a partial model still
draws."""
from __future__ import annotations

__all__ = ["normalise"]


def normalise(model: dict, state, player) -> dict:
    from .view import _generic_view

    base = _generic_view(state, player)
    if not isinstance(model, dict):
        return base
    out = dict(base)
    for key in base:
        if key in model and model[key] is not None:
            out[key] = model[key]
    return out
