"""Variants of a loaded ruleset without editing its files: `--set NAME=VALUE` overrides the
initial value of a top-level var or a constant; `--compare` names a module, an override or
another ruleset; `--sweep NAME=V1,V2,...` is a series of overrides."""
from __future__ import annotations

import dataclasses

import yaml

from ..errors import suggest

__all__ = ["parse_override", "parse_sweep", "apply_overrides", "Variant", "parse_variant"]


class VariantError(ValueError):
    pass


def parse_value(text: str):
    """A YAML scalar or flow collection, read safely: 3, true, 'x', [1, 2]."""
    try:
        return yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError as exc:
        raise VariantError(f"cannot read the value {text!r}: {exc}".splitlines()[0]) from None


def parse_override(text: str) -> tuple:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise VariantError(f"'{text}' is not NAME=VALUE (e.g. --set years=2)")
    return name.strip(), parse_value(value)


def parse_sweep(text: str) -> tuple:
    name, sep, values = text.partition("=")
    if not sep or not name.strip() or not values.strip():
        raise VariantError(f"'{text}' is not NAME=V1,V2,... (e.g. --sweep years=1,2,3)")
    return name.strip(), [parse_value(v) for v in values.split(",")]


def apply_overrides(rs, overrides: dict):
    """A Ruleset that differs from `rs` only by the given initial values. Vars are replaced on a
    copy of the loaded Ruleset; constants are compiled into the expressions, so overriding one
    recompiles the already composed tree (its files are not read again)."""
    if not overrides:
        return rs
    settings = {k: v for k, v in overrides.items() if k in getattr(rs, "settings", {})}
    if settings:  # a declared setting: loaded as `--set` does elsewhere (checked, bounds, digest)
        from ..ruleset import load

        rs = load(rs.folder, modules=list(rs.modules), settings={**rs.overrides, **settings})
        overrides = {k: v for k, v in overrides.items() if k not in settings}
    var_values = {k: v for k, v in overrides.items() if k in rs.vars}
    constants = {k: v for k, v in overrides.items() if k not in rs.vars}
    known = list(rs.vars) + list(_constants(rs))
    for name in constants:
        if name not in _constants(rs):
            hint = suggest(name, known)
            raise VariantError(f"--set {name}: no top-level var or constant '{name}' in {rs.name}"
                               + (f" ({hint})" if hint else ""))
    if constants:
        rs = _recompile_with_constants(rs, constants)
    new_vars = dict(rs.vars)
    for name, value in var_values.items():
        new_vars[name] = dataclasses.replace(rs.vars[name], value=value, init=None)
    return dataclasses.replace(rs, vars=new_vars, init_templates={})


def _constants(rs) -> dict:
    tree = getattr(rs, "tree", None)
    return dict(tree.get("constants") or {}) if tree is not None else {}


def _recompile_with_constants(rs, constants: dict):
    import copy

    from ..compose import Composed
    from ..ruleset import compile_composed

    tree = copy.copy(rs.tree)  # a shallow copy: only the constants section is replaced
    section = copy.copy(tree["constants"])
    for name, value in constants.items():
        section[name] = value
    tree["constants"] = section
    composed = Composed(folder=rs.folder, tree=tree, modules=rs.modules, files=list(rs.files))
    new = compile_composed(composed)
    return dataclasses.replace(new, digest=rs.digest, warnings=rs.warnings)


@dataclasses.dataclass
class Variant:
    """One side of a comparison: a label, the ruleset (name or path), modules, overrides."""

    label: str
    ruleset: str
    modules: list
    overrides: dict


def parse_variant(text: str, base: Variant, module_names) -> Variant:
    """'NAME=VALUE' is an override, a module of the ruleset adds that module, anything else
    is another ruleset (a bundled name or a path)."""
    if "=" in text:
        name, value = parse_override(text)
        return Variant(text, base.ruleset, list(base.modules), {**base.overrides, name: value})
    if text in module_names:
        if text in base.modules:
            raise VariantError(f"--compare {text}: the module is already in the base run")
        return Variant(f"+{text}", base.ruleset, list(base.modules) + [text], dict(base.overrides))
    return Variant(text, text, [], dict(base.overrides))
