"""rulebook: a generic interpreter for board games whose rules are data.

Public API: `load`, `compile_expression`, and the types they return."""
# Imported on first use (PEP 562), so that `rulebook --help` does not pay for the compiler.
_LAZY = {"compile_expression": ".expr.compiler", "ExpressionError": ".errors",
         "RulebookError": ".errors", "RuleRuntimeError": ".errors"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'interpreter' has no attribute {name!r}")

__all__ = ["load", "compile_expression", "ExpressionError", "RulebookError", "RuleRuntimeError"]
__version__ = "0.1.0"


def load(name_or_path, modules=(), *, check: bool = True, settings=None):
    """Load, compose, validate and compile a ruleset; returns a Ruleset (shared by its games: read-only).
    `settings` overrides declared settings by name, e.g. settings={"years": 2}.

    Raises RulebookError (with every diagnostic of the failing stage) when it is not valid."""
    from .ruleset import load as _load

    return _load(name_or_path, modules=modules, check=check, settings=settings)
