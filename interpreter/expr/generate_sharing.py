"""Work the generated code of one expression does not repeat: a call met again after a part that
always computes it first (shared through a Python `:=`), and a call in a comprehension's body
that is the same for every item (computed at its first use, then kept for the rest of the
evaluation). Expressions read the state and change nothing, so a call with the same
arguments in the same evaluation has the same value.

Where it is sound, and only there:
- shared: a call a condition (of `x if c else y`, the left of `and`/`or`, a comprehension's
  filter) has always made when it has the outcome that runs what follows (a part always
  evaluated, or the right of an `and` that is true, of an `or` that is false), found again in
  what follows (the branch, the right operand, the rest of the comprehension), where none of
  its variables is bound anew;
- kept: a call in a comprehension's body that reads no variable of the comprehension nor a
  shared value (a named expression of no parameters, a call of a define's parameters only),
  outside any lambda (a `:=` there would bind in the lambda) and outside a comprehension's
  iterable (Python refuses `:=` there).

Also read once: in the fast variant (plain subscripts, the checked variant on a lookup error),
a var, local or constant read for each item of a comprehension or each call of a lambda is read
once before the expression (`hoisted_reads_preamble`).

Owns: `SharingCode`, a part of the generator (`_Gen` in generate.py), which gives the depths it
reads: `conditional`, `per_item`, `lambdas`, `no_walrus`.
"""
from __future__ import annotations

import re
from contextlib import contextmanager

from .builtins import CHARGED, ITERATING

# string literals of the generated code (a call's text inside one is not a call)
_STRINGS = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
# names a comprehension or a lambda binds in the generated code
_BINDINGS = re.compile(r"\b(?:for|lambda) ((?:u_\w+, )*u_\w+)(?: in\b|:)")
_VARIABLES = re.compile(r"\bu_\w+")
# a value bound while an item is made (a shared call): not the same for every item
_TEMPORARY = re.compile(r"\b_s\d+\b")
# off only to compare the generated code with and without sharing, folding and the inlined
# `get` and attributes (tests)
ENABLED = True

# the value kept by a named expression of no parameters (see `kept_define`)
KEPT = re.compile(r"\b_h\d+\b")


_OPPOSITE = {"true": "false", "false": "true"}
# the calls worth keeping across evaluations: a named expression, or a builtin that goes
# through a collection or charges the work bound
_COSTLY = re.compile(r"^(d_\w+|_f_(" + "|".join(sorted(ITERATING | CHARGED)) + r"))\(")


class SharingCode:
    """Sharing of repeated calls (mixed into `_Gen`)."""

    def start_sharing(self) -> None:
        self.conditional = 0  # depth of parts evaluated only sometimes, or in a lambda's scope
        self.per_item = 0  # depth inside a comprehension's body (element, filters, inner loops)
        self.over_constant = 0  # depth inside a comprehension over a constant (generate.py `read`)
        self.lambdas = 0  # depth inside a lambda or a `let` body
        self.no_walrus = 0  # depth inside a comprehension's iterable
        self.recordings: list = []  # [[depth, [call code], "true"/"false"]]: conditions being generated
        self.temporaries = 0
        self.kept: dict = {}  # call code -> the name its value is kept under
        self.item_variables: list = []  # the variables of the comprehensions being generated
        self.sharing = ENABLED  # (also folds constants, inlines `get` and attributes: generate_calls.py)
        self.slots: dict = {}  # call code -> its slot in `_k` (calls kept across evaluations, below)
        self.lexical: dict = {}  # the names bound around the call being generated (set by g_call)

    @contextmanager
    def depth(self, *names):
        """Generate inside the given contexts (`conditional`, `per_item`, `lambdas`, `no_walrus`)."""
        for name in names:
            setattr(self, name, getattr(self, name) + 1)
        try:
            yield
        finally:
            for name in names:
                setattr(self, name, getattr(self, name) - 1)

    @contextmanager
    def recording(self, when: str):
        """The calls generated inside that are always made when the part inside turns out
        true (`when` "true") or false ("false"): those always evaluated, and those of an `and`
        (of an `or`) that made it true (false)."""
        frame = [self.conditional, [], when]
        self.recordings.append(frame)
        try:
            yield frame[1]
        finally:
            self.recordings.pop()

    @contextmanager
    def sometimes(self, known_when=None):
        """Generate a part evaluated only sometimes: the right of `and` (known evaluated when
        the whole is true: `known_when` "true"), the right of `or` ("false"), a later operand
        of a chained comparison ("true")."""
        followed = [frame for frame in self.recordings
                    if frame[0] == self.conditional and frame[2] == known_when]
        self.conditional += 1
        for frame in followed:
            frame[0] += 1
        try:
            yield
        finally:
            self.conditional -= 1
            for frame in followed:
                frame[0] -= 1

    @contextmanager
    def negated(self):
        """Generate the operand of `not`: true inside is false outside."""
        flipped = [frame for frame in self.recordings if frame[0] == self.conditional]
        for frame in flipped:
            frame[2] = _OPPOSITE[frame[2]]
        try:
            yield
        finally:
            for frame in flipped:
                frame[2] = _OPPOSITE[frame[2]]

    def note_call(self, code: str) -> str:
        if self.no_walrus:  # (a call in a comprehension's iterable cannot be bound there)
            return code
        for depth, calls, _ in self.recordings:
            if depth == self.conditional:
                calls.append(code)
        return code

    def new_temporary(self, prefix: str) -> str:
        self.temporaries += 1
        return f"{prefix}{self.temporaries}"

    def share(self, first: str, calls: list, later: list) -> tuple:
        """`first` (evaluated before `later`, with an outcome that makes `later` run) binding
        each of its `calls` that a code of `later` computes again, and `later` reading the
        bound value instead."""
        if self.no_walrus or not self.sharing:
            return first, later
        kept_spans = _slot_spans(first) if self.slots else ()
        for call in sorted(set(calls), key=len, reverse=True):
            found = _calls_in(first, call)
            if len(found) != 1 or any(start <= found[0][0] < end for start, end in kept_spans):
                continue  # (inside a call kept across evaluations it is not made every time)
            if not any(_occurrences(code, call) for code in later):
                continue
            if any(_rebinds(code, call) for code in later):
                continue
            name = self.new_temporary("_s")
            first = _replace(first, call, f"({name} := {call})")
            later = [_replace(code, call, name) for code in later]
        return first, later

    def share_branches(self, condition: str, if_true: list, if_false: list, branches: tuple) -> tuple:
        """`share` for `then if condition else otherwise`: the calls made whatever the outcome
        with both branches, the others with the branch their outcome leads to."""
        then_code, else_code = branches
        both = set(if_true) & set(if_false)
        condition, (then_code, else_code) = self.share(condition, list(both), [then_code, else_code])
        condition, (then_code,) = self.share(condition, [call for call in if_true if call not in both], [then_code])
        condition, (else_code,) = self.share(condition, [call for call in if_false if call not in both], [else_code])
        return condition, then_code, else_code

    def call_code(self, call: str) -> str:
        """The code of a call: kept (see `kept_call`) or noted for sharing (`note_call`)."""
        across = self.kept_across(call)
        code = call if across is None else across  # (shared like a call when it is made again)
        kept = self.kept_call(code)
        return self.note_call(code) if kept is None else kept

    def kept_across(self, call: str):
        """With `keep_across` (the local names that change between the evaluations this code
        is made for: a requirement's parameter, while the legal moves go through its values):
        a call of a named expression or of a builtin that goes through a collection or charges
        the work bound, reading none of those names and no variable bound around the call (one
        it reads that is not bound around it is bound inside it), computed at its first use and
        kept in the slots `_k` the caller gives (then read again, the work it cost is charged
        again: the work bound counts as if it were computed each time). None otherwise."""
        if self.keep_across is None or not self.sharing or not _COSTLY.match(call):
            return None
        if _TEMPORARY.search(call) or KEPT.search(call):
            return None
        if set(_VARIABLES.findall(call)) & {"u_" + name for name in self.lexical}:
            return None
        if any(f"_L[{name!r}]" in call for name in self.keep_across):
            return None
        slot = self.slots.get(call)
        if slot is None:
            slot = self.slots[call] = 2 * len(self.slots)  # (the value, then the work it cost)
        return f"(_again(_k, {slot}) if _k[{slot}] is not _UN else _keep(_k, {slot}, _B.left, {call}))"

    def kept_call(self, call: str):
        """A call in a comprehension's body that reads none of the comprehension's variables
        (a named expression of no parameters, `f(p)` of a parameter `p` of the define, ...):
        computed at its first use and kept in `_hN` (set to `_UN` when the function starts).
        None where that is not sound (in a lambda, in an iterable, reading an item's value)."""
        if not self.per_item or self.lambdas or self.no_walrus or not self.sharing:
            return None
        if _TEMPORARY.search(call) or set(_VARIABLES.findall(call)) & set().union(*self.item_variables):
            return None
        name = self.kept.get(call)
        if name is None:
            name = self.kept[call] = self.new_temporary("_h")
        return f"({name} if {name} is not _UN else ({name} := {call}))"


def kept_names_preamble(*codes: str) -> str:
    """The statement that starts a generated function whose code keeps values (`_hN`)."""
    names = sorted({name for code in codes for name in KEPT.findall(code)})
    if not names:
        return ""
    return "    " + " = ".join(names) + " = _UN\n"


# a read of a var, a local or a constant made once before the comprehensions that use it
# (the fast variant's `read`, generate.py)
HOISTED = re.compile(r"\b(_[VLK])n_(\w+)")


def hoisted_reads_preamble(code: str) -> str:
    """The statements, inside the `try` of a fast variant, that read once the vars, locals and
    constants its comprehensions and lambdas use (string literals left out)."""
    reads = sorted(set(HOISTED.findall(_STRINGS.sub("''", code))))
    return "".join(f"        {mapping}n_{name} = {mapping}[{name!r}]\n" for mapping, name in reads)


def _slot_spans(code: str) -> list:
    """[(start, end)] of the calls kept across evaluations in `code` (`_keep(_k, ...)`): what
    is inside is computed only at the first evaluation."""
    spans = []
    for found in re.finditer(r"_keep\(_k, ", code):
        depth, position = 1, found.end()
        while depth and position < len(code):
            literal = _STRINGS.match(code, position)
            if literal:
                position = literal.end()
                continue
            depth += {"(": 1, ")": -1}.get(code[position], 0)
            position += 1
        spans.append((found.start(), position))
    return spans


def _calls_in(code: str, call: str) -> list:
    """Where `call` is computed in `code`: the (start, end) of its occurrences outside the string
    literals and not preceded by a word character or a dot (not the tail of another name or an
    attribute). A plain search, not a regular expression: each call met would compile its own."""
    literals = [(found.start(), found.end()) for found in _STRINGS.finditer(code)]
    spans = []
    start = code.find(call)
    while start != -1:
        before = code[start - 1] if start else " "
        if before.isalnum() or before in "_.":
            start = code.find(call, start + 1)
            continue
        if not any(literal_start <= start < literal_end for literal_start, literal_end in literals):
            spans.append((start, start + len(call)))
        start = code.find(call, start + len(call))
    return spans


def _occurrences(code: str, call: str) -> int:
    return len(_calls_in(code, call))


def _replace(code: str, call: str, replacement: str) -> str:
    pieces, done = [], 0
    for start, end in _calls_in(code, call):
        pieces += [code[done:start], replacement]
        done = end
    return "".join(pieces) + code[done:]


def _rebinds(code: str, call: str) -> bool:
    """Does `code` bind anew (a comprehension or a lambda) a variable that `call` reads?"""
    variables = set(_VARIABLES.findall(call))
    if not variables:
        return False
    for binding in _BINDINGS.findall(_STRINGS.sub("''", code)):
        if variables & set(binding.split(", ")):
            return True
    return False
