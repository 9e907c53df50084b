"""What one seat sees of a state, as plain tables for the browser: `seat_view(state, seat)`.

Everything is derived from `state.observe(seat)` (or, for a finished game's "all" perspective,
from every seat's observation merged), never from the raw state. Until a ruleset has its own
view section this renders a generic view: per-player vars as one table with a row per seat, maps
as key/value tables, the other vars as a board table; component ids are shown by their `name`.
"""
from __future__ import annotations

INTERNAL_VARS = {"players", "num_players", "current_phase"}


def seat_view(state, seat) -> dict:
    """The view of `state` for `seat` (an int), or for everyone when `seat` is None (only ever
    used for a finished game)."""
    rs = state.rs
    obs = _full_observation(state) if seat is None else state.observe(seat)
    players = list(range(len(obs["vars"].get("players", []))))
    per_player, board, maps = {}, {}, []
    for name, value in obs["vars"].items():
        if name in INTERNAL_VARS or name.startswith("_"):
            continue
        decl = rs.vars.get(name)
        if decl is not None and decl.per_player and isinstance(value, list):
            per_player[name] = value
        elif isinstance(value, dict) and "hidden" not in value:
            maps.append({"title": name, "columns": ["key", "value"],
                         "rows": [[str(key), format_value(rs, item)] for key, item in value.items()]})
        else:
            board[name] = value
    tables = []
    if per_player:
        columns = ["seat"] + list(per_player)
        rows = [[f"seat {p}"] + [format_value(rs, values[p]) if p < len(values) else "" for values in per_player.values()]
                for p in players]
        tables.append({"title": "players", "columns": columns, "rows": rows})
    if board:
        tables.append({"title": "board", "columns": ["var", "value"],
                       "rows": [[name, format_value(rs, value)] for name, value in board.items()]})
    tables.extend(maps)
    pending = obs.get("pending")
    return {"seat": seat, "phase": obs["phase"], "step": obs["step"], "terminal": obs["terminal"],
            "current": list(obs["current"] or []),
            "pending": None if pending is None else {"player": pending["player"], "prompt": pending["prompt"]},
            "tables": tables}


def _full_observation(state) -> dict:
    """Every seat's own observation merged: each `owner` slot from its owner; hidden vars stay
    hidden (nobody sees them)."""
    players = state.observe(0)["vars"].get("players", [0])
    merged = state.observe(0)
    for seat in players[1:]:
        other = state.observe(seat)
        for name, value in other["vars"].items():
            decl = state.rs.vars.get(name)
            if decl is not None and decl.visibility == "owner":
                merged["vars"][name][seat] = value[seat]
    return merged


def format_value(rs, value) -> str:
    """A short readable text for a value: hidden values as 'hidden (n)', component ids by name."""
    if isinstance(value, dict):
        if set(value) == {"hidden"}:
            return f"hidden ({value['hidden']})"
        return "; ".join(f"{key}: {format_value(rs, item)}" for key, item in value.items())
    if isinstance(value, list):
        return ", ".join(format_value(rs, item) for item in value) if value else "—"
    if value is None:
        return "—"
    if value == "":
        return "·"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        entity = rs.entities.get(value)
        if entity is not None and isinstance(entity, dict) and entity.get("name"):
            return str(entity["name"])
    return str(value)
