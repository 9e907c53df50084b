"""The engine: one generic player of any compiled ruleset.

Modules, each owning one concern:
  state.py       State: plain data, queries, copy, the log, the atomic contract of apply
  acting.py      State's mixin Acting: legal listing and ids, apply/apply_id/undo, chance nodes
  records.py     State's mixin Records: to_json/from_json, history/from_history, hash/diff
  flow.py        the phase lifecycle: enter, turns, exit, leave, next/return/end, end_if
  turn_order.py  seats, first player, direction, skip, rounds, actions per turn
  effects.py     the effect machine: one dataclass per effect kind, run through a table
  declared.py    the range and step a choose or a parameter declares for its numbers, kept in play
  legal.py       legal-action enumeration, labels, refusal reasons
  visibility.py  observe, hidden values, the re-deal of a present state (determinize's fallback)
  infosets.py    information_state: a player's trajectory, what they saw of the history
  labels.py      which move labels another player reads as written, else their plain label;
                 the labels dropped for reading what their own mover may not see
  label_reads.py what a label template may read that is hidden, and through which seat
  worlds.py      worlds drawn for a player by playing the history again (determinize)
  world_plan.py  a drawn world's plan: a choice per step, the states on the way, the runs of draws
  world_search.py  the search for such a world when the repairs of worlds.py give up
  chance.py      the seeded RNG and chance nodes
  scoring.py     scores and winners
  frames.py      the frames of the stack (the save format) and their checks
  saves.py       reading a saved state back
  aliases.py     what the waiting frames' values are (a var's list, a constant), kept across copies and saves
  values.py      Action, Outcome, frozen argument values

Where the next constructs go: simultaneous moves in turn_order.py (a stage where several seats
are to act) with `State.current_players` listing them and legal.py enumerating per player;
secret actions in legal.py and visibility.py; information states in infosets.py and worlds.py.
"""
from .saves import SaveError
from .state import HistoryError, State
from .values import Action, Outcome

__all__ = ["State", "Action", "Outcome", "SaveError", "HistoryError"]
