"""The game, compiled (issue 15): a Python module generated once per ruleset that plays it —
each phase's flow as straight-line functions, the legal moves of each action as one loop nest,
effects inlined into their actions, an undo log instead of a snapshot per move (see
docs/performance.md, "Compiled play").

  support(ruleset)        None, or the Gap (construct, file:line) that keeps it on the reference engine
  support.handed_over(ruleset)
                          the constructs whose moves the generated game hands to the reference engine
                          (`choose_together`, a simultaneous phase)
  new_game(ruleset, players, seed, chance, engine)
                          a CompiledState when the ruleset is supported and chance is seeded,
                          else an engine.State (the reference, which stays the definition)
  played_on(state, copy)  a CompiledState at a seeded engine.State's position (a drawn world that
                          a tree search plays with apply_id/undo), or None

Modules: support.py (what compiles), blocks.py + legal_code.py + phases.py (the generator),
module.py (the in-memory memo, the shared listed Actions and the runtime helpers), start.py
(start positions memoised by set-up's chance outcomes, the chance a game draws from), game.py
(CompiledState, the public API), listing.py (its legal moves as ids and Actions), queries.py
(its queries), decisions.py (a `choose` or a sub-phase's `enter` inside a move), twin.py (the
reference twin, and moves handed over to the reference engine), undoing.py (undo, undo points,
a game played again from its set-up).
"""
from __future__ import annotations

from typing import Optional

from ..engine import State, infosets
from .decisions import made_again
from .game import CompiledState, start_game
from .module import game_module
from .support import Gap, support

__all__ = ["support", "Gap", "new_game", "played_on", "ENGINES"]

ENGINES = ("reference", "compiled")


def new_game(ruleset, players: int, seed=0, chance: str = "seeded", engine: str = "compiled"):
    """Start a game on `engine`: "compiled" plays the generated module when `support` finds no
    gap and chance is seeded, and falls back to the reference engine otherwise."""
    if engine not in ENGINES:
        raise ValueError(f"engine is one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "compiled" and chance == "seeded":
        module = game_module(ruleset)
        if module is not None:
            return start_game(ruleset, module, players, seed)
    return State.new(ruleset, players, seed, chance)


def played_on(state: State, copy: bool = True) -> Optional[CompiledState]:
    """A compiled game at the position of `state` (a seeded engine.State, say a world drawn by
    `determinize`), to be played on with `apply_id`/`undo`: the same moves, ids and positions
    as a copy of `state` gives (the reference holds the game until it is back at a plain turn,
    as after a move handed over). None when the ruleset does not compile or chance is manual.
    `state` is copied, never changed; with `copy` False it is handed over instead (the game
    plays on its data: for a state the caller never plays again, MCTS's drawn worlds). A world
    drawn by replay that waits for an answer inside a move (infosets.move_start) is the move
    made again from its start by the generated code, so that its answers too are compiled
    moves. (Such a game was not set up by the generated code: its moves keep undo logs, made
    with `apply` too, since it cannot be played again from a set-up, game.py `_apply_index`.)"""
    if state.d["rng"] is None:
        return None
    module = game_module(state.rs)
    if module is None:
        return None
    started = infosets.move_start(state) if state.d["pending"] is not None else None
    if started is not None:  # at a decision inside a move whose start is known: the move made again here
        game = played_on(started[0], copy=False)  # (move_start's own copy)
        if game is not None and made_again(game, started[1], state):
            return game
    game = CompiledState(state.rs, module, {}, state.d["seed"])
    game._players = state.num_players
    game._hand_over(state.copy() if copy else state)
    return game
