"""What a player may see: `observe` (the state with other players' secrets replaced by their
sizes), the list of values hidden from a player, and `determinize` (a copy in which everything
hidden from a player is re-dealt at random).

Owns: the visibility of vars (`public`, `hidden`, `count`, `owner`) and of a pending decision
(`observation`, on the data of either engine: a compiled game observes through it too).
"""
from __future__ import annotations

import random

__all__ = ["observe", "observation", "hidden_vars", "determinize", "item_kind", "collect_lists"]


def observe(state, player: int) -> dict:
    """Everything `player` may see, and nothing else."""
    return observation(state.rs, player, state.vars, state.pending, state.phase, state.current_players,
                       state.is_terminal, state.steps)


def observation(ruleset, player: int, game_vars: dict, pending, phase, current: list, terminal: bool,
                step: int) -> dict:
    """`observe` from the game's data: its vars, its pending decision (None, or a dict with
    `player`, `prompt` and `options`, or `players` for several at once), its innermost phase,
    the players to act, whether it is over, its step count. An engine.State's (`observe`), or
    a compiled game's own (compiled/queries.py), which builds no engine.State for it."""
    declared = ruleset.vars
    view = {}
    for name, value in game_vars.items():
        decl = declared.get(name)
        visibility = decl.visibility if decl else "public"
        if visibility == "public":
            view[name] = value
        elif visibility == "hidden":
            view[name] = _hidden(value)
        elif visibility == "count":
            view[name] = _sizes(value)
        elif visibility == "owner":
            view[name] = [item if seat == player else _hidden(item) for seat, item in enumerate(value)]
    pending_view = None
    if pending is not None and "players" in pending:  # several players answer at once
        from .simultaneous import decision_view

        pending_view = decision_view(pending, player)
    elif pending is not None:
        pending_view = {"player": pending["player"], "prompt": pending["prompt"],
                        "options": pending["options"] if pending["player"] == player
                        else {"hidden": len(pending["options"])}}
    return {"player": player, "vars": view, "phase": phase, "current": current, "pending": pending_view,
            "terminal": terminal, "step": step}


def hidden_vars(ruleset, players: int, player: int) -> list:
    """(name, index or None) of every value `player` cannot see."""
    out = []
    for name, decl in ruleset.vars.items():
        if decl.visibility in ("hidden", "count"):
            out.append((name, None))
        elif decl.visibility == "owner":
            out.extend((name, seat) for seat in range(players) if seat != player)
    return out


def determinize(state, player: int, seed: int):
    """A copy in which everything `player` cannot see is re-dealt at random: every list hidden
    from them (in a hidden var, another player's `owner` slot, or a list inside a hidden map)
    keeps its size, and its items are exchanged only with unseen items of the same kind (the
    same component type, else the same type of value), so a goal never lands in a corp deck."""
    sample = state.copy()
    game_vars = sample.vars
    entities = state.rs.entities
    slots: list = []  # hidden lists, mutated in place
    for name, index in hidden_vars(state.rs, state.num_players, player):
        collect_lists(game_vars[name] if index is None else game_vars[name][index], slots)
    pools: dict = {}
    places: dict = {}
    for slot_index, items in enumerate(slots):
        for position, item in enumerate(items):
            kind = item_kind(entities, item)
            pools.setdefault(kind, []).append(item)
            places.setdefault(kind, []).append((slot_index, position))
    shuffler = random.Random(seed)
    for kind in sorted(pools, key=repr):  # in an order that does not depend on the hidden values
        items = sorted(pools[kind], key=repr)
        shuffler.shuffle(items)
        for (slot_index, position), item in zip(places[kind], items):
            slots[slot_index][position] = item
    from .simultaneous import redraw_others

    redraw_others(sample, player, shuffler)
    sample.reseed(f"/d{seed}")
    sample.touched()
    return sample


def item_kind(entities: dict, item):
    """What an item may be exchanged with: its component type, else the type of its value."""
    return entities[item]["type"] if isinstance(item, str) and item in entities else ("value", type(item).__name__)


def collect_lists(value, slots: list) -> None:
    """Append every list of plain values inside `value` (lists and maps, nested) to `slots`."""
    if isinstance(value, list):
        if all(not isinstance(item, (list, dict)) for item in value):
            slots.append(value)
        else:
            for item in value:
                collect_lists(item, slots)
    elif isinstance(value, dict):
        for item in value.values():
            collect_lists(item, slots)


def _sizes(value):
    """What a `count` var shows: the size of each list, keeping the keys of a map of lists
    (a map of decks shows how many cards each deck holds, not which)."""
    if isinstance(value, dict):
        return {key: _sizes(item) for key, item in value.items()}
    return _hidden(value)


def _hidden(value):
    if isinstance(value, (list, dict)):
        return {"hidden": len(value)}
    return {"hidden": True}
