"""Defines that read state vars, kept while those vars are not written: `influence(p)` (a sum
over `items(shares[p])`) is asked for every player at every listing of Corporate Times'
purchasing phase, while `shares` changes only when someone buys or sells.

The compiled game (interpreter/compiled/) keeps a version per var, `W` (a dict: the var's name
-> a number drawn from TICK when the generated code last wrote it, and "" -> the number drawn
when the dict was made): every write the generated code makes is followed by a new number for
its var (blocks.py), and a game whose vars change any other way (undo, a move handed to the
reference engine, vars handed out, a copy's vars) gets a new dict or new numbers for the vars
changed (game.py). Numbers are never drawn twice in a process, so equal numbers mean equal
values. While the generated code of a game runs it puts `(V, W)` (its vars and their versions)
in `_OWN[0]`; a kept define called with that same vars dict keeps its value keyed by its
arguments and the versions of the vars it reads (statically: the vars its text names and
those of the defines it calls, transitively); called with any other dict (the reference
engine's, another game's) it computes its value.

Which defines: one whose own code goes through a collection (a comprehension or a builtin that
iterates: cheaper ones cost less than the lookup), that reads at least one var and,
neither itself nor through the defines it calls, no local (a local is not versioned).

The work bound is charged as before: a kept value keeps the work computing it cost and a call
that finds it charges that work again; when that would pass the bound, the define is computed
instead, so it is refused at the same step with the same error as without the memo.

Owns: which defines are kept (`versioned_defines`), their generated wrappers
(`with_versioned_values`), the runtime helpers (`version_helpers`) and TICK.
"""
from __future__ import annotations

import itertools

KEPT_PER_DEFINE = 2048  # values kept per define (then the memo starts again: old versions are dead)
KEPT_LIST_LENGTH = 256  # the longest list value kept
_PLAIN = (int, str, bool, float, type(None))
TICK = itertools.count(1).__next__  # the next version number (process-wide: never the same twice)
NOBODY = (None, None)  # `_OWN[0]` when no compiled game's generated code runs


def what_define_reads(names_used, params, scope, uses_budget: bool) -> tuple:
    """(the vars a define's own text reads, whether it reads a local, whether its own code goes
    through a collection: a comprehension or a builtin that iterates, `uses_budget`) from the
    names its text uses (a parameter hides a var of its name)."""
    own_names = set(names_used) - set(params)
    return own_names & set(scope.vars), bool(own_names & set(scope.locals)), uses_budget


def versioned_defines(define_vars: dict, calls: dict) -> dict:
    """{define: the vars it reads, transitively (sorted)} for the defines worth keeping
    (`define_vars`: define -> (the vars its own text names, whether it names a local, whether
    its own code goes through a collection); `calls`: define -> the defines it calls)."""
    reads: dict = {}

    def closure(name, seen=()):
        """(vars read, reads a local) of `name` and the defines it calls."""
        if name in seen:
            return set(), False
        if name not in reads:
            own = define_vars.get(name)
            found, local = (set(own[0]), own[1]) if own is not None else (set(), True)
            for callee in calls.get(name, ()):
                callee_vars, callee_local = closure(callee, seen + (name,))
                found |= callee_vars
                local = local or callee_local
            reads[name] = (found, local)
        return reads[name]

    chosen = {}
    for name, own in define_vars.items():
        found, local = closure(name)
        if found and not local and own[2]:
            chosen[name] = sorted(found)
    return chosen


def with_versioned_values(entries: list, chosen: dict, params: dict, namespace: dict) -> list:
    """The generated functions with each chosen define `d_x` renamed `d_x_body` and a `d_x`
    in front of it that keeps its values by (arguments, versions of the vars it reads), its
    memo `_W_x` put in `namespace`."""
    out = []
    for entry in entries:
        defined = [line[4:line.index("(")] for line in entry.splitlines() if line.startswith("def ")]
        name = defined[-1][2:] if defined and defined[-1].startswith("d_") else None
        if name not in chosen:
            out.append(entry)
            continue
        namespace[f"_W_{name}"] = {}
        arguments = ", ".join(["_V", "_L"] + [f"u_{param}" for param in params[name]])
        key = "".join(f"u_{param}, u_{param}.__class__, " for param in params[name])
        versions = "_w[''], " + "".join(f"_w.get({var!r}), " for var in chosen[name])
        out.append(entry.replace(f"def d_{name}(", f"def d_{name}_body(", 1))
        out.append(f"def d_{name}({arguments}):\n"
                   f"    _own = _OWN[0]\n"
                   f"    if _own[0] is not _V:\n        return d_{name}_body({arguments})\n"
                   f"    _w = _own[1]\n"
                   f"    _versions = ({versions})\n"
                   f"    _key = ({key})\n"
                   f"    try:\n        _hit = _W_{name}.get(_key)\n"
                   f"    except _TE:\n        return d_{name}_body({arguments})\n"
                   f"    if _hit is not None and _hit[0] == _versions:\n"
                   f"        if _B.left < _hit[2]:\n            return d_{name}_body({arguments})\n"
                   f"        _B.left -= _hit[2]\n"
                   f"        _value = _hit[1]\n"
                   f"        return _value[:] if _value.__class__ is _list_t else _value\n"
                   f"    _before = _B.left\n"
                   f"    _value = d_{name}_body({arguments})\n"
                   f"    if _value.__class__ in _SCALAR_KEPT and (_hit is not None or _len(_W_{name}) < {KEPT_PER_DEFINE}):\n"
                   f"        _W_{name}[_key] = (_versions, _value, _before - _B.left)\n"
                   f"        return _value\n"
                   f"    return _keep_versioned({name!r}, _key, _versions, _before, _value)\n")
    return out


def version_helpers(namespace: dict) -> dict:
    def keep_versioned(name: str, key: tuple, versions: tuple, before: int, value):
        """Keep the value of define `name` for `key` (computed from `before`, the work left
        then) when it is plain data or a list of plain data (a copy kept: each call is given
        its own) of at most KEPT_LIST_LENGTH elements."""
        kept = value
        if type(value) is list:
            if len(value) > KEPT_LIST_LENGTH:
                return value
            for item in value:
                if type(item) not in _PLAIN:
                    return value
            kept = value[:]
        elif type(value) not in _PLAIN:
            return value
        memo = namespace[f"_W_{name}"]
        if len(memo) >= KEPT_PER_DEFINE:
            memo.clear()
        memo[key] = (versions, kept, before - namespace["_B"].left)
        return value

    return {"_keep_versioned": keep_versioned, "_OWN": [NOBODY], "_SCALAR_KEPT": frozenset(_PLAIN), "_TE": TypeError}
