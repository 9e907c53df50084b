"""Which rulesets the generator can compile: the first construct it does not support, with the
place in the rule files where it is written.

Owns: `support(ruleset)` and the `Gap` it reports. A ruleset with a gap is played by the
reference engine (engine/); the gap is a report, not an error.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..engine import effects as fx

__all__ = ["Gap", "support", "SUPPORTED_EFFECTS"]

# the effects the generator writes as straight-line code (a `choose` with several options makes
# the function a generator that yields the decision: decisions.py)
SUPPORTED_EFFECTS = (fx.Stmt, fx.If, fx.Let, fx.For, fx.Call, fx.Move, fx.Shuffle, fx.Random, fx.Log, fx.Fail,
                     fx.Choose)
_PHASE_KINDS = ("turns", "auto", "end")


@dataclass(frozen=True)
class Gap:
    """A construct the generated game does not support, and where it is written."""

    construct: str
    where: str  # file:line:col, or the name of the rule when its position is not known

    def __str__(self) -> str:
        return f"{self.where}: {self.construct} (played by the reference engine)"


def support(ruleset) -> Optional[Gap]:
    """None when the whole ruleset can be compiled, else the first construct that stops it."""
    for phase in ruleset.phases.values():
        gap = _phase_gap(ruleset, phase)
        if gap is not None:
            return gap
    for action_id, action in ruleset.actions.items():
        where = f"action '{action_id}'"
        if action.secret:
            return Gap("a secret action (its log lines and history are private)", where)
        gap = _block_gap(ruleset, action.block, where, ())
        if gap is not None:
            return gap
    return None


def _phase_gap(ruleset, phase) -> Optional[Gap]:
    where = str(phase.pos) if phase.pos is not None else f"phase '{phase.id}'"
    if phase.kind not in _PHASE_KINDS:
        return Gap(f"a phase of kind '{phase.kind}'", where)
    if getattr(phase, "simultaneous", False):
        return Gap("a simultaneous phase", where)
    if getattr(phase, "reveal_block", None) is not None:
        return Gap("on_reveal", where)
    for target, _condition in phase.next:
        if target == "return":
            return Gap("next: return (a sub-phase)", where)
    for block in (phase.enter_block, phase.exit_block, phase.turn_block, phase.round_block):
        gap = _block_gap(ruleset, block, where, ())
        if gap is not None:
            return gap
    return None


def _block_gap(ruleset, block, where, calling) -> Optional[Gap]:
    """The first effect of `block` (and of the blocks and procedures it runs) not supported."""
    if block is None:
        return None
    for effect in ruleset.blocks[block] or ():
        location = str(effect.pos) if getattr(effect, "pos", None) is not None else where
        if not isinstance(effect, SUPPORTED_EFFECTS):
            return Gap(f"the effect '{type(effect).__name__.lower()}' (it waits for a player or changes the phase)", location)
        if isinstance(effect, fx.Log) and effect.readers is not None:
            return Gap("a log line for some players only (log: {to: ...})", location)
        nested = []
        if isinstance(effect, fx.If):
            nested = [effect.then_block, effect.else_block]
        elif isinstance(effect, fx.For):
            nested = [effect.body]
        elif isinstance(effect, fx.Call):
            if effect.procedure in calling:  # recursion: written as a function, checked once
                continue
            gap = _block_gap(ruleset, ruleset.proc_blocks[effect.procedure], location, calling + (effect.procedure,))
            if gap is not None:
                return gap
        for inner in nested:
            gap = _block_gap(ruleset, inner, where, calling)
            if gap is not None:
                return gap
    return None
