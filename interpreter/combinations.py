"""Which modules a game is played with: the order modules apply in (`module_order`:
requires, after, excludes, and "did you mean" for an unknown module) and the combinations a
ruleset allows (`derive_combinations` from `requires`/`excludes` unless `combinations:` lists
them; `combination_players`, `combination_error`), one answer for validate and simulate.

Owns these rules only; composing the chosen modules into one tree is compose.py.
"""
from __future__ import annotations

from .errors import Diagnostic, Pos, RulebookError, suggest
from .loader import Map, Seq, key_pos, pos_of, value_pos

__all__ = ["module_order", "derive_combinations", "combination_players", "combination_error",
           "MAX_DERIVED_COMBINATIONS"]


def module_order(decls: Map, chosen: list, diags: list, where: Pos) -> list:
    """Chosen modules plus what they require, ordered so that a module comes after those it
    requires or names in `after`."""
    out: list = []
    visiting: set = set()

    def visit(name, via=None, position=None):
        if name in out:
            return
        if name not in decls:
            msg = f"unknown module '{name}'" + (f" (required by '{via}')" if via else "")
            diags.append(Diagnostic("module", msg, position or where,
                                    suggest(name, list(decls)) or f"modules: {', '.join(decls) or 'none'}"))
            return
        if name in visiting:
            diags.append(Diagnostic("module", f"modules require each other in a cycle through '{name}'",
                                    pos_of(decls[name])))
            return
        visiting.add(name)
        declared = decls[name] or {}
        reqs = declared.get("requires", []) or []
        for index, required in enumerate(reqs):
            visit(required, name, value_pos(reqs, index) if isinstance(reqs, Seq) else value_pos(declared, "requires"))
        for later in declared.get("after", []) or []:
            if later in chosen or any(later in ((decls.get(c) or {}).get("requires") or []) for c in chosen):
                visit(later, name)
        visiting.discard(name)
        out.append(name)

    for module in chosen:
        visit(module)
    for module in out:
        exc = (decls.get(module) or {}).get("excludes", []) or []
        for excluded_index, excluded in enumerate(exc):
            if excluded in out:
                diags.append(Diagnostic("module", f"module '{module}' excludes '{excluded}'",
                                        value_pos(exc, excluded_index) if isinstance(exc, Seq)
                                        else key_pos(decls, module),
                                        f"'{module}' and '{excluded}' cannot be played together: choose one"))
    return out


def _ordered_before(decls, first, second) -> bool:
    """Is `first` declared to come before `second` (second requires or is after first, transitively)?"""
    seen = set()
    stack = [second]
    while stack:
        module = stack.pop()
        if module in seen:
            continue
        seen.add(module)
        declared = decls.get(module) or {}
        deps = list(declared.get("requires", []) or []) + list(declared.get("after", []) or [])
        if first in deps:
            return True
        stack.extend(deps)
    return False


MAX_DERIVED_COMBINATIONS = 256


def derive_combinations(listed, decls, players) -> list:
    """Every module combination the game allows, as [{modules: sorted, players: [...]}]: the
    listed ones, plus each listed one joined by modules no listed combination names (a module
    declared once joins every combination whose modules it neither excludes nor is excluded by,
    bringing what it requires). Without a `combinations:` list, every set of modules closed
    under `requires` and free of `excludes`, played by the game's player counts."""
    decls = decls or {}
    listed = [{"modules": sorted(c.get("modules") or []), "players": list(c.get("players") or players)}
              for c in listed or [] if isinstance(c, dict)]
    named = {m for c in listed for m in c["modules"]}
    free = [m for m in decls if m not in named]
    bases = listed or [{"modules": [], "players": list(players)}]
    out: list = []
    seen: set = set()
    for base in bases:
        for chosen in _subsets(free):
            modules = _closed(set(base["modules"]) | set(chosen), decls)
            if modules is None or (chosen and not _requires_met_by(chosen, base["modules"], free, decls)):
                continue
            key = tuple(sorted(modules))
            if key in seen:
                continue
            seen.add(key)
            out.append({"modules": list(key), "players": list(base["players"])})
            if len(out) >= MAX_DERIVED_COMBINATIONS:
                return out
    return out


def _subsets(items):
    items = list(items)
    for mask in range(min(1 << len(items), MAX_DERIVED_COMBINATIONS)):
        yield [m for i, m in enumerate(items) if mask >> i & 1]


def _closed(modules: set, decls):
    """The modules plus everything they require; None when two of them exclude each other or
    one is not declared."""
    todo = list(modules)
    out = set()
    while todo:
        module = todo.pop()
        if module in out:
            continue
        if module not in decls:
            return None
        out.add(module)
        todo.extend((decls.get(module) or {}).get("requires") or [])
    for module in out:
        if set((decls.get(module) or {}).get("excludes") or []) & out:
            return None
    return out


def _requires_met_by(chosen, base_modules, free, decls) -> bool:
    """A free module joins a listed combination only when what it requires is in that
    combination or is itself free (otherwise it would create a combination nobody listed)."""
    for module in chosen:
        for required in (decls.get(module) or {}).get("requires") or []:
            if required not in base_modules and required not in free:
                return False
    return True


def combination_players(combinations, modules):
    """The player counts of the combination made of `modules`, or None when the game does not
    allow it. The one test `validate`, `simulate`, `play` and `diff` share."""
    chosen = sorted(modules)
    for combination in combinations:
        if sorted(combination.get("modules") or []) == chosen:
            return list(combination["players"])
    return None


def combination_error(combinations, modules, where: Pos) -> RulebookError:
    names = ["+".join(sorted(c.get("modules") or [])) or "base" for c in combinations]
    return RulebookError([Diagnostic(
        "module", f"the module combination {'+'.join(sorted(modules)) or 'base'} is not one the game allows",
        where, f"allowed: {', '.join(names)}")], "modules")
