"""The semantic diff of two loaded rulesets: their composed rule trees compared section by
section, as rules. Definitions are matched by id (components by type and id, shown by name),
changed definitions are compared field by field ("bill Drill Down Deeper: home.biggest 3 → 4"),
effect and requirement lists line by line, assertions by their expectation or message. Spacing
inside an expression is not a change; how the rules are split into files is not a change.

Owns `Change` and `diff_rulesets`. Does not own reading the sides (rulediff.sides).
"""
from __future__ import annotations

import json
import re

__all__ = ["Change", "diff_rulesets", "SECTION_ORDER"]

EFFECT_KEYS = ("effects", "on_enter", "on_exit", "on_turn", "on_round", "then", "else", "do", "requires")
KEYED_SECTIONS = {"constants": "constant", "settings": "setting", "vars": "var", "define": "define",
                  "procedures": "procedure", "actions": "action", "phases": "phase", "modules": "module"}
SECTION_ORDER = ("game", "settings", "constants", "components", "vars", "define", "procedures", "actions",
                 "phases", "scoring", "assertions", "modules", "combinations")
IGNORED_SECTIONS = ("include",)  # how the rules are split into files is not a rule
_MISSING = object()


class Change:
    """One change: its section (components, actions, phases ...), op ('+' added, '-' removed,
    '~' changed), subject ("bill Drill Down Deeper"), detail ("home.biggest 3 → 4"), where
    (file:line on the new side) and, for a changed list of rules, its '-'/'+' lines."""

    __slots__ = ("section", "op", "subject", "detail", "where", "lines")

    def __init__(self, section, operation, subject, detail="", where="", lines=None):
        self.section, self.op, self.subject = section, operation, subject
        self.detail, self.where, self.lines = detail, where, list(lines or [])

    def __repr__(self) -> str:
        return f"Change({self.text()!r})"

    def to_json(self) -> dict:
        return {"section": self.section, "op": self.op, "subject": self.subject, "detail": self.detail,
                "where": self.where, "lines": self.lines}

    def text(self) -> str:
        head = f"{self.op} {self.subject}" + (f": {self.detail}" if self.detail else "")
        return head + (f"    {self.where}" if self.where else "")


def diff_rulesets(old_rs, new_rs, where=None) -> list:
    """The changes from the old rules to the new, section by section; [] when they agree."""
    from ..loader import pos_of

    where = where or (lambda pos: f"{pos.file}:{pos.line}" if pos and pos.line else "")
    old_tree, new_tree = old_rs.tree, new_rs.tree
    differ = _Differ(where)
    sections = list(SECTION_ORDER) + sorted((set(old_tree) | set(new_tree)) - set(SECTION_ORDER)
                                            - set(IGNORED_SECTIONS))
    for section in sections:
        old, new = old_tree.get(section, _MISSING), new_tree.get(section, _MISSING)
        if _same(old, new):
            continue
        if section == "components":
            differ.components(old if old is not _MISSING else {}, new if new is not _MISSING else {})
        elif section in KEYED_SECTIONS and _mapping_or_missing(old) and _mapping_or_missing(new):
            differ.keyed(section, KEYED_SECTIONS[section], _or_empty(old), _or_empty(new))
        elif section == "scoring":
            differ.scoring(_or_empty(old), _or_empty(new))
        elif section == "assertions":
            differ.assertions(_or_list(old), _or_list(new))
        else:
            differ.fields(section, section, old, new, new_tree, section, pos_of(new_tree))
    return differ.changes


class _Differ:
    def __init__(self, where):
        self.where = where
        self.changes: list = []

    def add(self, section, operation, subject, detail="", pos=None, lines=None):
        self.changes.append(Change(section, operation, subject, detail, self.where(pos) if pos else "", lines or []))

    def keyed(self, section, label, old, new, name_of=None):
        """Definitions by id: added, removed, or changed field by field."""
        from ..loader import key_pos

        name_of = name_of or (lambda key, node: str(key))
        for key in list(new) + [k for k in old if k not in new]:
            before, after = old.get(key, _MISSING), new.get(key, _MISSING)
            if before is _MISSING:
                self.add(section, "+", f"{label} {name_of(key, after)}", _summary(after), key_pos(new, key))
            elif after is _MISSING:
                self.add(section, "-", f"{label} {name_of(key, before)}")
            elif not _same(before, after):
                self.fields(section, f"{label} {name_of(key, after)}", before, after, new, key, key_pos(new, key))

    def components(self, old, new):
        def name_of(key, record):
            return str(record.get("name")) if isinstance(record, dict) and record.get("name") else str(key)

        for typ in list(new) + [t for t in old if t not in new]:
            before, after = _or_empty(old.get(typ, _MISSING)), _or_empty(new.get(typ, _MISSING))
            if not _same(before, after):
                self.keyed("components", typ, before, after, name_of)

    def fields(self, section, subject, old, new, parent, key, pos, path=()):
        """Changes inside one definition, one per field (nested fields as a.b)."""
        from ..loader import value_pos

        if _same(old, new):
            return
        if isinstance(old, dict) and isinstance(new, dict):
            for field_key in list(new) + [field_key for field_key in old if field_key not in new]:
                self.fields(section, subject, old.get(field_key, _MISSING), new.get(field_key, _MISSING), new,
                            field_key, value_pos(new, field_key), path + (str(field_key),))
            return
        label = ".".join(path)
        if _is_rule_list(old, new, path):
            first = _first_difference(_or_list(old), _or_list(new))
            where = value_pos(new, first) if isinstance(new, list) and first < len(new) else pos
            self.add(section, "~", subject, f"{label} changed" if label else "changed", where,
                     _line_diff(_rule_lines(old), _rule_lines(new)))
            return
        detail = f"{_short(old)} → {_short(new)}"
        self.add(section, "~", subject, f"{label} {detail}" if label else detail, pos)

    def scoring(self, old, new):
        from ..loader import pos_of

        old_rows, new_rows = _or_empty(old.get("rows", _MISSING)), _or_empty(new.get("rows", _MISSING))
        if not _same(old_rows, new_rows):
            self.keyed("scoring", "score row", old_rows, new_rows)
        rest_old = {key: v for key, v in old.items() if key != "rows"}
        rest_new = {key: v for key, v in new.items() if key != "rows"}
        for key in list(rest_new) + [key for key in rest_old if key not in rest_new]:
            self.fields("scoring", "scoring", rest_old.get(key, _MISSING), rest_new.get(key, _MISSING),
                        new, key, pos_of(new), (str(key),))

    def assertions(self, old, new):
        """Assertions have no ids: matched by their expectation, then by their message."""
        from ..loader import value_pos

        old_keys = [_assertion_key(assertion) for assertion in old]
        new_keys = [_assertion_key(assertion) for assertion in new]
        removed = [assertion for assertion, key in zip(old, old_keys) if key not in new_keys]
        by_message = {str(assertion.get("message")): assertion for assertion in removed
                      if isinstance(assertion, dict) and assertion.get("message")}
        for index, (assertion, key) in enumerate(zip(new, new_keys)):
            if key in old_keys:
                continue
            message = (str(assertion.get("message")) if isinstance(assertion, dict) and assertion.get("message")
                       else None)
            subject = f"assertion “{message or _expectation(assertion)}”"
            pos = value_pos(new, index)
            if message in by_message:
                before = by_message.pop(message)
                self.fields("assertions", subject, before, assertion, new, index, pos)
            else:
                self.add("assertions", "+", subject, "", pos)
        for assertion in by_message.values():
            self.add("assertions", "-", f"assertion “{assertion.get('message')}”")
        for assertion in removed:
            if not (isinstance(assertion, dict) and assertion.get("message")):
                self.add("assertions", "-", f"assertion “{_expectation(assertion)}”")


# ------------------------------------------------------------------------------ values
def _norm(value):
    """A value with its text normalised (spacing inside an expression is not a change)."""
    if isinstance(value, dict):
        return {str(k): _norm(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, str):
        return " ".join(value.split())
    return value


def _same(old, new) -> bool:
    if old is _MISSING or new is _MISSING:
        return old is new
    return _norm(old) == _norm(new)


def _or_empty(value):
    return value if isinstance(value, dict) else {}


def _or_list(value):
    return value if isinstance(value, list) else []


def _mapping_or_missing(value) -> bool:
    return value is _MISSING or value is None or isinstance(value, dict)


def _expectation(assertion) -> str:
    expect = assertion.get("expect") if isinstance(assertion, dict) else assertion
    return " ".join(str(expect).split())


def _assertion_key(assertion):
    expectation = assertion.get("expect") if isinstance(assertion, dict) else assertion
    return json.dumps(_norm(expectation), sort_keys=True, default=str)


def _is_rule_list(old, new, path) -> bool:
    """An effect list or a list of requirements: compared line by line."""
    lists = [v for v in (old, new) if isinstance(v, list)]
    if not lists:
        return False
    if path and path[-1] in EFFECT_KEYS:
        return True
    return any(isinstance(x, (dict, list)) for v in lists for x in v)


def _first_difference(old: list, new: list) -> int:
    for index, (old_item, new_item) in enumerate(zip(old, new)):
        if not _same(old_item, new_item):
            return index
    return min(len(old), len(new))


def _flow(value) -> str:
    """A value in YAML flow style on one line, spacing normalised."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = " ".join(value.split())
        return json.dumps(text, ensure_ascii=False) if (not text or re.search(r"[:{}\[\],#]|^\W", text)) else text
    return str(value)


def _rule_lines(value, depth: int = 0) -> list:
    """An effect (or requirement) list as lines, one per item; the lists nested in an item
    (then, else, do) follow it on lines of their own, indented."""
    if value is _MISSING or value is None:
        return []
    if not isinstance(value, list):
        return ["  " * depth + _flow(value)]
    lines = []
    for item in value:
        if isinstance(item, dict) and any(isinstance(field_value, list) for field_value in item.values()):
            lines.append("  " * depth + _flow({key: field_value for key, field_value in item.items()
                                               if not isinstance(field_value, list)}))
            for key, field_value in item.items():
                if isinstance(field_value, list):
                    lines.append("  " * (depth + 1) + f"{key}:")
                    lines.extend(_rule_lines(field_value, depth + 2))
        elif isinstance(item, str):  # an assignment or an expression: as written
            lines.append("  " * depth + " ".join(item.split()))
        else:
            lines.append("  " * depth + _flow(item))
    return lines


def _line_diff(old: list, new: list) -> list:
    import difflib

    return [line for line in difflib.unified_diff(old, new, lineterm="", n=0)
            if not line.startswith(("---", "+++", "@@"))]


def _short(value, limit: int = 100) -> str:
    """A value in a change line: a number or a single word as it is, other text in quotes."""
    if value is _MISSING:
        return "(none)"
    if isinstance(value, str):
        text = " ".join(value.split())
        text = text if re.fullmatch(r"[\w.+-]+", text) else json.dumps(text, ensure_ascii=False)
    else:
        text = _flow(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _summary(value) -> str:
    """A few words on an added definition: its label or description, if any."""
    if isinstance(value, dict):
        for key in ("label", "description"):
            if value.get(key):
                return _short(value[key], 80)
        return ""
    return _short(value, 80)
