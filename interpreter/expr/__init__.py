"""The expression language: grammar, compiler and builtins."""
from .compiler import CompiledExpression, Scope, CodeUnit, compile_expression, parse

__all__ = ["CompiledExpression", "Scope", "CodeUnit", "compile_expression", "parse"]
