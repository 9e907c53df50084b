"""Chance: where the game needs a random outcome (a shuffle, a `random` pick).

A seeded game resolves each chance event at once with its own counter-based RNG (the same seed
always gives the same game). A game started with `chance="manual"` has no RNG: the effect that
needs an outcome suspends, the state is at a chance node, and `State.apply_chance` supplies the
outcome; the effect then runs again from its start, consuming the outcomes given so far.
A shuffle is a sequence of draws: which of the items still unplaced goes to the last free
position (a Fisher-Yates shuffle read from the end).

Owns: the seeded draw, the chance node's outcomes and probabilities, the record of forced
outcomes in an effect frame.
"""
from __future__ import annotations

import hashlib

from .values import freeze

__all__ = ["ChanceNeeded", "seeded_index", "draw", "outcomes_of", "index_of"]


class ChanceNeeded(Exception):
    """Internal: an effect needs a chance outcome that nobody has supplied yet."""

    def __init__(self, options: list):
        super().__init__("a chance outcome is needed")
        self.options = options


def seeded_index(rng: list, count: int) -> int:
    """The next draw of the seeded RNG `rng` = [seed text, counter], in range(count)."""
    digest = hashlib.sha256(f"{rng[0]}:{rng[1]}".encode()).digest()
    rng[1] += 1
    return int.from_bytes(digest[:8], "big") % count


def draw(state_data: dict, frame: dict, pool: list, count: int) -> int:
    """The index in `pool[:count]` chosen by chance (each equally likely)."""
    if count <= 1:
        return 0
    rng = state_data["rng"]
    if rng is not None:
        return seeded_index(rng, count)
    given = frame.get("draws")
    if given is not None:
        used = frame["drawn"]
        if used < len(given):
            frame["drawn"] = used + 1
            return given[used]
    raise ChanceNeeded(list(pool[:count]))


def outcomes_of(options: list) -> list:
    """[(outcome, probability)] of a chance node whose options are equally likely; equal
    options are one outcome."""
    counts: dict = {}
    first: dict = {}
    for option in options:
        key = freeze(option)
        if key not in counts:
            counts[key] = 0
            first[key] = option
        counts[key] += 1
    total = len(options)
    return [(first[key], counts[key] / total) for key in counts]


def index_of(options: list, outcome) -> int:
    """The index of the first option equal to `outcome`, or -1."""
    key = freeze(outcome)
    for index, option in enumerate(options):
        if freeze(option) == key:
            return index
    return -1
