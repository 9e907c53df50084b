"""Which `choose` prompts may show their decider another player's secret, and what they show
instead.

A `choose` prompt may be a template (`"player {who} offers you {c.name}"`): the views fill its
`{...}` parts in for the one deciding with the waiting rule's locals (view/steps.py `decision`),
which may hold what the decider may not see. The rule is the labels' (engine/labels.py, with
label_reads.py's reading): a part that may read a var hidden from the decider (the seat its
`player:` names, `player` by default; any seat for a `choose` by several `players`, whose prompt
is read with no seat of theirs bound) is replaced, when the ruleset is compiled, by `?`: the
prompt keeps its text and its other parts, so it stays readable, and `?` is what the views show
for a value they cannot compute. Both engines keep and hand out that prompt (the pending
decision, information_state, saves), so every view shows the same, whatever the secret. A part
that does not parse is left as written: the views never fill in a prompt that does not compile.
`rulebook validate` warns (`warning[prompt-reads-hidden]`).

A `choose` with `reveals: "<why>"` shows its decider what its prompt reads on purpose: it is
left as written (engine/labels.py `hide_labels_reading_others` skips it).

Owns: `hide_prompt_reading_others`, `prompt_parts_reading_others`, `HIDDEN_PART`, `template_parts`.
"""
from __future__ import annotations

import dataclasses

from ..errors import ExpressionError
from ..nodes import Text, expr_pos
from .label_reads import hidden_from

__all__ = ["hide_prompt_reading_others", "prompt_parts_reading_others", "HIDDEN_PART", "template_parts"]

HIDDEN_PART = "?"  # what stands for a part of a prompt that may read what its decider may not see


def template_parts(source: str) -> list:
    """A template's parts: text, and (expression text, offset of the `{`) for each `{...}` part
    (the one split of templates: labels, compile_play.py; the views', view/spec.py; prompts)."""
    parts, start = [], 0
    while start < len(source):
        opening = source.find("{", start)
        closing = source.find("}", opening) if opening >= 0 else -1
        if opening < 0 or closing < 0:
            parts.append(source[start:])
            break
        parts.append(source[start:opening])
        parts.append((source[opening + 1:closing], opening))
        start = closing + 1
    return parts


def hide_prompt_reading_others(ruleset, effect, local_reads: dict, reads, deciders: set):
    """`effect` (a `choose`) with each part of its prompt that may read a var hidden from its
    decider (`deciders`: the names holding their seat) replaced by HIDDEN_PART; each such part
    is recorded in `ruleset.prompts_reading_hidden` as (position, var, what). `reads` is the
    ruleset's LabelReads, `local_reads` the reads of the locals bound before the `choose`."""
    hidden = prompt_parts_reading_others(effect, local_reads, reads, deciders)
    if not hidden:
        return effect
    shown = []
    for part in template_parts(effect.prompt):
        if isinstance(part, str):
            shown.append(part)
        elif part[1] in hidden:
            ruleset.prompts_reading_hidden.append((_part_pos(effect, part[1]), hidden[part[1]],
                                                   f"the prompt of choose '{effect.bind}'"))
            shown.append(HIDDEN_PART)
        else:
            shown.append("{" + part[0] + "}")
    return dataclasses.replace(effect, prompt="".join(shown))


def prompt_parts_reading_others(effect, local_reads: dict, reads, deciders: set) -> dict:
    """{offset of the `{`: the first var it may read hidden from the decider} of the parts of a
    `choose`'s prompt (see hide_prompt_reading_others)."""
    if "{" not in effect.prompt:
        return {}
    found = {}
    seats = {name: name for name in deciders}  # the decider knows their own seat: its names read nothing
    for part in template_parts(effect.prompt):
        if isinstance(part, str):
            continue
        source, offset = part
        try:
            hidden = hidden_from(reads.expression(source, seats, local_reads), deciders)
        except ExpressionError:  # never filled in (the views show such a prompt as written)
            hidden = []
        if hidden:
            found[offset] = hidden[0]
    return found


def _part_pos(effect, offset: int):
    """The position in the rule file of the expression of the part whose `{` is at `offset`."""
    written = effect.written
    if not isinstance(written, Text):
        return effect.pos
    line = written.count("\n", 0, offset + 1) + 1
    column = offset + 1 - written.rfind("\n", 0, offset + 1)
    return expr_pos(written, line, column)
