"""Which vars a declared view never shows: `unshown_vars(ruleset)`.

A var is shown when a text of the `view:` section (a table, a field, a column, a label, a
player's name or colour) names it, directly or through the defines it calls; internal vars
(`internal: true`, the view's `internal:` list, names starting with `_`, the engine's) need not
be. Used by the tests to check that every bundled module's additions appear in its views; a
ruleset without a view section shows everything by default and has nothing unshown.
"""
from __future__ import annotations

import re

from .spec import view_spec

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SHOWING_KEYS = ("board", "area", "players")  # the parts of the section that show values


def unshown_vars(ruleset) -> list:
    """The vars of `ruleset` its declared view never shows and does not declare internal, sorted."""
    spec = view_spec(ruleset)
    section = (ruleset.tree or {}).get("view") if ruleset.tree is not None else None
    if not spec.declared or not isinstance(section, dict):
        return []
    words = set()
    for key in SHOWING_KEYS:
        for text in _texts(section.get(key)):
            words.update(WORD.findall(text))
    shown = {word for word in words if word in ruleset.vars}
    for word in words:
        shown |= spec.define_vars.get(word, frozenset())
    return sorted(name for name in ruleset.vars
                  if name not in shown and name not in spec.internal and not name.startswith("_"))


def _texts(node) -> list:
    """Every text inside a part of the section."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [text for value in node.values() for text in _texts(value)]
    if isinstance(node, list):
        return [text for value in node for text in _texts(value)]
    return []
