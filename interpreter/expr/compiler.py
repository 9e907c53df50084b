"""Expressions: parse with the Lark grammar (parser.py), resolve names, check obvious type
errors and generate Python source (generate.py), which is compiled ONCE here; evaluation calls
the compiled function and never parses or walks a tree. This module owns the code units (many
expressions of a ruleset bound to one namespace), the process-level memos, lazy compilation and
`compile_expression`.

Safety comes from the grammar and the generator, not from a deny-list: a name in the language
can only become `_V['name']` (a state variable), `_L['name']` (a local of an effect),
`_K['name']` (a constant), `u_name` (a comprehension or lambda variable), `d_name` (a named
expression of the ruleset) or `_f_name` (a whitelisted builtin). Attribute access goes through
`_A`, which only reads component records and plain dicts. The code runs with no Python builtins.
"""
from __future__ import annotations

import functools
import hashlib
import re
from types import FunctionType as _FunctionType
from types import MappingProxyType
from typing import Optional

from ..errors import ExpressionError, RuleRuntimeError
from ..memo import BoundedMemo, bounded_memo
from .builtins import CHARGED, Budget, make_runtime
from .generate_calls import folded_constants
from .statements import return_statements
from .generate_sharing import hoisted_reads_preamble, kept_names_preamble
from .generate import NUM, Scope, _Gen, _list_of, _type_of_value
from .inlining import function_sources, inline_small_defines
from .keeping import slot_helpers
from .pure import memo_helpers, pure_defines, with_kept_values
from .names import KEYWORDS, check_name, define_problems
from .parser import _TREES, _parser, parse
from .runtime import _PY_ERRORS, _aug, _clip, _get_or0, _guarded, _key, _own_copy, stored_copier

__all__ = ["Scope", "CodeUnit", "compile_expression", "CompiledExpression", "parse", "check_name", "text_names",
           "compile_waiting"]


# the process-level memos of the compiler (see interpreter/memo.py; parse trees: parser.py)
_GEN_CACHE = BoundedMemo("generated expression code", 100_000)  # (kind, text, signature) -> code
_CODE_CACHE = BoundedMemo("compiled expression functions", 100_000)  # generated source -> code objects
_NAMES = BoundedMemo("names in expression texts", 100_000)  # text -> its identifiers


def clear_memos() -> None:
    """Forget everything the compiler memoised in this process."""
    for memo in (_TREES, _GEN_CACHE, _CODE_CACHE, _NAMES, _entity_signature_of.memo, _parser.memo,
                 _stub_code.memo):
        memo.clear()



class CodeUnit:
    """Collects the generated functions of many expressions and compiles them into ONE code
    object, once. Each expression becomes `def _eN(_V, _L)`; each define `def d_name(_V, _L, ...)`."""

    def __init__(self, scope: Scope, entities: Optional[dict] = None, budget: Optional[Budget] = None):
        self.scope = scope
        self.entities = entities if entities is not None else {}
        self.budget = budget or Budget()
        self.lines: list[str] = []
        self.count = 0
        self.ns: Optional[dict] = None
        self.pending: list = []  # (index, holder) resolved after build()
        self.define_calls: dict = {}  # define name -> the defines its expression calls
        # what attributes.py's checks read: (text, kind, the events its generator recorded: generate.py
        # `attribute_events`) of each expression, statement and define; each define's (text, scope, params, events)
        self.typed: list = []
        self.define_sources: dict = {}
        self.variants: dict = {}  # (handle name, names) -> a variant that keeps calls (keeping.py)
        self.define_reads: dict = {}  # define -> does its own text read a state var or a local (pure.py)
        self.define_codes: dict = {}  # define -> (checked code, fast code), written into callers (inlining.py)

    def _gen(self, source: str, start: str, scope: Scope):
        tree = parse(source, start)
        generator = _Gen(scope, source)
        return generator, tree

    def add_expression(self, source: str, scope: Optional[Scope] = None, lex: Optional[dict] = None):
        """Compile-check one expression now; return a handle whose `.fn` is set by build()."""
        scope = scope or self.scope
        written = source
        if isinstance(source, bool) or source is None or isinstance(source, (int, float)):
            source = repr(source) if not isinstance(source, bool) else ("true" if source else "false")
            if source == "None":
                source = "none"
        key = ("expr", str(source), _signature(str(source), scope, lex))
        hit = _cached_gen(key)
        if hit is not None:
            code, typ, fcode, names_used, events = hit
        else:
            generator, tree = self._gen(str(source), "expression", scope)
            code, typ = generator.gen(tree, dict(lex or {}))
            if _indexes(str(source)):
                fast = _Gen(scope, str(source), fast=True)
                fcode, _ = fast.gen(tree, dict(lex or {}))
            else:  # no indexing and no attribute: the fast variant would be the same code
                fcode = code
            names_used, events = generator.names_used, tuple(generator.attribute_events)
            _store_gen(key, (code, typ, fcode, sorted(names_used), events))
        if isinstance(written, str):
            self.typed.append((written, "expression", events))
        self.count += 1
        name, entries = _expression_source(str(source), code, fcode)
        self.lines.extend(entries)
        handle = Handle(name, str(source), typ, set(names_used))
        handle.origin = (scope, lex)
        self.pending.append(handle)
        return handle

    def add_statement(self, source: str, scope: Optional[Scope] = None):
        """An assignment `target op value`. Generates `def _sN(_V, _L)` that performs it."""
        scope = scope or self.scope
        key = ("stmt", str(source), _signature(str(source), scope, None))
        hit = _cached_gen(key)
        if hit is not None:
            root, path, operator, vcode, names_used, events = hit
            path = list(path)
        else:
            generator, tree = self._gen(str(source), "statement", scope)
            root, path, operator, vcode = generator.statement(tree, {})
            names_used, events = generator.names_used, tuple(generator.attribute_events)
            _store_gen(key, (root, list(path), operator, vcode, sorted(names_used), events))
        self.typed.append((source, "statement", events))
        base = f"_L[{root!r}]" if root in scope.locals else f"_V[{root!r}]"
        name = "_s" + _digest(base, repr(path), operator, vcode, str(source))
        self.count += 1
        body = []
        if not path:
            tgt = base
            if operator == "=":
                body.append(f"    {tgt} = _cp({vcode})")
            else:
                body.append(f"    {tgt} = _aug({tgt}, {operator[:-1]!r}, {vcode})")
        elif root in scope.locals:
            # a local has value semantics: assigning into a part of it first gives it its own
            # copy, so what it was bound to (a constant, a component's record, a var) is unchanged
            body.append(f"    _o = {base} = _own({base})")
        else:
            body.append(f"    _o = {base}")
        if path:
            for step_key in path[:-1]:
                body.append(f"    _o = _I(_o, {step_key})")
            # a whole number inside a list is stored at as it is; any other key is checked (and
            # converted: a map's keys are text) by `_key`
            body.append(f"    _k = {path[-1]}")
            body.append("    if _o.__class__ is not _list_t or _k.__class__ is not _int_t or not 0 <= _k < _len(_o):")
            body.append("        _k = _key(_o, _k)")
            if operator == "=":
                # a text, a fraction, a truth value or none is stored as it is (`_cp` copies the rest)
                body.append(f"    _v = {vcode}")
                body.append("    _o[_k] = _v if _v.__class__ in _SCALAR_AS_IS else _cp(_v)")
            else:
                body.append(f"    _o[_k] = _aug(_get_or0(_o, _k), {operator[:-1]!r}, {vcode})")
        body = [kept_names_preamble(vcode).rstrip("\n"), "    try:"] + ["    " + b for b in body]
        body = [line for line in body if line]
        body.append(_guard(name, str(source)).rstrip("\n"))
        self.lines.append(f"def {name}(_V, _L):\n" + "\n".join(body) + "\n")
        handle = Handle(name, str(source), None, set(names_used))
        handle.target = root
        handle.assigns_local = root in scope.locals
        self.pending.append(handle)
        return handle

    def add_define(self, name: str, params: list, source: str, scope: Optional[Scope] = None):
        """A named expression `name(params)`: generates `def d_name(_V, _L, ...)`."""
        scope = scope or self.scope
        for given in [name, *params]:
            problem = check_name(given)
            if problem is not None:
                raise ExpressionError(problem[0], 1, 1, code="name", hint=problem[1], source=str(source))
        lex = {p: None for p in params}
        key = ("define", str(source), _signature(str(source), scope, lex))
        hit = _cached_gen(key)
        if hit is not None:
            code, typ, fcode, names_used, events = hit
        else:
            generator, tree = self._gen(str(source), "expression", scope)
            code, typ = generator.gen(tree, dict(lex))
            fcode = _Gen(scope, str(source), fast=True).gen(tree, dict(lex))[0] if _indexes(str(source)) else code
            names_used, events = generator.names_used, tuple(generator.attribute_events)
            _store_gen(key, (code, typ, fcode, sorted(names_used), events))
        self.typed.append((source, "define", events))
        self.define_sources[name] = (source, scope, list(params), events)
        self.lines.append(_define_source(name, params, code, fcode))
        self.define_codes[name] = (code, fcode)
        self.define_reads[name] = bool(set(names_used) - set(params) & (set(scope.vars) | set(scope.locals)))
        self.define_calls[name] = sorted(set(names_used) & set(scope.defines) - set(params) - {name}
                                         | ({name} if name in names_used else set()))
        return typ, set(names_used)

    def check_defines(self) -> list:
        """[(define name, ExpressionError)] for every cycle of named expressions that call each
        other, and every chain of calls deeper than MAX_DEFINE_DEPTH (reported at its head)."""
        return define_problems(self.define_calls)

    def build(self, constants: Optional[dict] = None) -> dict:
        namespace = make_runtime(self.entities, self.budget)
        namespace["_K"] = dict(constants if constants is not None else self.scope.constants)
        namespace["_aug"] = functools.partial(_aug, self.budget)
        namespace["_key"] = _key
        namespace["_get_or0"] = _get_or0
        namespace["_cp"] = stored_copier(self.budget)
        namespace.update(_list_t=list, _int_t=int, _len=len, _SCALAR_AS_IS=frozenset((str, float, bool, type(None))))
        namespace["_own"] = functools.partial(_own_copy, self.budget)
        namespace["_GE"] = _PY_ERRORS + (RuleRuntimeError,)
        namespace["_NOV"] = _NO_VALUES
        namespace["_guarded"] = functools.partial(_guarded, self.pending)
        namespace["_UN"] = _NOT_YET
        namespace.update(slot_helpers(self.budget), **memo_helpers(self.budget, namespace))
        # each generated function is compiled once per process (by its source text) and bound
        # to this ruleset's namespace; the source comes from the grammar, no builtins reachable.
        # A function not compiled yet is bound as a stub that compiles it on its first call and
        # then becomes it (the same function object takes the compiled code): validating a
        # ruleset compiles only what its set-up runs, and play pays once per function it uses.
        params = {name: given[2] for name, given in self.define_sources.items()}
        entries = with_kept_values(list(dict.fromkeys(self.lines)), pure_defines(self.define_reads, self.define_calls),
                                   params, namespace)
        entries = inline_small_defines(entries, self.define_codes, params)
        # each function compiled alone: a define's checked twin (`d_x_safe`) only if a lookup error calls it
        entries = [function for entry in entries for function in function_sources(entry)]
        lazy: dict = {}
        for entry in entries:
            if "_R_" in entry:
                namespace.update(folded_constants(entry))
            codes = _CODE_CACHE.get(entry)
            if codes is not None:
                for name, code, defaults in codes:
                    namespace[name] = _FunctionType(code, namespace, name, defaults)
            else:
                for name in _def_names(entry):
                    stub = namespace[name] = _FunctionType(_stub_code(), namespace, name)
                    stub.__kwdefaults__ = {"_me_": name}
                    lazy[name] = entry
        if lazy:
            namespace["_LAZY"] = lambda name: _materialize(namespace, lazy, name)
        for handle in self.pending:
            handle.fn = namespace[handle.name]
        self.ns = namespace
        return namespace


def _indexes(source: str) -> bool:
    """Does the expression index or read an attribute (then its fast variant differs)?"""
    return "[" in source or "." in source


def _define_source(name: str, params: list, code: str, fcode: str) -> str:
    """The function of a named expression: plain subscripts first and, on a lookup error, the
    checked version (which explains it), as for an expression."""
    args = ", ".join(["_V", "_L"] + ["u_" + p for p in params])
    start, fast_start = kept_names_preamble(code), kept_names_preamble(fcode)
    if fcode == code:
        return f"def d_{name}({args}):\n{start}    return {code}\n"
    return (f"def d_{name}_safe({args}):\n{start}    return {code}\n"
            f"def d_{name}({args}):\n{fast_start}    try:\n{hoisted_reads_preamble(fcode)}{return_statements(fcode)}"
            f"    except _LE:\n        return d_{name}_safe({args})\n")


def _expression_source(source: str, code: str, fcode: str) -> tuple:
    """The generated function(s) of an expression, named by content: the same expression in
    another module combination compiles once."""
    name = "_e" + _digest(code, fcode, source)
    # a Python error (a value of the wrong type met at run time) becomes a RuleRuntimeError
    # that names the expression; `try` costs nothing when nothing is raised
    guard = _guard(name, source)
    start, fast_start = kept_names_preamble(code), kept_names_preamble(fcode)
    if fcode != code:
        # plain subscripts first; on any lookup error, the checked version explains it
        return name, (f"def {name}_safe(_V, _L):\n{start}    try:\n        return {code}\n" + guard,
                      f"def {name}(_V=_NOV, _L=_NOV):\n{fast_start}    try:\n{hoisted_reads_preamble(fcode)}"
                      f"{return_statements(fcode)}"
                      f"    except _LE:\n        return {name}_safe(_V, _L)\n" + guard)
    return name, (f"def {name}(_V=_NOV, _L=_NOV):\n{start}    try:\n{return_statements(code)}" + guard,)


@bounded_memo(1)
def _stub_code():
    """The code of a function not compiled yet: compile it (see `_materialize`), then call it."""
    scratch: dict = {"__builtins__": {}}
    exec(compile("def _stub(*_a, _me_=None, **_k):\n    return _LAZY(_me_)(*_a, **_k)\n",  # noqa: S102
                 "<rulebook stub>", "exec"), scratch)
    return scratch["_stub"].__code__


def _materialize(namespace: dict, lazy: dict, name: str):
    """Compile the generated source that defines `name` and give its functions (the stubs in
    `ns`, which other code may already hold) their compiled code."""
    entry = lazy.get(name)
    if entry is not None:
        codes = _CODE_CACHE.get(entry)
        if codes is None:
            scratch = {"__builtins__": {}, "_NOV": _NO_VALUES}
            try:
                code = compile(entry, "<rulebook expressions>", "exec")
            except SyntaxError as error:  # a generator bug (tests compile every bundled function)
                from ..errors import RuleRuntimeError

                raise RuleRuntimeError(f"internal error: generated code failed to compile: {error}") from None
            exec(code, scratch)  # noqa: S102
            codes = [(name, scratch[name].__code__, scratch[name].__defaults__) for name in _def_names(entry)]
            _CODE_CACHE.put(entry, codes)
        for function_name, code, defaults in codes:
            function = namespace[function_name]
            if function.__code__ is _stub_code():
                function.__code__ = code
                function.__defaults__ = defaults
                function.__kwdefaults__ = None
            lazy.pop(function_name, None)
    return namespace[name]


def compile_waiting(namespace: dict) -> int:
    """Compile now every function of a built namespace still waiting for its first call, except
    the checked twins (`<name>_safe`, called only when the fast version of an expression meets
    a lookup error: 64 of Davos's 82 are never called in 300 games); how many were compiled.
    `simulate --jobs N` does this before forking its workers, which then share the code instead
    of each compiling it on first use."""
    stub = _stub_code()
    waiting = [name for name, value in namespace.items()
               if type(value) is _FunctionType and value.__code__ is stub and not name.endswith("_safe")]
    for name in waiting:
        namespace["_LAZY"](name)
    return len(waiting)


_NO_VALUES = MappingProxyType({})
_NOT_YET = object()  # a kept value not computed yet (generate_sharing.py)
_STRINGS = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_IDENTIFIERS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
def text_names(source: str) -> tuple:
    """The identifiers of an expression, found in its text (string literals left out): a
    superset of its names (attribute and keyword names too), enough to key caches by."""
    hit = _NAMES.get(source)
    if hit is None:
        text = _STRINGS.sub("''", source)
        hit = _NAMES.put(source, tuple(sorted(set(_IDENTIFIERS.findall(text)) - KEYWORDS)))
    return hit


def _signature(source: str, scope, lex) -> tuple:
    """What the generated code of an expression depends on: for each name in it, what the
    scope says it is (local, var, constant, define, builtin) with its type, and the component
    types' attributes (for the attribute checks)."""
    sig = []
    lexical = lex or {}
    locs, vars_, consts, defs = scope.locals, scope.vars, scope.constants, scope.defines
    for name in text_names(source):
        # types are strings, tuples or None: hashable as they are (repr only for the disk key)
        if name in lexical:
            sig.append((name, "x", lexical[name]))
        elif name in locs:
            sig.append((name, "l", locs[name]))
        elif name in vars_:
            sig.append((name, "v", vars_[name]))
        elif name in consts:
            value = consts[name]
            sig.append((name, "k", repr(value) if isinstance(value, (int, float, str, bool)) or value is None
                        else (scope.const_types.get(name), type(value).__name__)))
        elif name in defs:
            sig.append((name, "d", tuple(defs[name]), scope.define_types.get(name), name in scope.proven_defines))
        else:
            sig.append((name, "?", ""))
    return (tuple(sig), _entity_signature(scope.entity_types), scope.map_attributes)


def _entity_signature(entity_types: dict) -> str:
    """The component types' attributes, as one short text (the same dict object is shared by
    every scope of a ruleset, so this is computed once per ruleset)."""
    return _entity_signature_of(_Identity(entity_types))


class _Identity:
    """A dict as a memo key by identity (it is not changed once the scopes of a ruleset
    share it); holding it keeps its id from being reused while the memo remembers it."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return id(self.value)

    def __eq__(self, other):
        return type(other) is _Identity and other.value is self.value


@bounded_memo(1000)
def _entity_signature_of(entity_types: _Identity) -> str:
    text = repr(sorted((t, sorted(a)) for t, a in entity_types.value.items()))
    return hashlib.sha1(text.encode()).hexdigest()


def _cached_gen(key):
    return _GEN_CACHE.get(key)  # (None for a key with an unhashable type: compiled again)


def _store_gen(key, value):
    _GEN_CACHE.put(key, value)


def _digest(*parts) -> str:
    return hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:16]


def _def_names(src: str) -> list:
    """The names of the functions a generated source defines."""
    return [line[4:line.index("(")] for line in src.splitlines() if line.startswith("def ")]


def _guard(name: str, source: str) -> str:
    """The `except` clause of a generated function: a Python error (a value of the wrong type
    met at run time) becomes a RuleRuntimeError in plain words naming the expression, and any
    rule error gets the expression's position in the rule files (`try` costs nothing when
    nothing is raised; one clause rather than one per kind of error: ~15 % less code to compile)."""
    return f"    except _GE as _x:\n        raise _guarded(_x, {_clip(source)!r}, {name!r}) from None\n"


class Handle:
    __slots__ = ("name", "source", "type", "fn", "names", "target", "pos", "origin", "assigns_local")

    def __init__(self, name, source, typ, names):
        self.name = name
        self.source = source
        self.type = typ
        self.names = names
        self.fn = None
        self.target = None  # a statement's: the name it assigns (or assigns into)
        self.assigns_local = False  # a statement's: that name is a local (a `let`, a parameter ...), not a var
        self.pos = None
        self.origin = None  # (scope, lex) of an expression: what a variant is generated from


class CompiledExpression:
    """One expression compiled once. `evaluate(mapping)` gives its value; the mapping supplies
    every name the expression was compiled with."""

    __slots__ = ("source", "_fn", "_budget", "names", "evaluate")

    def __init__(self, source, function, budget, names):
        self.source = source
        self._fn = function
        self._budget = budget  # None when the expression charges no work
        self.names = names
        # `evaluate(mapping)` is the generated function itself when there is no work budget to
        # reset (no call in between); otherwise a small closure resets the budget first
        if budget is None:
            self.evaluate = function
        else:
            def evaluate(mapping=_NO_VALUES, _function=function, _budget=budget):
                _budget.left = _budget.limit
                return _function(mapping)
            self.evaluate = evaluate

    def __call__(self, mapping=None):
        return self.evaluate(_NO_VALUES if mapping is None else mapping)

    def __repr__(self):
        return f"CompiledExpression({self.source!r})"


def compile_expression(source: str, names=(), *, functions: Optional[dict] = None,
                       entities: Optional[dict] = None, work_limit: int = 2_000_000) -> CompiledExpression:
    """Compile `source` once. `names` are the names the expression may use (an iterable, or a
    mapping name -> example value, used only for its type). `functions` maps a name to
    (params, body source) for named helper expressions. Raises ExpressionError with
    `.line`, `.column`, `.message` on a syntax or name error."""
    if isinstance(names, dict):
        vars_ = {n: _example_type(v, entities) for n, v in names.items()}
    else:
        vars_ = {n: None for n in names}
    defines = {k: list(v[0]) for k, v in (functions or {}).items()}
    scope = Scope(vars=vars_, defines=defines)
    budget = Budget(work_limit)
    unit = CodeUnit(scope, entities or {}, budget)
    for fname, (params, body) in (functions or {}).items():
        unit.add_define(fname, list(params), body)
    handle = unit.add_expression(source)
    unit.build()
    charges = any(_CHARGING.search(line) for line in unit.lines)
    return CompiledExpression(source, handle.fn, budget if charges else None, sorted(handle.names))


# generated code that may charge the work budget: then each evaluation starts with a full budget
_CHARGING = re.compile(r"_T\(|_B\.left -=|_in\(|_add\(|_mul|_aug\(|_f_(" + "|".join(sorted(CHARGED)) + r")\(")


def _example_type(value, entities=None):
    """The type of an example value; a list also tells its elements' type when they agree
    (all numbers, or all ids of components of one type)."""
    if isinstance(value, list) and value:
        if all(type(x) is int for x in value):
            return _list_of(NUM)
        if entities and all(isinstance(x, str) and x in entities for x in value):
            kinds = {(entities[x] or {}).get("type") for x in value}
            if len(kinds) == 1 and None not in kinds:
                return _list_of(("entity", kinds.pop()))
    return _type_of_value(value)
