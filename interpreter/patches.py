"""Path-addressed patches: a module changes one key of a definition without copying it.

    patch:
      settings.years.value: 2                    # one key of a setting
      phases.bills.next.0.if: "year < years"     # a list item by its index (0 is the first)
      components.bill.drill.home: 4              # one field of one card
      assertions.game_length: null               # remove the assertion with id game_length
      assertions.total_assets: {id: total_assets, expect: "..."}   # replace it

A path is SECTION.ID.KEY...; `components` takes a type and an id, `assertions` an assertion's
id. Each step must exist except the last key of a mapping (a new key is added); null removes the
key, the list item or the assertion. The definition patched is copied first, so the files' trees
(shared between module combinations) are never changed.

Owns: resolving a patch path, applying it with the patch's positions, and the errors of a path
that does not resolve (with "did you mean"). Called by compose.py for each module in order.
"""
from __future__ import annotations

from .errors import Diagnostic, suggest
from .loader import Map, Seq, clone, key_pos, pos_of, value_pos

__all__ = ["apply_patches"]


def apply_patches(base: Map, patch, module: str, setters: dict, origin: dict, display: str, diags: list,
                  conflict) -> None:
    """Apply a module's `patch:` mapping to the composed tree `base`. `conflict(full, value, pos)`
    returns a Diagnostic when another module set the same path differently, else None."""
    if not isinstance(patch, Map):
        diags.append(Diagnostic("shape", "'patch' must be a mapping of dotted paths to values", pos_of(patch)))
        return
    for path_text, value in patch.items():
        where = key_pos(patch, path_text)
        steps = str(path_text).split(".")
        if len(steps) < 2:
            diags.append(Diagnostic("patch", f"patch path '{path_text}' names no definition", where,
                                    "write SECTION.ID.KEY, e.g. phases.bills.next"))
            continue
        full = ("patch",) + tuple(steps)
        problem = conflict(full, value, where)
        if problem is not None:
            diags.append(problem)
            continue
        error = _apply_one(base, steps, value, where, value_pos(patch, path_text))
        if error is not None:
            diags.append(error)
            continue
        setters[full] = (module, value, where)
        origin[tuple(steps[:3])] = display


def _apply_one(base: Map, steps: list, value, where, vpos):
    """Apply one patch; returns a Diagnostic when the path does not resolve."""
    section = steps[0]
    if section not in base:
        return Diagnostic("patch", f"patch path '{'.'.join(steps)}': there is no section '{section}'", where,
                          suggest(section, [str(k) for k in base]))
    if section == "assertions":
        return _patch_assertion(base, steps, value, where, vpos)
    depth = 3 if section == "components" else 2  # the definition: components.TYPE.ID or SECTION.ID
    parent = base
    for index, step in enumerate(steps[:-1]):
        child = _child(parent, step)
        if child is _MISSING or not isinstance(child, (Map, Seq)):
            return _not_found(steps, index, parent, where)
        if index + 1 == depth:  # copy the definition before changing it: the file's tree is shared
            child = clone(child)
            _replace(parent, step, child)
        parent = child
    return _set(parent, steps, value, where, vpos)


_MISSING = object()


def _child(parent, step):
    if isinstance(parent, Map):
        return parent.get(step, _MISSING)
    if isinstance(parent, Seq) and step.isdigit() and int(step) < len(parent):
        return parent[int(step)]
    return _MISSING


def _replace(parent, step, child) -> None:
    if isinstance(parent, Map):
        parent[step] = child
    else:
        parent[int(step)] = child


def _set(parent, steps, value, where, vpos):
    last = steps[-1]
    if isinstance(parent, Map):
        if value is None:
            if last not in parent:
                return _not_found(steps, len(steps) - 1, parent, where)
            parent.pop(last)
            return None
        parent[last] = value
        parent.kpos[last] = where
        parent.vpos[last] = vpos
        return None
    if isinstance(parent, Seq):
        if not last.isdigit() or int(last) >= len(parent):
            return Diagnostic("patch", f"patch path '{'.'.join(steps)}': the list has {len(parent)} item(s), "
                                       f"numbered 0 to {len(parent) - 1}", where)
        index = int(last)
        if value is None:
            del parent[index]
            if index < len(parent.ipos):
                del parent.ipos[index]
            return None
        parent[index] = value
        if index < len(parent.ipos):
            parent.ipos[index] = vpos
        return None
    return _not_found(steps, len(steps) - 1, parent, where)


def _not_found(steps, index, parent, where):
    shown = ".".join(steps[:index + 1])
    if isinstance(parent, Map):
        hint = suggest(steps[index], [str(k) for k in parent]) or (
            f"keys here: {', '.join(map(str, list(parent)[:12]))}" if parent else None)
    elif isinstance(parent, Seq):
        hint = f"the list has {len(parent)} item(s), numbered 0 to {len(parent) - 1}"
    else:
        hint = "a patch path goes through mappings and lists only"
    return Diagnostic("patch", f"patch path '{'.'.join(steps)}': '{shown}' does not exist", where, hint)


def _patch_assertion(base: Map, steps, value, where, vpos):
    """assertions.ID: replace (a mapping) or remove (null) the assertion with that id; a longer
    path changes one key of it (assertions.ID.expect)."""
    items = base.get("assertions")
    ident = steps[1]
    index = next((position for position, item in enumerate(items or [])
                  if isinstance(item, dict) and item.get("id") == ident), None)
    if index is None:
        ids = [str(a.get("id")) for a in items or [] if isinstance(a, dict) and a.get("id")]
        return Diagnostic("patch", f"patch path '{'.'.join(steps)}': no assertion has id '{ident}'", where,
                          suggest(ident, ids) or ("assertions with an id: " + ", ".join(ids) if ids
                                                  else "give the assertion an 'id:' in its file"))
    if len(steps) == 2:
        if value is None:
            del items[index]
            if index < len(items.ipos):
                del items.ipos[index]
        else:
            items[index] = value
            if index < len(items.ipos):
                items.ipos[index] = vpos
        return None
    copy = clone(items[index])
    items[index] = copy
    parent = copy
    for position, step in enumerate(steps[2:-1], start=2):
        child = _child(parent, step)
        if child is _MISSING:
            return _not_found(steps, position, parent, where)
        parent = child
    return _set(parent, steps, value, where, vpos)
