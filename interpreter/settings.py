"""Settings: the numbers a designer tunes, in one place each.

A ruleset's `settings:` section names them (`years: {value: 3, min: 1, max: 10, source: ...}`);
rules, phases and assertions read a setting by its name like a constant. `--set NAME=VALUE` on
the command line, or `interpreter.load(..., settings={NAME: VALUE})`, overrides the value.

Owns: parsing `NAME=VALUE`, checking an override (known name, same kind of value, inside the
declared bounds), writing the overrides into a composed tree (without touching the files'
shared trees), the values the compiler adds to the constants, the `--set` flag of the CLI, and
`with_values`: a variant of a loaded Ruleset with settings, top-level vars' initial values or
constants replaced, compiled from the rules already composed (no file is read again).
"""
from __future__ import annotations

import contextlib
import hashlib
import contextvars
import numbers

import yaml

from .errors import Diagnostic, Pos, RulebookError, suggest
from .loader import Map, key_pos, pos_of, value_pos

__all__ = ["parse_assignments", "overriding", "active_overrides", "add_set_flag",
           "apply_overrides", "setting_values", "with_values", "SETTINGS_STAGE"]

SETTINGS_STAGE = "settings"
_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("rulebook_settings", default=None)


def parse_assignments(texts) -> dict:
    """['years=2', 'start=4.5'] -> {'years': 2, 'start': 4.5}. A value is read as one safe YAML
    scalar (a number, true/false, or text); raises ValueError with the reason."""
    out: dict = {}
    for text in texts or ():
        name, sep, raw = str(text).partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"--set {text}: write NAME=VALUE, e.g. --set years=2")
        try:
            value = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError:
            value = raw
        if value is None or isinstance(value, (list, dict)):
            raise ValueError(f"--set {text}: the value must be a number, true/false or text")
        if not isinstance(value, (bool, numbers.Number, str)):
            value = str(raw)  # a date or a timestamp: kept as the text written
        out[name] = value
    return out


@contextlib.contextmanager
def overriding(overrides: dict):
    """Within the block, `ruleset.load` without explicit settings uses these overrides (the CLI
    sets them once for a command, so every ruleset the command loads gets them)."""
    token = _ACTIVE.set(dict(overrides or {}))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active_overrides() -> dict:
    return dict(_ACTIVE.get() or {})


def add_set_flag(subparsers, names) -> None:
    """Add `--set NAME=VALUE` (repeatable) to each named sub-command."""
    for name in names:
        parser = subparsers.choices.get(name)
        if parser is not None:
            parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="set",
                                help="override a setting of the ruleset (repeatable), e.g. --set years=2")


def _kind(value) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, numbers.Number):
        return "a number"
    return "text"


def _check_value(name, spec, value, where: Pos, said: str) -> list:
    """Diagnostics for a value of setting `name` that is of another kind or out of bounds."""
    declared = spec.get("value")
    if _kind(value) != _kind(declared):
        return [Diagnostic("setting", f"{said}: setting '{name}' is {_kind(declared)} "
                                      f"(declared {declared!r}), not {_kind(value)}", where,
                           f"write a value like {declared!r}")]
    if isinstance(declared, int) and not isinstance(declared, bool) and isinstance(value, float):
        if not value.is_integer():
            return [Diagnostic("setting", f"{said}: setting '{name}' is a whole number, not {value}", where)]
    low, high = spec.get("min"), spec.get("max")
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        if low is not None and value < low or high is not None and value > high:
            bounds = f"{low if low is not None else '…'} to {high if high is not None else '…'}"
            return [Diagnostic("setting", f"{said}: setting '{name}' = {value} is outside its declared "
                                          f"bounds {bounds}", where,
                               f"choose a value from {bounds}, or widen min/max in the setting")]
    return []


def apply_overrides(tree: Map, overrides: dict) -> None:
    """Check every declared setting and every override, and write the overrides into the
    composed tree's `settings` (new Maps: the files' trees are shared and stay untouched).
    Raises RulebookError (stage 'settings') listing every problem."""
    settings = tree.get("settings")
    settings = settings if isinstance(settings, Map) else Map()
    diags: list = []
    for name, spec in settings.items():
        if isinstance(spec, dict) and "value" in spec:
            diags.extend(_check_value(name, spec, spec["value"], value_pos(spec, "value"), "declared"))
    for name, value in (overrides or {}).items():
        spec = settings.get(name)
        if not isinstance(spec, dict):
            known = list(settings)
            diags.append(Diagnostic(
                "setting", f"--set {name}={value}: the ruleset has no setting '{name}'",
                pos_of(settings, pos_of(tree)),
                suggest(name, known) or (f"settings: {', '.join(known)}" if known
                                         else "this ruleset declares no settings")))
            continue
        problems = _check_value(name, spec, value, key_pos(settings, name), f"--set {name}={value}")
        if problems:
            diags.extend(problems)
            continue
        if isinstance(spec.get("value"), int) and isinstance(value, float):
            value = int(value)
        replaced = Map(spec)
        replaced.pos, replaced.kpos, replaced.vpos = spec.pos, dict(spec.kpos), dict(spec.vpos)
        replaced["value"] = value
        settings[name] = replaced
    if diags:
        raise RulebookError(diags, SETTINGS_STAGE)


def setting_values(tree) -> dict:
    """name -> value of every setting, for the compiler to add to the constants."""
    settings = tree.get("settings") or {}
    return {str(name): spec.get("value") for name, spec in settings.items() if isinstance(spec, dict)}


def _copy_map(node: Map) -> Map:
    """A shallow copy of a Map that keeps its positions (the original stays untouched)."""
    copied = Map(node)
    copied.pos, copied.kpos, copied.vpos = node.pos, dict(node.kpos), dict(node.vpos)
    return copied


def _var_with_value(spec, value) -> Map:
    """A var declaration whose initial value is `value` (an `init` expression is dropped)."""
    copied = _copy_map(spec) if isinstance(spec, Map) else Map()
    copied.pop("init", None)
    copied["value"] = value
    return copied


def with_values(ruleset, values: dict):
    """A Ruleset like `rs` but for the given values: a declared setting (checked as `--set`
    checks it), a top-level var's initial value (its `init` expression dropped), or a
    constant. The rules `rs` composed are compiled again; no file is read, so the variant can
    never mix in an edited file. Its digest is `rs.digest` with the values added. Raises
    ValueError for a name that is none of these (with a suggestion), RulebookError for a
    setting of the wrong kind or out of its bounds, or a value the rules cannot compile with."""
    if not values:
        return ruleset
    from .compose import Composed
    from .ruleset import compile_composed

    tree = _copy_map(ruleset.tree)
    sections = {section: tree.get(section) or {} for section in ("settings", "vars", "constants")}
    for name in values:
        if not any(name in names for names in sections.values()):
            hint = suggest(name, [n for names in sections.values() for n in names])
            raise ValueError(f"--set {name}: {ruleset.name} has no setting, top-level var or constant '{name}'"
                             + (f" ({hint})" if hint else ""))
    settings = {name: value for name, value in values.items() if name in sections["settings"]}
    if settings:
        tree["settings"] = _copy_map(sections["settings"])  # apply_overrides writes into it
        apply_overrides(tree, {**ruleset.overrides, **settings})
    for section in ("vars", "constants"):
        names = [name for name in values if name in sections[section] and name not in settings]
        if names:
            tree[section] = _copy_map(sections[section])
            for name in names:
                old = tree[section][name]
                tree[section][name] = _var_with_value(old, values[name]) if section == "vars" else values[name]
    composed = Composed(folder=ruleset.folder, tree=tree, modules=ruleset.modules, files=list(ruleset.files),
                        overrides={**ruleset.overrides, **settings})
    variant = compile_composed(composed)
    text = f"{ruleset.digest}|values:{sorted(values.items(), key=lambda item: item[0])!r}"
    variant.digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    variant.warnings = list(ruleset.warnings)
    return variant
