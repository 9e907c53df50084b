"""rulebook: a generic interpreter for board games whose rules are data.

Public API: `load`, `compile_expression`, and the types they return."""
from .expr.compiler import compile_expression
from .errors import ExpressionError, RulebookError, RuleRuntimeError

__all__ = ["load", "compile_expression", "ExpressionError", "RulebookError", "RuleRuntimeError"]
__version__ = "0.1.0"


def load(name_or_path, modules=(), *, check: bool = True):
    """Load, compose, validate and compile a ruleset; returns an immutable Ruleset.

    Raises RulebookError (with every diagnostic of the failing stage) when it is not valid."""
    from .ruleset import load as _load

    return _load(name_or_path, modules=modules, check=check)
