"""Finding a ruleset, reading its files and composing its modules into one tree.

Owns: name -> folder lookup, the merge of a ruleset's files (a definition id defined twice is an
error naming both places), module overlays (add, replace, delete with null), requires/excludes,
and the conflict rule (two modules setting the same key differently need a declared order).
Does not own the meaning of any section.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from .errors import Diagnostic, Pos, RulebookError, suggest
from .loader import Map, Seq, clone, expand_includes, key_pos, load_file, pos_of, safe_path, value_pos
from .combinations import (MAX_DERIVED_COMBINATIONS, combination_error, combination_players,  # noqa: F401
                           _ordered_before, derive_combinations, module_order)  # (re-exported: the public place was compose)

__all__ = ["find_ruleset", "bundled_rulesets", "Composed", "compose", "read_ruleset", "ROOT_FILE",
           "derive_combinations", "combination_players", "combination_error"]

ROOT_FILE = "game.yaml"
KEYED = ("constants", "settings", "fields", "vars", "define", "procedures", "actions", "phases", "modules")
NESTED_KEYED = ("components",)  # type -> id -> definition
MERGED_MAPS = ("game",)
LISTS = ("assertions", "combinations")
NESTED_OVERLAYS = {("scoring", "rows")}  # mappings of ids inside a section, overlaid id by id


def _rulesets_dirs() -> list[str]:
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [os.path.join(os.path.dirname(here), "rulesets"), os.path.join(here, "rulesets")]
    extra = os.environ.get("RULEBOOK_PATH")
    if extra:
        dirs = extra.split(os.pathsep) + dirs
    return [d for d in dirs if os.path.isdir(d)]


def bundled_rulesets() -> dict[str, str]:
    out = {}
    for directory in _rulesets_dirs():
        for name in sorted(os.listdir(directory)):
            if os.path.isfile(os.path.join(directory, name, ROOT_FILE)) and name not in out:
                out[name] = os.path.join(directory, name)
    return out


def find_ruleset(name_or_path: str) -> str:
    """A bundled ruleset by name, or a folder / game.yaml by path."""
    text = str(name_or_path)
    if os.path.isfile(text) and text.endswith((".yaml", ".yml")):
        return os.path.dirname(os.path.abspath(text)) or "."
    if os.path.isdir(text) and os.path.isfile(os.path.join(text, ROOT_FILE)):
        return os.path.abspath(text)
    bundled = bundled_rulesets()
    if text in bundled:
        return bundled[text]
    hint = suggest(text, list(bundled))
    if os.path.isdir(text):
        msg = f"'{text}' is a folder without a {ROOT_FILE}"
    else:
        msg = f"no ruleset named '{text}'"
    raise RulebookError([Diagnostic("ruleset", msg, Pos(text, 0, 0),
                                    hint or f"bundled rulesets: {', '.join(bundled) or 'none'}")], "load")


@dataclass
class Composed:
    """A ruleset's rule files composed into one tree, with where each part came from."""
    folder: str
    tree: Map  # the composed top-level mapping
    modules: tuple
    files: list = field(default_factory=list)  # display paths read
    trees: list = field(default_factory=list)  # (display path, tree) of every file read
    origin: dict = field(default_factory=dict)  # (section, id) -> display path of the definer
    overrides: dict = field(default_factory=dict)  # setting -> value given by --set / load(settings=)


def _display(folder: str):
    cwd = os.getcwd()

    def rel(path):
        absolute = os.path.abspath(path)
        try:
            relative = os.path.relpath(absolute, cwd)
        except ValueError:
            return absolute
        return absolute if relative.startswith("..") and len(relative) > len(absolute) else relative
    return rel


def read_ruleset(folder: str):
    """Root file plus includes, merged; returns (merged Map, display paths read, origin of
    each definition, [(display path, tree)] of every file read)."""
    rel = _display(folder)
    root_path = os.path.join(folder, ROOT_FILE)
    root = load_file(safe_path(folder, ROOT_FILE, "the root file", Pos(rel(root_path), 0, 0)), rel(root_path))
    if not isinstance(root, Map):
        raise RulebookError([Diagnostic("shape", "the root file must be a mapping of sections",
                                        pos_of(root, Pos(rel(root_path), 1, 1)))], "load")
    parts = [(rel(root_path), root)] + expand_includes(root, folder, rel(root_path), rel)
    merged = Map()
    merged.pos = root.pos
    origin: dict = {}
    diags: list = []
    for display, tree in parts:
        if not isinstance(tree, Map):
            diags.append(Diagnostic("shape", "a rule file must be a mapping of sections", pos_of(tree, Pos(display, 1, 1))))
            continue
        _merge_file(merged, tree, display, origin, diags)
    if diags:
        raise RulebookError(diags, "load")
    return merged, [p for p, _ in parts], origin, parts


def _merge_file(merged: Map, tree: Map, display: str, origin: dict, diags: list):
    for section, value in tree.items():
        if section in KEYED or section in NESTED_KEYED:
            if value is None:
                continue
            if not isinstance(value, Map):
                diags.append(Diagnostic("shape", f"'{section}' must be a mapping of definitions",
                                        value_pos(tree, section)))
                continue
            target = merged.setdefault(section, _new_map(value))
            if section not in merged.kpos:
                merged.kpos[section] = key_pos(tree, section)
                merged.vpos[section] = value_pos(tree, section)
            if section in NESTED_KEYED:
                for typ, defs in value.items():
                    if defs is None:
                        continue
                    if not isinstance(defs, Map):
                        diags.append(Diagnostic("shape", f"components of type '{typ}' must be a mapping id -> attributes",
                                                value_pos(value, typ)))
                        continue
                    sub = target.setdefault(typ, _new_map(defs))
                    target.kpos.setdefault(typ, key_pos(value, typ))
                    _merge_defs(sub, defs, (section, typ), display, origin, diags)
            else:
                _merge_defs(target, value, (section,), display, origin, diags)
        elif section == "patch":
            diags.append(Diagnostic("patch", "'patch' changes the rules only in a module file", key_pos(tree, section),
                                    "write the change itself here, or move the patch into a module"))
        elif section in MERGED_MAPS:
            if not isinstance(value, Map):
                merged[section] = value
                continue
            target = merged.setdefault(section, _new_map(value))
            merged.kpos.setdefault(section, key_pos(tree, section))
            _merge_defs(target, value, (section,), display, origin, diags)
        elif section in LISTS:
            if isinstance(value, list):
                target = merged.setdefault(section, _new_seq(value))
                merged.kpos.setdefault(section, key_pos(tree, section))
                for index, item in enumerate(value):
                    target.append(item)
                    target.ipos.append(value_pos(value, index))
            else:
                merged[section] = value
        else:
            if section in merged and section != "include":
                diags.append(Diagnostic("duplicate", f"section '{section}' is set in two files",
                                        key_pos(tree, section), f"also set in {origin.get((section,), '?')}"))
                continue
            merged[section] = clone(value)  # modules may overlay inside it: never touch the file's tree
            merged.kpos[section] = key_pos(tree, section)
            merged.vpos[section] = value_pos(tree, section)
            origin[(section,)] = display


def _new_map(like) -> Map:
    node = Map()
    node.pos = pos_of(like)
    return node


def _new_seq(like) -> Seq:
    node = Seq()
    node.pos = pos_of(like)
    return node


def _merge_defs(target: Map, defs: Map, path: tuple, display: str, origin: dict, diags: list):
    for key, value in defs.items():
        if key in target:
            first = target.kpos.get(key)
            diags.append(Diagnostic(
                "duplicate", f"'{key}' is defined twice in {'.'.join(path)}", key_pos(defs, key),
                f"first defined at {first}" if first else None))
            continue
        target[key] = value
        target.kpos[key] = key_pos(defs, key)
        target.vpos[key] = value_pos(defs, key)
        origin[path + (key,)] = display


def compose(folder: str, modules=()) -> Composed:
    """The ruleset in `folder` with `modules` overlaid, as a `Composed` (the tree, the
    modules in the order applied, every file read), or RulebookError."""
    base, files, origin, trees = read_ruleset(folder)
    trees = list(trees)
    rel = _display(folder)
    decls = base.get("modules") or Map()
    diags: list = []
    _check_module_decls(base, decls, diags)
    if diags:
        raise RulebookError(diags, "modules")
    order = module_order(decls, _module_names(modules, rel(os.path.join(folder, ROOT_FILE))), diags,
                         key_pos(base, "modules") if "modules" in base else pos_of(base))
    if diags:
        raise RulebookError(diags, "modules")
    setters: dict = {}  # path -> (module, value, pos)
    for name in order:
        declared = decls[name] or {}
        paths = ([declared["file"]] if declared.get("file") else []) + list(declared.get("files") or [])
        for path in paths:
            where = value_pos(declared, "file" if declared.get("file") == path else "files")
            try:
                full = safe_path(folder, path, f"module '{name}': file", where, "module")
                shown = rel(os.path.join(folder, path))
                tree = load_file(full, shown)
            except RulebookError as error:
                diags.extend(error.diagnostics)
                continue
            files.append(shown)
            trees.append((shown, tree))
            if not isinstance(tree, Map):
                diags.append(Diagnostic("shape", "a module file must be a mapping of sections", pos_of(tree)))
                continue
            _overlay(base, tree, name, decls, setters, origin, shown, diags)
    for section in ("vars", "define", "procedures", "actions", "phases"):
        defs = base.get(section)
        if isinstance(defs, Map):
            for key, value in defs.items():
                if value is None:  # `id:` with nothing after it (null deletes only in a module)
                    diags.append(Diagnostic("empty-definition", f"'{key}' in {section} has no definition",
                                            key_pos(defs, key),
                                            "write its definition, or remove the line (null deletes only in a module)"))
    if diags:
        raise RulebookError(diags, "modules")
    return Composed(folder, base, tuple(order), files=files, origin=origin, trees=trees)


def _module_names(modules, shown: str) -> list:
    """The chosen modules as a list of names (one name alone is accepted), or RulebookError:
    they may come from a replay or a save, which are untrusted."""
    if isinstance(modules, str):
        modules = [modules]
    if not isinstance(modules, (list, tuple)) or not all(isinstance(m, str) for m in modules):
        raise RulebookError([Diagnostic("module", f"the modules to play are a list of names, not {modules!r}"[:200],
                                        Pos(shown, 0, 0))], "modules")
    return list(modules)


_MODULE_LISTS = ("files", "requires", "after", "excludes")


def _check_module_decls(base: Map, decls, diags: list) -> None:
    """The shapes composing relies on, before it relies on them: `modules` is a mapping of
    declarations, each a mapping (or empty) whose `file` is text and whose `files`,
    `requires`, `after` and `excludes` are lists of text. (The schema says the rest.)"""
    if not isinstance(decls, Map):
        diags.append(Diagnostic("module", "'modules' must be a mapping of module names to declarations",
                                value_pos(base, "modules")))
        return
    for name, decl in decls.items():
        if decl is None:
            continue
        if not isinstance(decl, Map):
            diags.append(Diagnostic("module", f"module '{name}' must be a mapping (file, files, requires, ...)",
                                    value_pos(decls, name), f"e.g. {name}: {{file: modules/{name}.yaml}}"))
            continue
        if "file" in decl and decl["file"] is not None and not isinstance(decl["file"], str):
            diags.append(Diagnostic("module", f"module '{name}': 'file' must be a path (text)",
                                    value_pos(decl, "file"), "write the path relative to the ruleset folder"))
        for key in _MODULE_LISTS:
            value = decl.get(key)
            if value is None:
                continue
            if not isinstance(value, list):
                diags.append(Diagnostic("module", f"module '{name}': '{key}' must be a list", value_pos(decl, key),
                                        f"write {key}: [...]"))
                continue
            for index, item in enumerate(value):
                if not isinstance(item, str):
                    diags.append(Diagnostic("module", f"module '{name}': every entry of '{key}' must be text",
                                            value_pos(value, index)))


def _overlay(base: Map, tree: Map, module: str, decls, setters, origin, display, diags):
    for section, value in tree.items():
        if section in ("modules", "include", "combinations"):
            diags.append(Diagnostic("module", f"a module may not set '{section}'", key_pos(tree, section),
                                    "declare modules and combinations in game.yaml"))
            continue
        if section == "patch":
            _patch(base, value, module, decls, setters, origin, display, diags)
            continue
        if section in LISTS:
            tgt = base.setdefault(section, _new_seq(value))
            for index, item in enumerate(value or []):
                tgt.append(item)
                tgt.ipos.append(value_pos(value, index))
            continue
        if not isinstance(value, Map):
            diags.append(Diagnostic("shape", f"'{section}' must be a mapping", value_pos(tree, section)))
            continue
        if section == "view":  # merged entry by entry (interpreter/view/merge.py)
            from .view.merge import merge_view

            merge_view(base, value, diags)
            continue
        tgt = base.setdefault(section, _new_map(value))
        if section in NESTED_KEYED:
            for typ, defs in value.items():
                if defs is None:
                    tgt.pop(typ, None)
                    continue
                sub = tgt.setdefault(typ, _new_map(defs))
                tgt.kpos.setdefault(typ, key_pos(value, typ))
                _overlay_defs(sub, defs, (section, typ), module, decls, setters, origin, display, diags)
        else:
            _overlay_defs(tgt, value, (section,), module, decls, setters, origin, display, diags)


def _patch(base, patch, module, decls, setters, origin, display, diags):
    """A module's `patch:` (patches.py); two modules patching one path differently need an order."""
    from .loader import plain
    from .patches import apply_patches

    def conflict(full, value, where):
        prev = setters.get(full)
        if prev is None or plain(prev[1]) == plain(value) or _ordered_before(decls, prev[0], module):
            return None
        return Diagnostic("module-conflict",
                          f"modules '{prev[0]}' and '{module}' both patch {'.'.join(full[1:])} differently", where,
                          f"'{prev[0]}' patches it at {prev[2]}; declare an order with 'after: [{prev[0]}]' "
                          f"on module '{module}'")

    apply_patches(base, patch, module, setters, origin, display, diags, conflict)


def _overlay_defs(target, defs, path, module, decls, setters, origin, display, diags):
    from .loader import plain

    for key, value in defs.items():
        full = path + (key,)
        if full in NESTED_OVERLAYS and isinstance(value, Map) and isinstance(target.get(key), Map):
            # scoring rows are definitions by id: a module adds, replaces or deletes single rows
            _overlay_defs(target[key], value, full, module, decls, setters, origin, display, diags)
            continue
        prev = setters.get(full)
        if prev is not None:
            pmod, pval, ppos = prev
            if plain(pval) != plain(value) and not _ordered_before(decls, pmod, module):
                diags.append(Diagnostic(
                    "module-conflict",
                    f"modules '{pmod}' and '{module}' both set {'.'.join(map(str, full))} differently",
                    key_pos(defs, key),
                    f"'{pmod}' sets it at {ppos}; declare an order with 'after: [{pmod}]' on module '{module}'"))
                continue
        setters[full] = (module, value, key_pos(defs, key))
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value
            target.kpos[key] = key_pos(defs, key)
            target.vpos[key] = value_pos(defs, key)
        origin[full] = display
