"""Which operands of an expression are numbers for certain, whatever the state holds: the proof
the generator needs before it writes a plain Python operator where a checked helper charges
the work (`a + b` is `_add` unless one side is proven a number: then the other is a number too,
or Python refuses the `+`, and nothing long is built).

The light static types (types.py) are not such a proof: they catch mistakes, and the type of a
name is what it was bound to, not what the effects may assign to it later (`player = [1, 2]`
is allowed). So a proof is read from the expression's own syntax: number literals, arithmetic
(which yields a number or fails), the builtins that return a number, and the defines whose own
expression is proven (`Scope.proven_defines`, ruleset.py `compile_defines`). Names never prove.

Owns: `proves_number`, `define_proven`.
"""
from __future__ import annotations

from lark import Token

from .builtins import BUILTINS
from .parser import parse

# arithmetic whose result is a number, or an error, whatever its operands are
_ALWAYS_A_NUMBER = ("sub", "div", "floordiv", "neg", "pos", "pow")
# builtins that return a number, or fail, whatever their arguments are
_NUMBER_BUILTINS = ("count", "len", "abs", "floor", "ceil", "int", "round", "round_down", "sign")


def proves_number(node, scope, shadowed=(), memo=None) -> bool:
    """Is the value of expression tree `node` a number (int, float or bool) whenever it is
    computed without an error? `scope`: its defines and which of them are proven
    (`Scope.proven_defines`); `shadowed`: the names bound around it (a `let`, a lambda's or a
    comprehension's variables: a call of such a name is not a call of the define); `memo`:
    the answers for the nodes of this tree so far (a long `a + b + c + ...` is read once)."""
    memo = {} if memo is None else memo
    found = memo.get(id(node))
    if found is None:
        found = memo[id(node)] = _proves(node, scope, shadowed, memo)
    return found


def _proves(node, scope, shadowed, memo) -> bool:
    if isinstance(node, Token):
        return False  # a name: a local or a var may hold anything the effects assigned
    kind = node.data
    children = node.children
    if kind == "expression":
        return proves_number(children[0], scope, shadowed, memo)
    if kind == "let":  # the value of its body
        return proves_number(children[2], scope, {*shadowed, str(children[0])}, memo)
    if kind == "number" or kind in _ALWAYS_A_NUMBER:
        return True
    if kind in ("add", "mod"):  # `%` is refused on a text (operators.py `_mod`)
        sides = children if kind == "add" else children[:1]
        return any(proves_number(side, scope, shadowed, memo) for side in sides)
    if kind == "mul":  # (a list times a number is a list)
        return all(proves_number(side, scope, shadowed, memo) for side in children)
    if kind == "ifexp":
        return all(proves_number(branch, scope, shadowed, memo) for branch in (children[0], children[2]))
    if kind == "call":
        return _call_proves_number(children, scope, shadowed, memo)
    return False


def _call_proves_number(children, scope, shadowed, memo) -> bool:
    fname, args_node = str(children[0]), children[1]
    if fname in scope.defines and fname not in shadowed:
        return fname in scope.proven_defines
    if fname not in BUILTINS:
        return False
    if args_node is None:
        arguments = []
    elif args_node.data == "genexp_arg":
        arguments = [args_node]
    else:
        arguments = [argument for argument in args_node.children if argument is not None]
    if fname in _NUMBER_BUILTINS:
        return True
    if fname == "sum":  # sum(xs) starts from 0; sum(xs, start) is a list when `start` is one
        return len(arguments) == 1 or (len(arguments) == 2 and proves_number(arguments[1], scope, shadowed, memo))
    if fname in ("min", "max", "clamp") and len(arguments) >= 2:
        # one of its arguments (`max(a, b)`): a number when each of them is
        return all(getattr(argument, "data", None) != "kwarg" and proves_number(argument, scope, shadowed, memo)
                   for argument in arguments)
    return False


def define_proven(source: str, params, scope) -> bool:
    """Is the value of a define's expression (its parameters `params`) a number for certain?"""
    return proves_number(parse(str(source), "expression"), scope, params)
