"""The engine: one generic player of any compiled ruleset.

Modules, each owning one concern:
  state.py       State: plain data, queries, atomic apply, chance nodes, copy/JSON/hash/diff
  flow.py        the phase lifecycle: enter, turns, exit, leave, next/return/end, end_if
  turn_order.py  seats, first player, direction, skip, rounds, actions per turn
  effects.py     the effect machine: one dataclass per effect kind, run through a table
  legal.py       legal-action enumeration, labels, refusal reasons
  visibility.py  observe, hidden values, determinize
  chance.py      the seeded RNG and chance nodes
  scoring.py     scores and winners
  frames.py      the frames of the stack (the save format) and their checks
  saves.py       reading a saved state back
  values.py      Action, Outcome, frozen argument values

Where the next constructs go: simultaneous moves in turn_order.py (a stage where several seats
are to act) with `State.current_players` listing them and legal.py enumerating per player;
secret actions and information states in visibility.py (and the labels of legal.py); a
determinization that re-samples hidden chance by replaying `State.history()` with re-drawn
outcomes through chance.py's manual mode.
"""
from .saves import SaveError
from .state import HistoryError, State
from .values import Action, Outcome

__all__ = ["State", "Action", "Outcome", "SaveError", "HistoryError"]
