"""Reading a saved state back: the save format's version, the ruleset it was saved under (its
name, modules and digest) and the structure of the data are checked before a State is built,
so a damaged, foreign or hand-edited save is refused with its reason.

Owns: `SaveError` and `check_saved`.
"""
from __future__ import annotations

import json

from .aliases import link_problem
from .frames import check_frame

__all__ = ["SaveError", "check_saved", "SAVE_FORMAT"]

SAVE_FORMAT = 2
_STATE_KEYS = {"vars": dict, "stack": list, "terminal": bool, "step": int, "log": list, "seed": str}
# keys every saved state has, whose value may be null (State.new writes them all)
_NULLABLE_KEYS = {"pending": dict, "chance": dict, "rng": list}
_ENGINE_VARS = ("players", "num_players", "current_phase")


class SaveError(ValueError):
    """A saved state that cannot be resumed under this ruleset; the message says why."""


def check_saved(ruleset, text) -> dict:
    """The parsed save (its state's frame values linked back to what they were), or SaveError.
    `text` may also be the save's parsed data: it is read through a JSON copy, so the caller's
    data is never changed nor shared with the state, and data JSON cannot hold is refused."""
    try:
        data = json.loads(text if isinstance(text, (str, bytes)) else json.dumps(text))
    except (ValueError, TypeError, RecursionError) as error:
        raise SaveError(f"not a saved state: {error}"[:300]) from None
    if not isinstance(data, dict) or not isinstance(data.get("state"), dict):
        raise SaveError("not a saved state: it needs a 'state' mapping (State.to_json writes one)")
    if data.get("format") != SAVE_FORMAT:
        raise SaveError(f"saved in format {data.get('format', 1)!r}; this engine reads format {SAVE_FORMAT} "
                        "(replay the game's moves instead: `rulebook replay`)")
    modules = data.get("modules") or []
    if not isinstance(modules, list) or not all(isinstance(name, str) for name in modules):
        raise SaveError(f"the saved state is damaged: 'modules' is not a list of module names: {modules!r}"[:300])
    if data.get("ruleset") != ruleset.name or sorted(modules) != sorted(ruleset.modules):
        raise SaveError(f"saved under {data.get('ruleset')!r} with modules {data.get('modules')!r}, "
                        f"not {ruleset.name!r} with {list(ruleset.modules)!r}")
    if data.get("digest") != ruleset.digest:
        raise SaveError(f"the rules of {ruleset.name} changed since this state was saved (digest "
                        f"{data.get('digest')!r}, now {ruleset.digest!r}); play its history again instead: "
                        "State.from_history(ruleset, players, save['history'], seed), or `rulebook replay FILE`")
    try:
        reason = _structure_problem(ruleset, data["state"])
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError) as error:
        # a shape the checks above did not foresee is still a damaged save, never a traceback
        reason = f"unexpected shape ({type(error).__name__}: {error})"[:300]
    if not reason:  # what the waiting frames' values are: put back into the state (aliases.py)
        reason = link_problem(ruleset, data["state"], data.get("links", []))
    if reason:
        raise SaveError(f"the saved state is damaged: {reason}")
    history = data.get("history", [])
    if not isinstance(history, list) or not all(isinstance(e, dict) and ("action" in e or "chance" in e)
                                                for e in history):
        raise SaveError("the saved state is damaged: its history is not a list of moves and chance outcomes")
    return data


def _structure_problem(ruleset, state: dict):
    for key, typ in _STATE_KEYS.items():
        if not isinstance(state.get(key), typ) or (typ is int and isinstance(state.get(key), bool)):
            return f"'{key}' is not a {typ.__name__}"
    for key, typ in _NULLABLE_KEYS.items():
        if key not in state:
            return f"'{key}' is missing (it is null when there is none)"
        if state[key] is not None and not isinstance(state[key], typ):
            return f"'{key}' is neither null nor a {'list' if typ is list else 'mapping'}"
    game_vars = state["vars"]
    players = game_vars.get("num_players")
    if not isinstance(players, int) or players not in ruleset.players:
        return f"num_players {players!r} is not one of {list(ruleset.players)}"
    if game_vars.get("players") != list(range(players)):
        return "'players' does not list the seats 0.." + str(players - 1)
    unknown = [name for name in game_vars if name not in ruleset.vars and name not in _ENGINE_VARS]
    if unknown:
        return f"var '{unknown[0]}' is not declared by {ruleset.name}"
    missing = [name for name in ruleset.vars if name not in game_vars]
    if missing:
        return f"declared var '{missing[0]}' is missing"
    for name, decl in ruleset.vars.items():
        if decl.per_player and not (isinstance(game_vars[name], list) and len(game_vars[name]) == players):
            return f"per-player var '{name}' does not hold one value per player"
    rng = state.get("rng")
    if rng is not None and not (isinstance(rng, list) and len(rng) == 2 and isinstance(rng[0], str)
                                and isinstance(rng[1], int)):
        return "'rng' is not [seed, counter]"
    for frame in state["stack"]:
        problem = check_frame(frame, ruleset, players)
        if problem:
            return problem
    return _pending_problem(state, ruleset, players)


def _pending_problem(state, ruleset, players):
    """Why the saved pending decision or chance node cannot be resumed, or None."""
    return _decision_problem(state["pending"], state["stack"], players) or \
        _prompt_problem(state["pending"], state["stack"], ruleset) or _chance_problem(state)


def _prompt_problem(pending, stack, ruleset):
    """Why the saved pending decision's prompt is not the one its `choose` asks with, or None:
    the views fill a prompt in with the waiting rule's locals, so it must be the rule's, whose
    parts reading what the decider may not see are hidden (engine/prompts.py)."""
    if pending is None:
        return None
    frame = stack[pending["frame"]]
    block = ruleset.blocks[frame["block"]] or ()
    effect = block[frame["next"] - 1] if 0 < frame["next"] <= len(block) else None
    if getattr(effect, "prompt", None) != pending["prompt"]:
        return "the pending decision's prompt is not the one its rule asks with; play its history again instead"
    return None


def _decision_problem(pending, stack, players):
    if pending is None:
        return None
    if not isinstance(pending.get("options"), list) or not isinstance(pending.get("prompt"), str):
        return "the pending decision has no options or no prompt"
    if not _effect_frame_at(stack, pending.get("frame")) or not isinstance(pending.get("bind"), str):
        return "the pending decision does not point at a waiting effect"
    if "players" in pending:  # a decision of several players at once
        return _together_problem(pending, players)
    player = pending.get("player")
    if not _is_seat(player, players):
        return f"player {player!r} is to decide, but the game has {players} players"
    if not _labels_fit(pending.get("labels"), pending["options"]):
        return "the pending decision's labels are not one text per option"
    return None


def _chance_problem(state):
    chance, stack = state["chance"], state["stack"]
    if chance is None:
        return None
    if not isinstance(chance.get("options"), list) or not chance["options"]:
        return "the chance node has no outcomes"
    if not _effect_frame_at(stack, chance.get("frame")) or not isinstance(stack[chance["frame"]].get("draws"), list):
        return "the chance node does not point at a waiting effect"
    return None


def _labels_fit(labels, options) -> bool:
    """True when a decision's saved labels are none, or one text per option."""
    return labels is None or (isinstance(labels, list) and len(labels) == len(options)
                              and all(isinstance(label, str) for label in labels))


def _is_seat(value, players) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players


def _together_problem(pending, players):
    """Why a saved decision of several players cannot be one, or None."""
    waiting, answers, choices = pending.get("players"), pending.get("answers"), pending.get("choices")
    if not isinstance(waiting, list) or not all(_is_seat(seat, players) for seat in waiting):
        return "a decision of several players does not list seats"
    if not isinstance(answers, list) or len(answers) != players:
        return "a decision of several players does not hold one answer per player"
    if not isinstance(choices, list) or not all(
            isinstance(choice, dict) and _is_seat(choice.get("player"), players)
            and isinstance(choice.get("options"), list) and choice["options"]
            and "labels" in choice and _labels_fit(choice["labels"], choice["options"]) for choice in choices):
        return "a decision of several players has a choice without a seat, options or one label per option"
    if not isinstance(pending.get("opened"), int):
        return "a decision of several players does not say when it opened"
    return None


def _effect_frame_at(stack, index) -> bool:
    return (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(stack)
            and stack[index].get("kind") == "effects")
