"""Compatibility: the engine moved to the package `interpreter.engine`; `from interpreter.state
import State, Action, Outcome` keeps working."""
from .engine import Action, HistoryError, Outcome, SaveError, State

__all__ = ["State", "Action", "Outcome", "SaveError", "HistoryError"]
