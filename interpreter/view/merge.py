"""A module's `view:` merged into the view of the game it changes (called by compose.py).

Owns the merge rule of the view section, entry by entry, so that a module can show what it adds
without restating the whole view:
- `board:` tables are matched by `id` (default: the title), `area:` fields by `title`,
  `decisions:` by `prompt`: an entry with a known key replaces that entry in place, a new one is
  added at the end, and `{id: NAME, remove: true}` (or `{title: ...}`, `{prompt: ...}`) removes one;
- `components:`, `actions:` and `players:` are merged key by key (a module's key replaces the base's);
- `internal:` names are added to the base's;
- `log:` is replaced.
Does not own what any of these mean (spec.py) nor how modules are ordered (compose.py).
"""
from __future__ import annotations

from ..errors import Diagnostic, suggest
from ..nodes import Map, Seq
from ..loader import key_pos, pos_of, value_pos

LIST_KEYS = {"board": "id", "area": "title", "decisions": "prompt"}  # list -> the key that names an entry
MAP_KEYS = ("components", "actions", "players")
SECTION = "view"


def merge_view(base: Map, module_view: Map, diags: list) -> None:
    """Merge `module_view` (a module file's `view:` mapping) into `base["view"]` in place."""
    target = base.get(SECTION)
    if not isinstance(target, Map):
        target = Map()
        target.pos = pos_of(module_view)
        base[SECTION] = target
        base.kpos.setdefault(SECTION, pos_of(module_view))
    for key, value in module_view.items():
        if key in LIST_KEYS and isinstance(value, list):
            _merge_list(target, key, value, diags)
        elif key in MAP_KEYS and isinstance(value, Map) and isinstance(target.get(key), Map):
            for name, entry in value.items():
                _put(target[key], name, entry, key_pos(value, name), value_pos(value, name))
        elif key == "internal" and isinstance(value, list) and isinstance(target.get(key), list):
            names = target[key]
            for index, name in enumerate(value):
                if name not in names:
                    names.append(name)
                    if isinstance(names, Seq):
                        names.ipos.append(value_pos(value, index))
        else:
            _put(target, key, value, key_pos(module_view, key), value_pos(module_view, key))


def _put(mapping: Map, key, value, kpos, vpos) -> None:
    mapping[key] = value
    mapping.kpos[key] = kpos
    mapping.vpos[key] = vpos


def _merge_list(target: Map, key: str, entries: list, diags: list) -> None:
    """Entries of a module's board / area / decisions list into the base list, by name."""
    existing = target.get(key)
    if not isinstance(existing, Seq):
        items = existing if isinstance(existing, list) else []
        existing = Seq(items)
        existing.pos = pos_of(entries)
        existing.ipos = [pos_of(entries)] * len(items)
        _put(target, key, existing, pos_of(entries), pos_of(entries))
    for index, entry in enumerate(entries):
        where = value_pos(entries, index)
        name = entry_name(key, entry)
        position = _find(existing, key, name)
        if isinstance(entry, dict) and entry.get("remove") is True:
            if position is None:
                known = [entry_name(key, item) for item in existing]
                diags.append(Diagnostic("view", f"view: a module removes the {key} entry {name!r}, but there is none",
                                        where, suggest(str(name), [str(item) for item in known if item is not None])))
            else:
                del existing[position]
                del existing.ipos[position]
            continue
        if position is None:
            existing.append(entry)
            existing.ipos.append(where)
        else:
            existing[position] = entry
            existing.ipos[position] = where


def entry_name(key: str, entry):
    """What names a board table (its id, else its title), an area field (its title) or a
    decision (its prompt); None for an entry that is not a mapping."""
    if not isinstance(entry, dict):
        return None
    if key == "board":
        return entry.get("id", entry.get("title"))
    return entry.get(LIST_KEYS[key])


def _find(entries: list, key: str, name):
    if name is None:
        return None
    for position, entry in enumerate(entries):
        if entry_name(key, entry) == name:
            return position
    return None
