"""Which move labels another player may read as written, and what they read otherwise.

A label template is public when it reads only the move's parameters, the player and public
vars (through the defines it calls too); a `choose` option's label is public when it reads only
`option`, the player and public vars (an enclosing rule's local, or a comprehension's, may hold
a hidden value: when unsure the rule hides). The answer to a `choose` does not say which
`choose` asked, so one option label that is not public makes every answer's plain. Another player's
move whose label is not public reads as its plain label (`values.default_label`, e.g.
`bid(amount=3)`): its name and arguments, which are public anyway. The mover always reads the
whole label, unless it reads a var hidden from the mover (`hand[1 - player]`, a `hidden`
var, through defines and effect locals: label_reads.py): such a template is dropped when the
ruleset is compiled (`hide_labels_reading_others`), so every player, the mover too, on both
engines, reads the move by its plain label, and `rulebook validate` warns
(`warning[label-reads-hidden]`), unless its `choose` says `reveals:` (its decider reads it on
purpose; others still read the plain label). The rest is worked out once per ruleset
(`Ruleset.label_publicity`), then a dict look-up.

Owns: `label_is_public`, `label_seen_by` (a move as another player reads it), `define_vars`,
`hide_labels_reading_others`, `chooser_names`.
"""
from __future__ import annotations

import dataclasses
import re

from .effects import Choose, ChooseTogether
from .label_reads import LabelReads, hidden_from
from ..nodes import pos_of
from .prompts import hide_prompt_reading_others, parts_reading_others
from .values import default_label, freeze

__all__ = ["label_is_public", "label_seen_by", "define_vars", "CHOOSE_LABELS", "hide_labels_reading_others",
           "chooser_names"]

CHOOSE_LABELS = "choose"  # the key of the `choose` options' labels (answers are moves named 'choose')


def define_vars(ruleset) -> dict:
    """{define: vars it may read}, following the defines it calls. Read from the expressions'
    words, so it may list a var that only appears in a text: it errs on the side of 'hidden'."""
    defines = (ruleset.tree or {}).get("define") or {}
    words = {}
    for name, body in defines.items():
        source = body.get("expr", "") if isinstance(body, dict) else body
        words[str(name)] = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", str(source)))
    out = {}
    for name in words:
        seen, stack, found = set(), [name], set()
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            for word in words.get(current, ()):
                if word in ruleset.vars:
                    found.add(word)
                elif word in words:
                    stack.append(word)
        out[name] = frozenset(found)
    return out


def _reads_public(ruleset, parts, defines: dict, locals_allowed) -> bool:
    """Whether a template reads only public vars (through defines) and, of the other names,
    only the vars, defines and `locals_allowed` (None: any name that is not a var)."""
    for part in parts or ():
        if isinstance(part, str):
            continue
        if part is None:  # a part that did not compile: unknown, so not public
            return False
        for name in getattr(part, "names", None) or ():
            read = {name} | defines.get(name, frozenset())
            if any(ruleset.vars[var].visibility != "public" for var in read if var in ruleset.vars):
                return False
            if locals_allowed is not None and name not in ruleset.vars and name not in defines \
                    and name not in locals_allowed:
                return False
    return True


def _publicity(ruleset) -> dict:
    """{action id: its label is public, CHOOSE_LABELS: every `choose` option label is}."""
    known = getattr(ruleset, "label_publicity", None)
    if known is not None:
        return known
    defines = define_vars(ruleset)
    known = {action_id: _reads_public(ruleset, action.label_parts, defines, None)
             for action_id, action in ruleset.actions.items()}
    known[CHOOSE_LABELS] = all(_reads_public(ruleset, effect.label, defines, {"option", "player"})
                               for block in ruleset.blocks for effect in block
                               if isinstance(effect, (Choose, ChooseTogether)) and effect.label)
    ruleset.label_publicity = known
    return known


def label_is_public(ruleset, kind) -> bool:
    """True when the label of a move of action `kind` (or a `choose` answer) may be read by
    every player as written."""
    return _publicity(ruleset).get(kind, False)


def label_seen_by(ruleset, action: dict, player) -> dict:
    """The move `action` ({"action", "args", "player", "label"}) as `player` reads it: the mover
    and a public label: as it is; another's move with a label that is not public: with its
    plain label instead."""
    if action.get("player") == player or label_is_public(ruleset, action.get("action")):
        return action
    args = action.get("args") or {}
    pairs = tuple((key, freeze(value)) for key, value in args.items()) if isinstance(args, dict) else ()
    return dict(action, label=default_label(action.get("action"), pairs))


def hide_labels_reading_others(ruleset):
    """Drop every label template that may read a var hidden from the move's mover (the actor of
    an action; the chooser of a `choose`: `player`, or the bare name its `player:` names; `p` in
    a `choose` by several `players`), so the move reads as its plain label for everyone. Each
    dropped template is recorded in `ruleset.labels_reading_hidden` as (position, var, what) for
    `rulebook validate`. A `choose` prompt's parts that may read what its decider may not see
    are hidden too (engine/prompts.py). A `choose` with `reveals:` keeps its prompt and labels
    (its decider reads them whole, on purpose); one whose prompt and labels read nothing hidden
    is recorded in `ruleset.reveals_reading_nothing` as (position, what). Once, when the ruleset
    is compiled; returns the ruleset, with `ruleset.chooses_read` (the reads and every `choose` as
    kept, with the reads of its locals) for the view's `about:` (view/about_reads.py)."""
    reads = LabelReads(ruleset)
    chooses = reads.chooses(ruleset)
    found = ruleset.labels_reading_hidden
    for action in ruleset.actions.values():
        params = [name for name, _ in action.params]
        hidden = _first_hidden(action.label_parts, {"player"}, lambda part: reads.of_action_label(part, params))
        if hidden is not None:
            found.append((*hidden, f"the label of action '{action.id}'"))
            action.label_parts, action.label_static = None, False
    revealing = set()
    for index, position, effect, local_reads in chooses:
        if not effect.label and "{" not in effect.prompt:  # no template to read
            continue
        deciders = chooser_names(effect)
        hidden = _first_hidden(effect.label, deciders, lambda part: reads.expression(part.source, {}, local_reads))
        if isinstance(effect, Choose) and effect.reveals is not None:  # shown to the decider on purpose: as written
            if hidden is not None or parts_reading_others(effect.prompt, local_reads, reads, deciders):
                revealing.add(id(effect))
            continue
        shown = hide_prompt_reading_others(ruleset, effect, local_reads, reads, deciders)
        if hidden is not None:
            found.append((*hidden, f"the option label of choose '{effect.bind}'"))
            shown = dataclasses.replace(shown, label=None)
        if shown is not effect:
            block = list(ruleset.blocks[index])
            block[position] = shown
            ruleset.blocks[index] = tuple(block)
    ruleset.reveals_reading_nothing.extend(
        (pos_of(effect.reveals, effect.pos), f"choose '{effect.bind}'") for block in ruleset.blocks for effect in block
        if isinstance(effect, Choose) and effect.reveals is not None and id(effect) not in revealing)
    ruleset.chooses_read = (reads, [(ruleset.blocks[index][position], local_reads)
                                    for index, position, _, local_reads in chooses])
    return ruleset


def chooser_names(effect) -> set:
    """The names that hold the chooser's seat where a `choose`'s prompt and option labels are
    read (`p` in a `choose` by several `players`: each of them reads them with `p` their seat)."""
    if isinstance(effect, ChooseTogether):
        return {"p"}
    source = str(effect.player.source).strip() if effect.player is not None else "player"
    return {source} if source.isidentifier() else set()


def _first_hidden(parts, movers: set, reads_of):
    """(position, var) of the first part of a template that reads (`reads_of(part)`) a var
    hidden from the mover, or None."""
    for part in parts or ():
        if isinstance(part, str) or part is None:
            continue
        hidden = hidden_from(reads_of(part), movers)
        if hidden:
            return part.pos, hidden[0]
    return None
