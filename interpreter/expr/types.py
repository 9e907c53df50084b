"""The light static types of expressions (just enough to catch obvious mistakes before play):
the type names, list types, the type of a builtin's result and of a constant value, and the
literal checks the generator uses. The generator (generate.py) is their one user.
"""
from __future__ import annotations

__all__ = ["NUM", "STR", "BOOL", "NONE"]


NUM, STR, BOOL, NONE = "number", "text", "boolean", "none"


def _list_of(t):
    return ("list", t)


def _is_entity(t):
    return isinstance(t, tuple) and t[0] == "entity"


def _elem(t):
    if isinstance(t, tuple) and t[0] == "list":
        return t[1]
    return None



def _builtin_type(fname, pos_args):
    """The static type of a builtin's result, where its arguments tell it (else None)."""
    if fname == "sum":
        return _sum_type(pos_args)
    if fname in ("count", "len", "abs", "floor", "ceil", "int", "round", "round_down", "sign", "clamp"):
        return NUM
    if fname in ("any", "all"):
        return BOOL
    if fname in ("sorted", "distinct", "reversed", "ranked", "most", "difference",
                 "intersection", "remove_one") and pos_args:
        return pos_args[0][1]
    if fname in ("first", "last", "min", "max") and len(pos_args) == 1:
        return _elem(pos_args[0][1])
    if fname == "str":
        return STR
    if fname == "range":
        return _list_of(NUM)
    return None


def _sum_type(args):
    """sum(xs) is a number (it starts from 0); sum(xs, start) has the type of `start`: a sum
    of lists is a list."""
    if len(args) == 2:
        start = args[1][1]
        return start if start == NUM or (isinstance(start, tuple) and start[0] == "list") else None
    return NUM


def _tname(t):
    if isinstance(t, tuple):
        return "a list" if t[0] == "list" else f"a {t[1]}"
    return {NUM: "a number", STR: "text", BOOL: "a boolean", NONE: "none"}.get(t, "a value")


def _is_int_literal(code: str) -> bool:
    return code.isdigit()


def _is_small_literal(code: str) -> bool:
    """A number literal below 2**31: multiplying by it cannot make a number explode."""
    return _is_num_literal(code) and abs(float(code)) < 2 ** 31


def _is_num_literal(code: str) -> bool:
    try:
        float(code)
        return True
    except ValueError:
        return False


def _type_of_value(v, scope=None):
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, (int, float)):
        return NUM
    if isinstance(v, str):
        return STR
    if v is None:
        return NONE
    if isinstance(v, list):
        return _list_of(None)
    if isinstance(v, dict):
        return "map"
    return None
