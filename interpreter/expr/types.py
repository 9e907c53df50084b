"""The light static types of expressions (just enough to catch obvious mistakes before play):
the type names, list types, the type of a builtin's result and of a constant value, and the
literal checks the generator uses. The generator (generate.py) is their one user.
"""
from __future__ import annotations

__all__ = ["NUM", "STR", "BOOL", "NONE"]


NUM, STR, BOOL, NONE = "number", "text", "boolean", "none"


def _list_of(typ):
    return ("list", typ)


def _is_entity(typ):
    return isinstance(typ, tuple) and typ[0] == "entity"


def _elem(typ):
    if isinstance(typ, tuple) and typ[0] == "list":
        return typ[1]
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


def _tname(typ):
    if isinstance(typ, tuple):
        return "a list" if typ[0] == "list" else f"a {typ[1]}"
    return {NUM: "a number", STR: "text", BOOL: "a boolean", NONE: "none"}.get(typ, "a value")


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


def _type_of_value(value, scope=None):
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, (int, float)):
        return NUM
    if isinstance(value, str):
        return STR
    if value is None:
        return NONE
    if isinstance(value, list):
        return _list_of(None)
    if isinstance(value, dict):
        return "map"
    return None


def map_attributes(entities: dict) -> frozenset:
    """The attribute names whose value is a map (or none) in every component record (and every
    map inside one) that has them, e.g. `requirement` in `s.requirement.agents`: the fast
    variant of the generated code reads an attribute of such a value as a plain subscript. (A
    guess, not a proof: on any other value the subscript fails and the checked variant runs,
    generate_access.py.)"""
    always: dict = {}  # name -> is every value met under it a map or none (and one a map)?
    pending = [record for record in entities.values() if isinstance(record, dict)]
    while pending:
        mapping = pending.pop()
        for key, value in mapping.items():
            if isinstance(value, dict):
                always[key] = always.get(key, True)
                pending.append(value)
            elif value is not None:
                always[key] = False
                if isinstance(value, list):
                    pending.extend(item for item in value if isinstance(item, dict))
    return frozenset(key for key, is_map in always.items() if is_map)
