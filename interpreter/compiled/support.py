"""Which rulesets the generator can compile, and which of their constructs the generated game
hands to the reference engine while they run, each with the place in the rule files where it
is written.

Owns: `support(ruleset)` and the `Gap` it reports; `handed_over(ruleset)`, the constructs the
generated code gives to the reference (`choose_together`, a simultaneous phase);
`phase_enders(ruleset)`, the blocks that may run `end_phase`; `SubPhase`, what generated code
yields at `enter`. A ruleset with a gap is played by the reference engine (engine/); the gap is
a report, not an error.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..engine import effects as fx

__all__ = ["Gap", "support", "handed_over", "phase_enders", "SubPhase", "SUPPORTED_EFFECTS", "HANDED_OVER"]

# the effects the generator writes: as straight-line code (a `choose` with several options, or an
# `enter`, makes the function a generator that yields the decision or the SubPhase: decisions.py),
# or (HANDED_OVER) as the hand-over of the move to the reference engine (game.py), which plays on
# until the next plain turn
SUPPORTED_EFFECTS = (fx.Stmt, fx.If, fx.Let, fx.For, fx.Call, fx.Move, fx.Shuffle, fx.Random, fx.Log, fx.Fail,
                     fx.Choose, fx.EndPhase, fx.Enter, fx.ChooseTogether)
# why each is handed over: several players' answers wait together in the reference's frames
HANDED_OVER = {fx.ChooseTogether: "choose_together (several players answer at once)"}


@dataclass(frozen=True)
class SubPhase:
    """What generated effects yield at `enter`: the number of the phase entered (phases.py's
    numbering). The game plays the sub-phase and sends the effects on when it returns."""

    number: int
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
        if phase.kind not in _PHASE_KINDS:
            return Gap(f"a phase of kind '{phase.kind}'", _phase_where(phase))
    for block, where in _every_block(ruleset):
        for effect, location in _effects(ruleset, block, where):
            if not isinstance(effect, SUPPORTED_EFFECTS):
                return Gap(f"the effect '{type(effect).__name__.lower()}'", location)
            if isinstance(effect, fx.Stmt) and not hasattr(effect.handle, "target"):
                # not a rule's expression (the counter analyze's coverage puts in its copy of the rules)
                return Gap("a statement that is no rule expression", location)
    return None


def handed_over(ruleset) -> list:
    """[Gap] of the constructs the generated game hands to the reference engine while they run
    (each once, at the first place it is written)."""
    found: dict = {}
    for phase in ruleset.phases.values():
        if phase.simultaneous:
            found.setdefault("a simultaneous phase", _phase_where(phase))
    for block, where in _every_block(ruleset):
        for effect, location in _effects(ruleset, block, where):
            construct = HANDED_OVER.get(type(effect))
            if construct is not None:
                found.setdefault(construct, location)
    return [Gap(construct, where) for construct, where in found.items()]


def phase_enders(ruleset) -> set:
    """The blocks that may run `end_phase` (themselves, or a branch, body or procedure in them)."""
    enders: set = set()
    changed = True
    while changed:  # a block ends the phase once something it runs is known to
        changed = False
        for index, effects in enumerate(ruleset.blocks):
            if index not in enders and any(_may_end(ruleset, effect, enders) for effect in effects or ()):
                enders.add(index)
                changed = True
    return enders


def _may_end(ruleset, effect, enders: set) -> bool:
    if isinstance(effect, fx.EndPhase):
        return True
    if isinstance(effect, fx.If):
        return effect.then_block in enders or effect.else_block in enders
    if isinstance(effect, fx.For):
        return effect.body in enders
    return isinstance(effect, fx.Call) and ruleset.proc_blocks[effect.procedure] in enders


def _phase_where(phase) -> str:
    return str(phase.pos) if phase.pos is not None else f"phase '{phase.id}'"


def _every_block(ruleset):
    """(block, where) of every phase's and action's own effect lists."""
    for phase in ruleset.phases.values():
        for block in (phase.enter_block, phase.exit_block, phase.turn_block, phase.round_block, phase.reveal_block):
            if block is not None:
                yield block, _phase_where(phase)
    for action_id, action in ruleset.actions.items():
        yield action.block, f"action '{action_id}'"


def _effects(ruleset, block, where, calling=()):
    """(effect, where) of every effect `block` runs: its branches, bodies and procedures too."""
    for effect in ruleset.blocks[block] or ():
        location = str(effect.pos) if getattr(effect, "pos", None) is not None else where
        yield effect, location
        nested = []
        if isinstance(effect, fx.If):
            nested = [effect.then_block, effect.else_block]
        elif isinstance(effect, fx.For):
            nested = [effect.body]
        elif isinstance(effect, fx.Call) and effect.procedure not in calling:  # a recursion is read once
            yield from _effects(ruleset, ruleset.proc_blocks[effect.procedure], location, calling + (effect.procedure,))
        for inner in nested:
            if inner is not None:
                yield from _effects(ruleset, inner, where, calling)
