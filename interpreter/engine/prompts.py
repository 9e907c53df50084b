"""Which `choose` prompts may show their decider another player's secret, and what they show
instead.

A `choose` prompt may be a template (`"player {who} offers you {c.name}"`): the views fill its
`{...}` parts in for the one deciding with the waiting rule's locals (view/steps.py `decision`),
which may hold what the decider may not see. The rule is the labels' (engine/labels.py, with
label_reads.py's reading): a part that may read a var hidden from the decider (the seat its
`player:` names, `player` by default; `p` for a `choose` by several `players`, each of whom
reads it with `p` their own seat, view/steps.py) is replaced, when the ruleset is compiled, by
`?`: the prompt keeps its text and its other parts, so it stays readable, and `?` is what the
views show for a value they cannot compute. Both engines keep and hand out that prompt (the pending
decision, information_state, saves), so every view shows the same, whatever the secret. A part
that does not parse is left as written: the views never fill in a prompt that does not compile.
`rulebook validate` warns (`warning[prompt-reads-hidden]`).

A `choose` with `reveals: "<why>"` shows its decider what its prompt reads on purpose: it is
left as written (engine/labels.py `hide_labels_reading_others` skips it). Only a `choose` by one
player takes it (compile_effects.py refuses it on a `choose` by several).

The same reading serves a view's `decisions:` `about:` templates (view/about_reads.py):
`parts_reading_others` finds the parts, `hide_parts` puts `?` in their place.

Owns: `hide_prompt_reading_others`, `parts_reading_others`, `hide_parts`, `part_pos`, `HIDDEN_PART`,
`template_parts`.
"""
from __future__ import annotations

import dataclasses

from ..errors import ExpressionError
from ..nodes import Text, expr_pos
from .label_reads import hidden_from

__all__ = ["hide_prompt_reading_others", "parts_reading_others", "hide_parts", "part_pos", "HIDDEN_PART",
           "template_parts"]

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
    hidden = parts_reading_others(effect.prompt, local_reads, reads, deciders)
    if not hidden:
        return effect
    for offset, var in hidden.items():
        ruleset.prompts_reading_hidden.append((part_pos(effect.written, offset, effect.pos), var,
                                               f"the prompt of choose '{effect.bind}'"))
    written = [part if isinstance(part, str) else "{" + part[0] + "}" for part in template_parts(effect.prompt)]
    return dataclasses.replace(effect, prompt="".join(hide_parts(effect.prompt, written, hidden)))


def parts_reading_others(source: str, local_reads: dict, reads, deciders: set, free=()) -> dict:
    """{offset of the `{`: the first var it may read hidden from the reader} of the parts of
    template `source` (a prompt, a view's `about:`) filled in with a rule's locals, whose reads
    are `local_reads`, for the reader whose seat the names `deciders` hold (none: a reader no
    name of the rule holds the seat of). `free`: names bound around it that read nothing."""
    if "{" not in source:
        return {}
    found = {}
    env = dict.fromkeys(free)
    env.update({name: name for name in deciders})  # the reader knows their own seat: its names read nothing
    for part in template_parts(source):
        if isinstance(part, str):
            continue
        text, offset = part
        try:
            hidden = hidden_from(reads.expression(text, env, local_reads), deciders)
        except ExpressionError:  # never filled in (the views show such a template as written)
            hidden = []
        if hidden:
            found[offset] = hidden[0]
    return found


def hide_parts(source: str, parts: list, hidden: dict) -> list:
    """`parts`, one for each part of `template_parts(source)` (its text, or what stands for a
    `{...}` part: its text, a compiled handle), with each `{...}` part whose offset is in
    `hidden` replaced by HIDDEN_PART."""
    return [HIDDEN_PART if not isinstance(split, str) and split[1] in hidden else part
            for split, part in zip(template_parts(source), parts)]


def part_pos(written, offset: int, fallback):
    """The position in the rule file of the expression of the part of template `written` (a
    loaded Text) whose `{` is at `offset`; `fallback` when the text has no position."""
    if not isinstance(written, Text):
        return fallback
    line = written.count("\n", 0, offset + 1) + 1
    column = offset + 1 - written.rfind("\n", 0, offset + 1)
    return expr_pos(written, line, column)
