"""The expression language: grammar, compiler and builtins. `Budget` is the work bound the
engine shares with the compiled code (`budget.charge(n, what)`, `budget.reset()`)."""
from .builtins import Budget
from .compiler import CompiledExpression, Scope, CodeUnit, check_name, compile_expression, parse

__all__ = ["Budget", "CompiledExpression", "Scope", "CodeUnit", "check_name", "compile_expression", "parse"]
