"""The `view:` section of a ruleset, compiled and checked: `compile_view(ruleset)` -> ViewSpec.

Owns: reading the section (with the defaults for everything it leaves out), compiling its
expressions and templates against the ruleset's names (in one code unit, like a scenario's), and
the load errors for bad references (`file:line:col`, the text, "did you mean"). It does not own
evaluating anything against a state (model.py does that, from what one player may see).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from ..engine.labels import define_vars
from ..engine.prompts import template_parts
from ..errors import Diagnostic, ExpressionError, Pos, RulebookError, suggest
from ..loader import Map, Text, expr_pos, key_pos, pos_of, value_pos
from .about_reads import SHOWN_NAMES, read_abouts

ENGINE_VARS = ("players", "num_players", "current_phase")
PALETTE = ("red", "blue", "green", "gold", "purple", "orange", "teal", "pink")


@dataclass
class Column:
    """A column of a board table in the view: its title and the value shown (once per item of `each`)."""
    title: Any  # a compiled template (list of parts) or a plain text
    value: Any  # a compiled expression
    each: Any = None  # an expression giving the items one column is made for, or None
    each_as: str = "col"
    by_player: bool = False


@dataclass
class Table:
    """A board table: `rows` items (row labels from `label`) x `columns`, or one `value` shown
    as a whole (a map as key/value rows, a list as one row per item, a scalar as one row)."""
    id: str
    title: str
    rows: Any = None
    label: Any = None
    columns: list = field(default_factory=list)
    value: Any = None
    by_player: bool = False
    row_as: str = "row"
    fields: list = field(default_factory=list)  # [AreaField] of a table of named values


@dataclass
class AreaField:
    """A field of a player's area in the view: a title and the value shown."""
    title: str
    value: Any  # an expression reading `p`
    by_player: bool = False


@dataclass
class ComponentShow:
    """How the view shows a component: the fields shown, its colour and its label."""
    name_field: str = "name"
    fields: tuple = ()
    colour: Any = None  # an expression reading `it` (the component), or None
    label: Any = None  # a template reading `it`, shown instead of the name field, or None


@dataclass
class Ask:
    """How the view asks for an action's parameters: a title, their order and the question for each."""
    title: Optional[str]
    order: tuple  # the parameters in the order they are asked
    questions: dict  # parameter -> question
    values: dict = field(default_factory=dict)  # parameter -> template showing its value (reads the parameters)


@dataclass
class DecisionShow:
    """How the view shows a decision waiting for a player: its prompt and what it is about."""
    prompt: str
    about: Any  # a compiled template reading the waiting rule's names, as the decider reads it
    public: bool = False
    by_player: bool = False  # the options are seats: shown as the players' names
    written: Any = None  # the `about:` text as the view file wrote it
    about_public: Any = None  # with `public: true`: the template the other players read


@dataclass
class ViewSpec:
    """A ruleset's compiled view: what the table, the players' areas and the log show."""
    internal: frozenset
    log_public: bool
    player_name: Any  # compiled template reading `p`, or None (the default "Player n")
    player_colour: Any  # compiled expression reading `p`, or None (a palette colour)
    board: list
    area: list
    components: dict
    actions: dict
    decisions: dict  # prompt (the rule's, and as the engine waits with it) -> DecisionShow
    declared: bool  # the ruleset has a view section
    unit: Any = None
    define_vars: dict = field(default_factory=dict)  # define -> the vars it reads, through other defines too
    prompts: dict = field(default_factory=dict)  # (prompt, names) -> compiled template, made on first use
    secret_reads: dict = field(default_factory=dict)  # id(handle) -> (handle, reads hidden/count, reads owner)
    public_handles: dict = field(default_factory=dict)  # ids of handles -> (handles, they read only public values)
    rs: Any = None

    def common_handles(self) -> list:
        """The expressions every cell may use: players' names and colours, components' labels
        and colours."""
        handles = [self.player_colour] + [part for part in self.player_name or () if not isinstance(part, str)]
        for show in self.components.values():
            handles += [show.colour] + [part for part in show.label or () if not isinstance(part, str)]
        return [handle for handle in handles if handle is not None]

    def prompt_template(self, prompt: str, names) -> Any:
        """A rule's prompt with `{...}` parts as a template over the waiting rule's names,
        compiled on first use; None when it does not compile."""
        key = (prompt, tuple(sorted(names)))
        if key not in self.prompts:
            self.prompts[key] = _runtime_template(self.rs, prompt, key[1])
        return self.prompts[key]


def compile_view(ruleset) -> ViewSpec:
    """The view of `ruleset` (its `view:` section, else the defaults); RulebookError for bad ones."""
    section = (ruleset.tree or {}).get("view") if ruleset.tree is not None else None
    builder = _Builder(ruleset, section if isinstance(section, dict) else {})
    spec = builder.build()
    if builder.diags:
        raise RulebookError(builder.diags, "load")
    spec.define_vars = define_vars(ruleset)
    spec.rs = ruleset
    return spec


def _runtime_template(ruleset, prompt: str, names):
    if len(prompt) > 500 or len(names) > 100:
        return None
    builder = _Builder(ruleset, {})
    template = builder.template(prompt, list(names))
    if builder.diags or template is None:
        return None
    namespace = builder.unit.build(ruleset.unit.ns["_K"])
    for name, function in ruleset.unit.ns.items():
        if name.startswith("d_") and name not in namespace:
            namespace[name] = function
    return template


def view_spec(ruleset) -> ViewSpec:
    """The compiled view of a ruleset, compiled once and kept on it."""
    spec = getattr(ruleset, "view", None)
    if spec is None:
        spec = compile_view(ruleset)
        try:
            ruleset.view = spec
        except AttributeError:
            pass
    return spec


class _Builder:
    """Reads the section; every problem becomes a Diagnostic, compiled code goes to one unit."""

    def __init__(self, ruleset, section):
        from ..expr.compiler import CodeUnit

        self.rs = ruleset
        self.section = section
        self.diags: list = []
        self.unit = CodeUnit(ruleset.unit.scope, ruleset.entities, ruleset.budget)

    def build(self) -> ViewSpec:
        section = self.section
        players = section.get("players") or {}
        self.check_entries(section)
        spec = ViewSpec(
            internal=self.internal(section.get("internal") or []),
            log_public=str(section.get("log", "hidden")) == "public",
            player_name=self.template(players.get("name"), ["p"]) if players.get("name") else None,
            player_colour=self.expression(players.get("colour"), ["p"]) if players.get("colour") else None,
            board=[self.table(index, item) for index, item in enumerate(section.get("board") or [])],
            area=[self.area_field(item) for item in section.get("area") or []],
            components=self.components(section.get("components") or {}),
            actions=self.actions(section.get("actions") or {}),
            decisions=self.decisions(section.get("decisions") or []),
            declared=bool(section))
        if not self.diags:
            spec.decisions = read_abouts(self.rs, spec.decisions)
            namespace = self.unit.build(self.rs.unit.ns["_K"])
            for name, function in self.rs.unit.ns.items():  # the ruleset's named expressions
                if name.startswith("d_") and name not in namespace:
                    namespace[name] = function
        spec.unit = self.unit
        return spec

    # -- names ---------------------------------------------------------------------------
    def error(self, message, pos, hint=None):
        self.diags.append(Diagnostic("view", message, pos or Pos("<view>", 0, 0), hint))

    def expression(self, text, local_names):
        if text is None:
            return None
        scope = self.rs.unit.scope.with_locals(list(local_names))
        try:
            return self.unit.add_expression(text, scope)
        except ExpressionError as error:
            where = expr_pos(text, error.line, error.column) if isinstance(text, Text) else pos_of(text)
            hint = error.hint
            self.error(f"view: cannot compile {str(text)!r}: {error.message}", where, hint)
            return None

    def template(self, text, local_names):
        """'{row.name} ({n})' -> ['', handle, ' (', handle, ')']: text parts and expressions."""
        if text is None:
            return None
        source, parts = str(text), []
        for part in template_parts(source):
            if isinstance(part, str):
                parts.append(part)
                continue
            inner, opening = part
            inner_text = inner
            if isinstance(text, Text):
                where = expr_pos(text, 1, opening + 2) if "\n" not in source else pos_of(text)
                inner_text = Text(inner, where)
            parts.append(self.expression(inner_text, local_names))
        return parts

    def known(self, name, candidates, what, pos):
        if name in candidates:
            return True
        self.error(f"view: no {what} named {name!r}", pos, suggest(name, candidates))
        return False

    def internal(self, names):
        """The engine's vars, the vars declared `internal: true` and the view's `internal:` list."""
        out = set(ENGINE_VARS) | flagged_internal(self.rs)
        for index, name in enumerate(names):
            if self.known(str(name), self.rs.vars, "var", value_pos(names, index)):
                out.add(str(name))
        return frozenset(out)

    def check_entries(self, section) -> None:
        """No `remove: true` outside a module (merge.py consumes a module's), and no value that
        is an `internal: true` var itself (`x` or `x[p]`): such a var is never shown."""
        flagged = flagged_internal(self.rs)
        for key in ("board", "area", "decisions"):
            for index, entry in enumerate(section.get(key) or []):
                if isinstance(entry, dict) and "remove" in entry:
                    self.error(f"view: `remove` takes an entry out of the game's view, in a module's view only",
                               key_pos(entry, "remove"), f"delete the {key} entry itself here")
                for text in _shown_values(entry) if key != "decisions" else ():
                    name = re.sub(r"\[\s*p\s*\]$", "", str(text).strip())
                    if name in flagged:
                        self.error(f"view: var {name!r} is declared `internal: true`: it is never shown", pos_of(text),
                                   "show a value computed from it, or drop `internal: true` from the var")

    # -- board, area ---------------------------------------------------------------------
    def table(self, index, item) -> Table:
        if not isinstance(item, dict):
            self.error("view: a board table is a mapping (title, rows and columns, or value)", pos_of(item))
            return Table(str(index), str(item))
        title = str(item.get("title", f"table {index + 1}"))
        table = Table(str(item.get("id", title)), title, by_player=item.get("format") == "by_player")
        if "value" in item:
            table.value = self.expression(item["value"], [])
            return table
        if "fields" in item:
            table.fields = [self.area_field(entry, []) for entry in item["fields"] or []]
            return table
        if "rows" not in item:
            self.error("view: a board table needs `rows` (with `columns`), `fields` or a `value`", pos_of(item))
            return table
        row_as = str(item.get("as", "row"))
        table.rows = self.expression(item["rows"], [])
        table.label = self.template(item.get("label"), [row_as]) if item.get("label") else None
        table.columns = [self.column(column, row_as) for column in item.get("columns") or []]
        table.row_as = row_as
        return table

    def column(self, item, row_as) -> Column:
        if not isinstance(item, dict) or "value" not in item:
            self.error("view: a column is a mapping with a `value` (and a `title`)", pos_of(item))
            return Column(str(item), None)
        if "each" in item:
            each_as = str(item.get("as", "col"))
            return Column(self.template(item.get("title", "{" + each_as + "}"), [row_as, each_as]),
                          self.expression(item["value"], [row_as, each_as]), self.expression(item["each"], [row_as]),
                          each_as, item.get("format") == "by_player")
        return Column(str(item.get("title", "")), self.expression(item["value"], [row_as]), None, "col",
                      item.get("format") == "by_player")

    def area_field(self, item, local_names=("p",)) -> AreaField:
        if not isinstance(item, dict) or "value" not in item:
            self.error("view: a field is a mapping with a `title` and a `value`", pos_of(item))
            return AreaField(str(item), None)
        return AreaField(str(item.get("title", item["value"])), self.expression(item["value"], list(local_names)),
                         item.get("format") == "by_player")

    # -- components, actions, decisions --------------------------------------------------
    def components(self, section) -> dict:
        out = {}
        for kind, item in section.items():
            if not self.known(str(kind), self.rs.components, "component type", key_pos(section, kind)):
                continue
            item = item or {}
            fields = set()
            for entity in self.rs.entities.values():
                if isinstance(entity, dict) and entity.get("type") == kind:
                    fields.update(entity)
            shown = item.get("fields") or []
            for index, name in enumerate(shown):
                self.known(str(name), sorted(fields), f"field of {kind}", value_pos(shown, index))
            name_field = str(item.get("name", "name"))
            out[str(kind)] = ComponentShow(name_field, tuple(str(name) for name in shown),
                                           self.expression(item.get("colour"), ["it"]) if item.get("colour") else None,
                                           self.template(item.get("label"), ["it"]) if item.get("label") else None)
        return out

    def actions(self, section) -> dict:
        out = {}
        for action_id, item in section.items():
            if not self.known(str(action_id), self.rs.actions, "action", key_pos(section, action_id)):
                continue
            item = item or {}
            params = [name for name, _ in self.rs.actions[action_id].params]
            order = [str(name) for name in item.get("ask") or params]
            asked = item.get("ask") or []
            for index, name in enumerate(order):
                if asked:
                    self.known(name, params, f"parameter of {action_id}", value_pos(asked, index))
            order += [name for name in params if name not in order]
            questions = {str(key): str(text) for key, text in (item.get("questions") or {}).items()}
            for key in questions:
                self.known(key, params, f"parameter of {action_id}", key_pos(item.get("questions"), key))
            shown = item.get("values") or {}
            values = {}
            for key, text in shown.items():
                if self.known(str(key), params, f"parameter of {action_id}", key_pos(shown, key)):
                    values[str(key)] = self.template(text, params + ["player"])
            out[str(action_id)] = Ask(str(item["title"]) if item.get("title") else None, tuple(order), questions, values)
        return out

    def decisions(self, items) -> dict:
        prompts = sorted(_choose_prompts(self.rs.tree)) if items else []
        out = {}
        for index, item in enumerate(items):
            if not isinstance(item, dict) or "prompt" not in item or "about" not in item:
                self.error("view: a decision is a mapping with `prompt` (the rule's) and `about`", pos_of(item))
                continue
            prompt = str(item["prompt"])
            if not self.known(prompt, prompts, "decision prompt", value_pos(item, "prompt")):
                continue
            names = [str(name) for name in item.get("names") or []]
            out[prompt] = DecisionShow(prompt, self.template(item["about"], names + list(SHOWN_NAMES)),
                                       bool(item.get("public", False)), item.get("format") == "by_player",
                                       item["about"])
        return out


def flagged_internal(ruleset) -> set:
    """The vars declared with `internal: true` (never shown in any view)."""
    declared = (ruleset.tree or {}).get("vars") if ruleset.tree is not None else None
    if not isinstance(declared, dict):
        return set()
    return {str(name) for name, decl in declared.items() if isinstance(decl, dict) and decl.get("internal") is True}


def _shown_values(entry) -> list:
    """The `value:` texts of a board table or an area field (with its fields and columns)."""
    if not isinstance(entry, dict):
        return []
    values = [entry.get("value")]
    for key in ("fields", "columns"):
        values += [item.get("value") for item in entry.get(key) or [] if isinstance(item, dict)]
    return [value for value in values if value is not None]


def _choose_prompts(node) -> set:
    """The `prompt` of every `choose` effect in the rules (only mappings and lists are walked
    into: the scalars, most of the tree, hold none)."""
    found = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            choice = item.get("choose")
            if isinstance(choice, dict) and "prompt" in choice:
                found.add(str(choice["prompt"]))
            for key, value in item.items():
                if isinstance(value, (dict, list)) and key != "view":
                    stack.append(value)
        elif isinstance(item, list):
            for value in item:
                if isinstance(value, (dict, list)):
                    stack.append(value)
    return found


def default_colour(seat: int) -> str:
    return PALETTE[seat % len(PALETTE)]


__all__ = ["ViewSpec", "Table", "Column", "AreaField", "ComponentShow", "Ask", "DecisionShow",
           "compile_view", "view_spec", "default_colour", "ENGINE_VARS", "Map"]
