"""The generated code of collections and of reading into values: list, tuple and map literals,
comprehensions (each iterated sequence given to the work bound with `_T`), attributes
(`card.cost`: a component's record, or a map's key) and indexing and slicing. Each construct
has a checked form (`_A`, `_I`: errors in the designer's words) and, in the fast variant, plain
subscripts (the compiler falls back to the checked form on a lookup error).

Owns: `AccessCode`, a part of the generator (`_Gen` in generate.py).
"""
from __future__ import annotations

import re

from ..errors import suggest
from .generate_calls import NAMED_OPERAND, iterated
from .parser import position_of
from .types import BOOL, NONE, NUM, _elem, _is_entity, _list_of, _tname

# the first iterable of a comprehension that is a constant of the ruleset or a folded `range`
# of literal numbers: then its body is generated reading names once (generate.py `read`)
_CONSTANT_ITERABLE = re.compile(r"^(_K\['\w+'\]|_T\(_R_[0-9m]+_[0-9m]+_[0-9m]+\)(\[:\])?|_R_[0-9m]+_[0-9m]+_[0-9m]+)$")
# builtins that charge the length of the list they return (see `_charging_result`)
_CHARGING_ITS_RESULT = ("keys", "values", "items", "range")


class AccessCode:
    """The `g_*` methods of collections and access (mixed into `_Gen`, which gives `gen`,
    `err`, `scope` and `fast`)."""

    def g_list(self, node, lex):
        items = [self.gen(child, lex) for child in node.children if child is not None]
        same = items and all(item[1] == items[0][1] for item in items)
        return "[" + ", ".join(code for code, _ in items) + "]", _list_of(items[0][1] if same else None)

    def g_tuple(self, node, lex):
        items = [self.gen(child, lex) for child in node.children if child is not None]
        return "[" + ", ".join(code for code, _ in items) + "]", _list_of(None)

    def g_dict(self, node, lex):
        parts = []
        text_keys = True
        for pair in node.children:
            if pair is None:
                continue
            key, _ = self.gen(pair.children[0], lex)
            value, _ = self.gen(pair.children[1], lex)
            parts.append(f"{key}: {value}")
            text_keys = text_keys and key[:1] in ("'", '"')
        literal = "{" + ", ".join(parts) + "}"
        return (literal if text_keys else f"_map({literal})"), "map"  # keys are text (see `text_key`)

    def _comp(self, element, comp_for, lex):
        """Returns (clauses source, element source, element type)."""
        self.uses_budget = True
        inner = dict(lex)
        pieces: list = []  # the clauses' heads and filters, in the order they run for an item
        filters: list = []  # (index in pieces, the calls the filter always makes)
        over_constant = False
        for number, clause in enumerate(comp_for.children):
            targets_node, iter_node, *conditions = clause.children
            # (the first iterable is evaluated once; the rest of a comprehension once per item)
            with self.depth(*(("no_walrus",) if number == 0 else ("no_walrus", "conditional", "per_item"))):
                iter_code, iter_type = self.gen(iter_node, inner)
            if number == 0 and _CONSTANT_ITERABLE.match(iter_code):
                over_constant = True  # (its items: what the body reads is read once before it)
                self.over_constant += 1
            targets = [str(target) for target in targets_node.children]
            # (a target may shadow a var or a constant: the innermost wins)
            if len(targets) == 1:
                inner[targets[0]] = _elem(iter_type)
            else:
                for target in targets:
                    inner[target] = None
            iter_code = iterated(iter_code, self._charged_when_built(iter_node))
            self.item_variables.append({"u_" + target for target in targets})
            pieces.append(f"for {', '.join('u_' + target for target in targets)} in {iter_code}")
            with self.depth("conditional", "per_item"):
                for condition in conditions:
                    with self.recording("true") as calls:
                        condition_code, _ = self.gen(condition.children[0], inner)
                    filters.append((len(pieces), calls))
                    pieces.append(f"if {condition_code}")
        with self.depth("conditional", "per_item"):
            element_code, element_type = self.gen(element, inner)
        pieces.append(element_code)
        del self.item_variables[-len(comp_for.children):]
        if over_constant:
            self.over_constant -= 1
        for index, calls in filters:  # what follows a filter does not make again a call it made
            pieces[index], pieces[index + 1:] = self.share(pieces[index], calls, pieces[index + 1:])
        return " ".join(pieces[:-1]), pieces[-1], element_type

    def _charged_when_built(self, node) -> bool:
        """Was every element of this list charged to the work bound as it was made? (a
        comprehension, or a builtin that charges the length of its result: then going through
        it is not charged again; the work stays bounded by twice what is charged)"""
        kind = getattr(node, "data", None)
        if kind in ("listcomp", "setcomp"):
            return True
        if kind != "call":
            return False
        fname = str(node.children[0])
        return fname in _CHARGING_ITS_RESULT and fname not in self.scope.defines

    def g_listcomp(self, node, lex):
        clauses, element_code, element_type = self._comp(node.children[0], node.children[1], lex)
        return f"[{element_code} {clauses}]", _list_of(element_type)

    def g_setcomp(self, node, lex):
        clauses, element_code, element_type = self._comp(node.children[0], node.children[1], lex)
        return f"_f_distinct([{element_code} {clauses}])", _list_of(element_type)

    def g_attr(self, node, lex):
        obj, typ = self.gen(node.children[0], lex)
        attr = str(node.children[1])
        id_type = ("entity", typ[1]) if attr == "id" and _is_entity(typ) else None
        code, read_type = self._attribute_code(node, obj, typ, attr, id_type)
        if typ is None or typ == "map":  # what expr/attributes.py checks against the known attributes
            self.attribute_events.append(("read", attr, *position_of(node.children[1])))
        if self.fast and attr in self.scope.map_attributes:
            # a map (or none) in every component that has it: a guess, kept beside the static
            # types (which effects check operands with), for the attribute read on it next
            self.likely_maps.add(code)
        return code, read_type

    def _attribute_code(self, node, obj, typ, attr, id_type):
        if _is_entity(typ) and typ[1] in self.scope.entity_types:
            attrs = self.scope.entity_types[typ[1]]
            if attr != "id" and attr not in attrs:
                self.err(node.children[1], f"a {typ[1]} has no attribute '{attr}'",
                         suggest(attr, list(attrs) + ["id"]))
            if self.fast and attr != "id":  # its record read directly (an error falls back to `_A`)
                return f"_E[{obj}][{attr!r}]", None
            return f"_A({obj}, {attr!r})", id_type
        if _is_entity(typ) and self.fast:
            # a component id: read its record directly (any error falls back to the checked `_A`)
            return f"_E[{obj}][{attr!r}]", id_type
        if typ in (NUM, BOOL, NONE):
            self.err(node.children[1], f"{_tname(typ)} has no attribute '{attr}'", code="type")
        no_component_has_it = not any(attr in attrs for attrs in self.scope.entity_types.values())
        if self.fast and (typ == "map" or obj in self.likely_maps or typ is None and no_component_has_it):
            # a map's key read directly: the value is likely a map, or no component has the
            # attribute (on a component id or any other value the subscript fails, and the
            # checked variant reads it with `_A`, which gives the same value or error). Not on
            # a value of another type: a literal's subscript would warn when it is compiled.
            return f"{obj}[{attr!r}]", None
        if self.fast and self.sharing and NAMED_OPERAND.match(obj):
            # a component's record or a map's key read directly (any error falls back to `_A`)
            return f"(_E[{obj}][{attr!r}] if {obj}.__class__ is _str_t else {obj}[{attr!r}])", None
        return f"_A({obj}, {attr!r})", None

    def g_index(self, node, lex):
        obj, typ = self.gen(node.children[0], lex)
        key, _ = self.gen(node.children[1], lex)
        if typ in (NUM, BOOL, NONE):
            self.err(node.children[0], f"cannot index {_tname(typ)}", code="type")
        if self.fast:
            return f"{obj}[{key}]", _elem(typ)
        return f"_I({obj}, {key})", _elem(typ)

    def g_slice(self, node, lex):
        obj, typ = self.gen(node.children[0], lex)
        low = self.gen(node.children[1], lex)[0] if node.children[1] is not None else ""
        high = self.gen(node.children[2], lex)[0] if node.children[2] is not None else ""
        return f"{obj}[{low}:{high}]", typ
