"""What the values held in the stack's waiting frames are, kept across a copy, a refused move,
`undo` and a save. A local bound before a `choose` (or a loop's items, the effects below a
sub-phase) may be a var's own list, a constant or another local's value (docs/language.md,
"Locals are values"): a `move` through it after the decision changes that var, or is refused
for a constant. Plain data loses that (a copy or a JSON save holds an equal list, not the same
one), so a copied or loaded game would play on differently from the live one.

A copy of the data (`copied`, `snapshot`/`restored`) keeps it with marshal's references (format
4: a frame value that is a var's list, or another frame's value, stays that one) when a waiting
frame holds a list or a map, and puts the constants back by link; otherwise it is the plain copy
(no references, like a JSON round-trip). A save carries the links of every such value.

A link is `[where, target]`: `where` a path in the stack, `[frame index, "locals" or "items",
key, ...]`; `target` `["vars", key, ...]`, `["stack", frame index, field, key, ...]` (a value
held earlier in the stack), `["constant", name, key, ...]` or `["component", id, key, ...]`.

Owns: copying a game's data with what its frame values are, the links of a save
(`frame_links`), putting links back (`relink`) and checking a save's (`link_problem`).
"""
from __future__ import annotations

import marshal
import weakref
from typing import Optional

__all__ = ["copied", "snapshot", "restored", "frame_links", "relink", "link_problem"]

_PLAIN, _WITH_REFERENCES = 2, 4  # marshal formats: without references (a JSON round-trip), with
_FIELDS = ("locals", "items")
_CONSTANT_PLACES: dict = {}  # id(ruleset) -> (a weak reference to it, {id: path}); (a Ruleset is not hashable)


def snapshot(ruleset, data: dict) -> tuple:
    """`data` as (bytes, links) for `restored`: what its frame values are kept (see above)."""
    for frame in data["stack"]:  # (at a plain turn only phase frames: the common case, in short)
        if frame["kind"] != "phase":
            break
    else:
        return marshal.dumps(data, _PLAIN), None
    held = _held(data)
    if not held:
        return marshal.dumps(data, _PLAIN), None
    return marshal.dumps(data, _WITH_REFERENCES), _links(ruleset, held, {})


def restored(ruleset, kept: tuple) -> dict:
    """A new copy of the data `snapshot` kept."""
    data = marshal.loads(kept[0])
    if kept[1]:
        relink(ruleset, data, kept[1])
    return data


def copied(ruleset, data: dict) -> dict:
    """A copy of game data `data` whose frame values are what they are in `data`."""
    return restored(ruleset, snapshot(ruleset, data))


def frame_links(ruleset, data: dict) -> list:
    """The links of the values held in `data`'s effect and loop frames, for a save ([] when they
    hold no list or map: the common case, found without looking at the vars)."""
    held = _held(data)
    return _links(ruleset, held, _places(data["vars"], ["vars"], {})) if held else []


def _held(data: dict) -> list:
    """[(frame index, field, locals or items)] of the waiting frames, when one holds a list or map."""
    held = [(index, field, frame[field]) for index, frame in enumerate(data["stack"]) if frame["kind"] != "phase"
            for field in _FIELDS if field in frame]
    for _index, _field, values in held:
        if _holds_containers(values):
            return held
    return []


def _links(ruleset, held: list, places: dict) -> list:
    """The links of the frame values `held`: to the values `places` names (id -> path), to the
    constants, and to values held earlier in the stack."""
    constants = _constant_places(ruleset)
    links: list = []

    def visit(value, path: list) -> None:
        if type(value) is not list and type(value) is not dict:
            return
        key = id(value)
        target = places.get(key) or constants.get(key)
        if target is not None:
            links.append([path, target])
            return
        places[key] = ["stack"] + path
        for inner, item in (value.items() if type(value) is dict else enumerate(value)):
            visit(item, path + [inner])

    for index, field, values in held:
        for key, value in (values.items() if type(values) is dict else enumerate(values)):
            visit(value, [index, field, key])
    return links


def _holds_containers(values) -> bool:
    for value in (values.values() if type(values) is dict else values):
        if type(value) is list or type(value) is dict:
            return True
    return False


def relink(ruleset, data: dict, links: list) -> None:
    """Make the frame values of `data` (a copy of the game the links were found in) what the
    links say they were."""
    for where, target in links:
        holder, key = _resolve(ruleset, data, ["stack"] + where[:-1]), where[-1]
        if key not in holder if type(holder) is dict else type(key) is not int or not 0 <= key < len(holder):
            raise KeyError(key)  # (a link only says what a value held there is)
        holder[key] = _resolve(ruleset, data, target)


def link_problem(ruleset, data: dict, links) -> Optional[str]:
    """Why the links of a save cannot be put back into its state `data` (then untouched), or
    None when they were put back."""
    if not isinstance(links, list):
        return "its links are not a list"
    stack = data["stack"]
    for link in links:
        if not (isinstance(link, list) and len(link) == 2 and isinstance(link[0], list) and isinstance(link[1], list)):
            return f"a link is not [where, target]: {str(link)[:80]}"
        where, target = link
        if len(where) < 3 or not isinstance(where[0], int) or isinstance(where[0], bool) or \
                not 0 <= where[0] < len(stack) or stack[where[0]]["kind"] == "phase" or where[1] not in _FIELDS:
            return f"a link is not held in a waiting frame: {str(where)[:80]}"
        if len(target) < 2 or target[0] not in ("vars", "stack", "constant", "component") or \
                (target[0] == "stack" and target[1:len(where) + 1] == where[:len(target) - 1]):
            return f"a link's target is not a var, a value held earlier in the stack or a constant: {str(target)[:80]}"
    try:
        relinked = marshal.loads(marshal.dumps(data, 2))
        relink(ruleset, relinked, links)
        marshal.dumps(relinked, 2)  # (a link that made a value hold itself is too deeply nested)
    except (KeyError, IndexError, TypeError, ValueError) as error:
        return f"a link does not lead to a value ({type(error).__name__})"
    relink(ruleset, data, links)
    return None


def _resolve(ruleset, data: dict, path: list):
    kind = path[0]
    if kind == "constant":
        value = ruleset.unit.ns["_K"][path[1]]
    elif kind == "component":
        value = ruleset.entities[path[1]]
    else:
        value = data[kind]  # "vars" or "stack"
        value = value[path[1]] if kind == "stack" else value
        if kind == "vars":
            return _walk(value, path[1:])
    return _walk(value, path[2:])


def _walk(value, keys):
    for key in keys:
        if type(value) is list and (type(key) is not int or key < 0):
            raise IndexError(key)
        value = value[key]
    if type(value) is not list and type(value) is not dict:
        raise TypeError("a link leads to a list or a map")
    return value


def _places(value, path: list, places: dict) -> dict:
    """id -> path of every list and map inside `value` (found at `path`), itself included."""
    places[id(value)] = path
    todo = [(value, path)]
    while todo:
        container, where = todo.pop()
        for key, item in (container.items() if type(container) is dict else enumerate(container)):
            if type(item) is list or type(item) is dict:
                inner = where + [key]
                places[id(item)] = inner
                todo.append((item, inner))
    return places


def _constant_places(ruleset) -> dict:
    """id -> path of every list and map inside the ruleset's constants and component records
    (the values every game of the ruleset shares), found once per loaded ruleset."""
    kept = _CONSTANT_PLACES.get(id(ruleset))
    if kept is not None and kept[0]() is ruleset:
        return kept[1]
    places: dict = {}
    for name, value in ruleset.unit.ns["_K"].items():
        if type(value) is list or type(value) is dict:
            _places(value, ["constant", name], places)
    for component_id, record in ruleset.entities.items():
        if type(record) is list or type(record) is dict:
            _places(record, ["component", component_id], places)
    key = id(ruleset)
    _CONSTANT_PLACES[key] = (weakref.ref(ruleset, lambda _gone: _CONSTANT_PLACES.pop(key, None)), places)
    return places
