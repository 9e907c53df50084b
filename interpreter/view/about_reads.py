"""Which parts of a view's `decisions:` `about:` templates may show a reader what they cannot
see, and the template each reader is shown instead.

An `about:` is filled in with the waiting rule's locals as they are (view/steps.py `decision`),
which may hold another player's secret (a card offered, a hand looked at). It is read, once when
the view is built, with the static reading of prompts (engine/prompts.py, engine/label_reads.py),
against every `choose` it is shown for (those whose prompt, as the engine keeps it, is its
entry's), from each reader it can be shown to: the decider (the names the `choose`'s `player:`
gives hold their seat; `p` in a `choose` by several `players`) and, with `public: true`, every
other player (no name of the rule holds their seat). A part that may read what that reader
cannot see reads `?` for them (engine/prompts.py `hide_parts`, as a prompt's hidden part), so
what they are shown is the same whatever the secret; `rulebook validate` warns
(`warning[about-reads-hidden]`, from `ruleset.abouts_reading_hidden`). `option` and `options`
read nothing: the decider's own options, none for the others.

A `choose` with `reveals:` shows its decider what its `about:` reads, on purpose (as its prompt
and labels): the decider's template is kept whole; the other players (`public: true`) still read
`?` where they may not see, and such an about is a reason for the `reveals:` (no
`warning[reveals-nothing]`).

Owns: `read_abouts`.
"""
from __future__ import annotations

from ..engine.effects import Choose
from ..engine.labels import chooser_names
from ..engine.prompts import hide_parts, part_pos, parts_reading_others
from ..nodes import pos_of

__all__ = ["read_abouts"]

SHOWN_NAMES = ("option", "options")  # bound by the view: what the decider may choose, nothing for the others


def read_abouts(ruleset, decisions: dict) -> dict:
    """`decisions` ({rule prompt: DecisionShow}) read for every reader (module docstring): each
    show's `about` (the decider's) and `about_public` (the others') with `?` in place of a part
    they may not see. Returns them keyed by the prompts the engine waits with too (a prompt with
    a part hidden from its decider waits as `... ? ...`)."""
    ruleset.abouts_reading_hidden = []
    if not decisions:
        return decisions
    reads, asked = ruleset.chooses_read  # worked out when the ruleset was compiled (engine/labels.py)
    keyed = dict(decisions)
    for effect, _ in asked:
        show = decisions.get(str(effect.written)) if effect.written is not None else None
        if show is not None and effect.prompt not in keyed:
            keyed[effect.prompt] = show
    for show in decisions.values():
        _read(ruleset, show, [(effect, local_reads) for effect, local_reads in asked
                              if keyed.get(effect.prompt) is show], reads)
    return keyed


def _read(ruleset, show, asked: list, reads) -> None:
    """Hide the parts of `show`'s about that its readers may not see, for the `choose`s `asked`
    ((effect, reads of its locals)) it is shown for."""
    source = str(show.written)
    to_decider, to_others = {}, {}
    for effect, local_reads in asked:
        hidden = parts_reading_others(source, local_reads, reads, chooser_names(effect), SHOWN_NAMES)
        if isinstance(effect, Choose) and effect.reveals is not None:  # the decider reads it on purpose
            if hidden:
                stale = pos_of(effect.reveals, effect.pos)
                ruleset.reveals_reading_nothing[:] = [entry for entry in ruleset.reveals_reading_nothing
                                                      if entry[0] != stale]
        else:
            to_decider = {**hidden, **to_decider}
        if show.public:
            to_others = {**parts_reading_others(source, local_reads, reads, set(), SHOWN_NAMES), **to_others}
    written = show.about
    show.about = hide_parts(source, written, to_decider)
    show.about_public = hide_parts(source, written, to_others) if show.public else None
    for offset in sorted(set(to_decider) | set(to_others)):
        who = "its decider" if offset in to_decider else "the other players (`public: true`)"
        var = to_decider.get(offset, to_others.get(offset))
        ruleset.abouts_reading_hidden.append((part_pos(show.written, offset, pos_of(show.written)), var,
                                              f"the about of decision '{show.prompt}'", who))
