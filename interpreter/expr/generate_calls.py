"""The generated code of calls: a builtin (`_f_<name>(...)`, its arity and keywords checked, an
iterated argument given to the work bound), a named expression of the ruleset
(`d_<name>(_V, _L, ...)`), a lambda given to a builtin, and `let`; a `range` of literal numbers
folded into a list built once per ruleset (`_R_...`), and `get` of a map by a text key read
with the map's own `get`.

Owns: `CallCode`, a part of the generator (`_Gen` in generate.py).
"""
from __future__ import annotations

import re

from lark import Token

from ..errors import RuleRuntimeError, suggest
from .builtins import BUILTINS, ITERATING, _range
from .types import BOOL, NONE, NUM, _builtin_type, _tname

# builtins that iterate over every argument they are given (the others iterate the first only)
_ITERATING_EVERY_ARGUMENT = ("union", "intersection", "zip")
_SHORT_CIRCUIT = ("any", "all", "first")
# `any(x for ...)` and `all(x for ...)` as the first item that decides, or the answer when none
# does (`_next`): the generator stops only at that item, instead of handing every item to the
# builtin. The same items are made, in the same order, with the same charges and errors.
_DECIDED_BY_ONE = {"any": ("True", "", "False"), "all": ("False", "not ", "True")}


# a `range` of whole-number literals, built once per ruleset: `_R_<start>_<stop>_<step>` ('m'
# for a minus sign), read through a copy (`[:]`, charged as building it was) where its value may
# be kept or returned
_FOLDED_RANGE = re.compile(r"^_T\((_R_[0-9m]+_[0-9m]+_[0-9m]+)\)\[:\]$")
_INT_LITERAL = re.compile(r"^\(?(-?[0-9]+)\)?$")


def _folded_range(fname, pos_args, kw_args):
    """The code of `range(...)` with whole-number literal arguments, folded (None otherwise, or
    when it would be refused: then it is refused at run time, as before)."""
    if fname != "range" or kw_args:
        return None
    numbers = []
    for code, _, _ in pos_args:
        match = _INT_LITERAL.match(code)
        if match is None:
            return None
        numbers.append(int(match.group(1)))
    try:
        made = range(*numbers)
        _range(*numbers)
    except (RuleRuntimeError, ValueError):
        return None
    name = "_R_" + "_".join(str(number).replace("-", "m") for number in (made.start, made.stop, made.step))
    return f"_T({name})[:]"


def shared_constant(code: str):
    """The name of the folded constant `code` copies (None if it is not one): a loop, a builtin
    that goes through it or `in` may read the shared list itself (and charge its length)."""
    match = _FOLDED_RANGE.match(code)
    return match.group(1) if match else None


def folded_constants(source: str) -> dict:
    """The folded constants the generated `source` names, with their values."""
    constants = {}
    for name in re.findall(r"\b_R_[0-9m]+_[0-9m]+_[0-9m]+\b", source):
        start, stop, step = (int(part.replace("m", "-")) for part in name[3:].split("_"))
        constants[name] = list(range(start, stop, step))
    return constants


def iterated(code: str, charged_when_built: bool) -> str:
    """The code of a sequence a loop or a builtin goes through, given to the work bound (`_T`)
    unless its elements were charged as it was built; a folded constant is read as it is."""
    name = shared_constant(code)
    if name is not None:
        return f"_T({name})"
    return code if charged_when_built else f"_T({code})"


# an operand read twice at no cost: a name, or a literal
NAMED_OPERAND = re.compile(r"^(u_\w+|_[VLK]\['\w+'\]|_[VLK]n_\w+)$")
# a map read again at the cost of a plain subscript or two: a name indexed by names and literals
# (`_V['stock'][u_p]`: the fast variant's plain subscripts, which charge nothing)
_NAME = r"(u_\w+|_[VLK]\['\w+'\]|_[VLK]n_\w+)"
INDEXED_OPERAND = re.compile(rf"^{_NAME}(\[({_NAME}|-?[0-9]+|'\w+')\]){{1,2}}$")
SIMPLE_OPERAND = re.compile(r"^(u_\w+|_[VLK]\['\w+'\]|_[VLK]n_\w+|-?[0-9]+|'[\w ]*'|None|True|False|\{\}|\[\])$")


def _inline_get(codes: list):
    """`get(m, k)` or `get(m, k, d)` of names and literals (`m` may be a name indexed by names
    and literals), as Python: a text key of a map read with the map's own `get`, anything else
    by `_f_get` (None when not of that form)."""
    if not (NAMED_OPERAND.match(codes[0]) or INDEXED_OPERAND.match(codes[0])) \
            or not all(SIMPLE_OPERAND.match(code) for code in codes[1:]):
        return None
    mapping, key, default = (codes + ["None"])[:3]
    if key.startswith("'"):  # a text key
        test = f"{mapping}.__class__ is _dict_t"
    elif NAMED_OPERAND.match(key):
        test = f"{key}.__class__ is _str_t and {mapping}.__class__ is _dict_t"
    else:
        return None
    return f"({mapping}.get({key}, {default}) if {test} else _f_get({mapping}, {key}, {default}))"


class CallCode:
    """The `g_*` methods of calls (mixed into `_Gen`, which gives `gen`, `err` and `scope`)."""

    def g_call(self, node, lex):
        fname = str(node.children[0])
        args_node = node.children[1]
        decided_by_one = (fname in _DECIDED_BY_ONE and fname not in self.scope.defines and self.sharing
                          and self.keep_across is None and getattr(args_node, "data", None) == "genexp_arg")
        pos_args, kw_args = self._call_arguments(fname, args_node, lex, decided_by_one)
        self.lexical = lex  # (the names bound around the call: generate_sharing.py `kept_across`)
        if fname in self.scope.defines and (fname not in lex):
            return self._call_define(node, fname, pos_args, kw_args)
        if fname not in BUILTINS:
            self.err(node.children[0], f"unknown function '{fname}'",
                     suggest(fname, list(BUILTINS) + list(self.scope.defines)))
        self._check_builtin_call(node, fname, pos_args, kw_args)
        folded = _folded_range(fname, pos_args, kw_args) if self.sharing else None
        if folded is not None:
            return folded, _builtin_type(fname, pos_args)
        codes = self._bounded_arguments(fname, pos_args)
        if decided_by_one:
            return self.call_code(f"_next({codes[0]}, {_DECIDED_BY_ONE[fname][2]})"), _builtin_type(fname, pos_args)
        if fname == "get" and self.sharing:
            inline = _inline_get(codes)
            if inline is not None:
                return inline, _builtin_type(fname, pos_args)
        parts = codes + [f"{keyword}={code}" for keyword, code, _ in kw_args]
        return self.call_code(f"_f_{fname}({', '.join(parts)})"), _builtin_type(fname, pos_args)

    def _bounded_arguments(self, fname, pos_args) -> list:
        """The code of the positional arguments, each that the builtin iterates given to the
        work bound (`_T`)."""
        codes = [code for code, _, _ in pos_args]
        if fname not in ITERATING or not codes or (fname in ("min", "max") and len(codes) > 1):
            return codes  # (min/max of several values, e.g. max(0, x), iterate over nothing)
        self.uses_budget = True
        # a comprehension argument was charged while it was built: it has at most as many
        # elements as were iterated, so it is not charged twice (nor is the result of a
        # builtin that charged its length)
        built = [getattr(argument, "data", None) == "genexp_arg" or self._charged_when_built(argument)
                 for _, _, argument in pos_args]
        if len(codes) == 1 or fname in _ITERATING_EVERY_ARGUMENT:
            return [iterated(code, was_built) for code, was_built in zip(codes, built)]
        codes[0] = iterated(codes[0], built[0])
        return codes

    def _call_arguments(self, fname, args_node, lex, decided_by_one=False) -> tuple:
        """([(code, type, node)] of the positional arguments, [(keyword, code, node)]); with
        `decided_by_one`, the generator of an `any`/`all` that yields only the deciding item."""
        pos_args: list = []
        kw_args: list = []
        if args_node is None:
            return pos_args, kw_args
        if args_node.data == "genexp_arg":
            self.uses_budget = True
            clauses, element_code, _ = self._comp(args_node.children[0], args_node.children[1], lex)
            # any/all/first stop at the first item that decides (as in Python): a generator;
            # every other builtin reads all the items, which a list gives faster
            if decided_by_one:
                decides, negation, _ = _DECIDED_BY_ONE[fname]
                pos_args.append((f"({decides} {clauses} if {negation}({element_code}))", None, args_node))
                return pos_args, kw_args
            brackets = "()" if fname in _SHORT_CIRCUIT else "[]"
            pos_args.append((f"{brackets[0]}{element_code} {clauses}{brackets[1]}", None, args_node))
            return pos_args, kw_args
        for argument in args_node.children:
            if argument is None:
                continue
            if getattr(argument, "data", None) == "kwarg":
                code, _ = self._argument(fname, argument.children[1], lex)
                kw_args.append((str(argument.children[0]), code, argument))
            else:
                code, typ = self._argument(fname, argument, lex)
                pos_args.append((code, typ, argument))
        return pos_args, kw_args

    def _call_define(self, node, fname, pos_args, kw_args):
        self.names_used.add(fname)  # a called define is used (no false 'unused' warning)
        params = self.scope.defines[fname]
        if kw_args:
            self.err(kw_args[0][2], f"'{fname}' takes no keyword arguments", code="arity")
        if len(pos_args) != len(params):
            self.err(node, f"'{fname}' takes {len(params)} argument(s) "
                           f"({', '.join(params)}), got {len(pos_args)}", code="arity")
        args = ", ".join(["_V", "_L"] + [code for code, _, _ in pos_args])
        result = self.call_code(f"d_{fname}({args})"), self.scope.define_types.get(fname)
        # the argument types the define's body is checked with (expr/attributes.py)
        self.attribute_events.append(("call", fname, tuple(typ for _, typ, _ in pos_args)))
        return result

    def _check_builtin_call(self, node, fname, pos_args, kw_args):
        """Arity, keywords, and a number given where a collection is needed."""
        _, least, most, keywords = BUILTINS[fname]
        given = len(pos_args)
        if given < least or (most is not None and given > most):
            want = (f"{least}" if least == most else
                    (f"{least} or more" if most is None else f"{least} to {most}"))
            self.err(node, f"'{fname}' takes {want} argument(s), got {given}", code="arity")
        for keyword, _, keyword_node in kw_args:
            if keyword not in keywords:
                self.err(keyword_node, f"'{fname}' has no keyword '{keyword}'",
                         suggest(keyword, keywords) or (f"it takes {', '.join(keywords)}" if keywords else None),
                         code="arity")
        if fname in ("len", "count", "sum") and pos_args and pos_args[0][1] in (NUM, BOOL, NONE):
            self.err(pos_args[0][2], f"'{fname}' needs a collection, not {_tname(pos_args[0][1])}",
                     code="type")

    def _argument(self, fname, node, lex):
        """An argument of a call: a lambda is allowed here, and only for a builtin."""
        if getattr(node, "data", None) == "lambda_" and fname in BUILTINS and fname not in self.scope.defines:
            return self._lambda_argument(node, lex)
        return self.gen(node, lex)

    def _lambda_argument(self, node, lex):
        params = [str(param) for param in node.children[0].children]
        inner = dict(lex)
        for param in params:
            inner[param] = None
        with self.depth("conditional", "lambdas"):
            body, _ = self.gen(node.children[1], inner)
        return f"(lambda {', '.join('u_' + param for param in params)}: {body})", "function"

    def g_lambda(self, node, lex):
        # (the tree keeps no `lambda` keyword: the error points at it, just before the parameters)
        first_param = node.children[0].children[0]
        start = self.source.rfind("lambda", 0, first_param.start_pos)
        where = first_param
        if start >= 0 and "\n" not in self.source[start:first_param.start_pos]:
            where = Token("LAMBDA", "lambda", start, first_param.line,
                          first_param.column - (first_param.start_pos - start))
        self.err(where, "a lambda is not a value: it can only be given to a builtin, "
                        "as in sorted(xs, key=lambda x: ...)", code="type",
                 hint="store or return the value it computes, or name it as a define with params")

    def g_let(self, node, lex):
        name = str(node.children[0])
        value, value_type = self.gen(node.children[1], lex)
        inner = dict(lex)
        inner[name] = value_type
        guessed, bound = value in self.likely_maps, f"u_{name}" in self.likely_maps
        if guessed:  # (the name holds an attribute guessed to be a map: generate_access.py)
            self.likely_maps.add(f"u_{name}")
        with self.depth("conditional", "lambdas"):  # (always evaluated, but in the lambda's scope)
            body, body_type = self.gen(node.children[2], inner)
        if guessed and not bound:
            self.likely_maps.discard(f"u_{name}")
        return f"(lambda u_{name}: {body})({value})", body_type
