"""Variants of a loaded ruleset without editing its files: `--set NAME=VALUE` overrides the
initial value of a top-level var or a constant; `--compare` names a module, an override or
another ruleset; `--sweep NAME=V1,V2,...` is a series of overrides."""
from __future__ import annotations

import dataclasses

import yaml


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


def apply_overrides(ruleset, overrides: dict):
    """A Ruleset that differs from `ruleset` only by the given values (settings, top-level vars'
    initial values, constants): `interpreter.settings.with_values`, the public way to make such a
    variant without reading the files again."""
    from ..errors import RulebookError
    from ..settings import with_values

    try:
        return with_values(ruleset, overrides)
    except ValueError as exc:
        raise VariantError(str(exc)) from None
    except RulebookError as exc:
        raise VariantError("; ".join(d.message for d in exc.diagnostics)) from None


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
