"""The cycle collector paused while the command line makes objects that live as long as the
process: its own modules when `interpreter.cli` is imported, and the ruleset it loads
(`commands.load_for_play`).

Owns `cycle_collector_paused`. Only the command line uses it; `interpreter.load()` and the
other APIs leave the collector alone.
"""
from __future__ import annotations

import contextlib
import gc

__all__ = ["cycle_collector_paused"]


@contextlib.contextmanager
def cycle_collector_paused():
    """Importing the command line's modules and loading a ruleset make objects by the hundred
    thousand that live as long as the process or the ruleset: Python's cycle collector, run
    every 700 new objects, would scan them again and again for nothing (~10 % of a one-game
    `simulate` while loading, 3-5 ms while importing). It is paused meanwhile (the work is
    bounded: rule files are bounded) and resumes after. The objects made meanwhile are then
    moved to the collector's oldest generation (`freeze` then `unfreeze`: no scan) instead of
    being scanned at its next young collection (~5 ms of a Davos start-up); the garbage cycles
    made meanwhile are collected with the oldest generation. An embedder's own frozen objects
    (`gc.freeze` before this) are left frozen."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
