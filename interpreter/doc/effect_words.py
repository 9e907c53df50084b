"""Effect kinds in plain words for the generated rulebook: `if`, `for`, `let`, `move`,
`shuffle`, `random`, `choose`, `enter`, `do`, `log`, `fail`, `end_phase` (`EFFECTS`: effect key ->
its renderer, called with the `Words` of the ruleset and the effect mapping).

Owns these renderers only; expressions and statements in words are words.py.
"""
from __future__ import annotations

from .words import Item, Words, code, humanize

__all__ = ["EFFECTS"]

def _effect_if(words: Words, effect) -> list:
    items = [Item(f"if {words.expr(effect.get('if'))}:", words.effects(effect.get("then") or []))]
    if effect.get("else"):
        items.append(Item("otherwise:", words.effects(effect["else"])))
    return items


def _effect_for(words: Words, effect) -> list:
    spec = str(effect.get("for"))
    name, _, collection = spec.partition(" in ")
    return [Item(f"for each {humanize(name.strip())} in {words.expr(collection)}:", words.effects(effect.get("do") or []))]


def _effect_let(words: Words, effect) -> list:
    binds = effect.get("let") or {}
    return [Item(f"let {humanize(name)} be {words.expr(value)}") for name, value in binds.items()]


def _effect_move(words: Words, effect) -> list:
    move = effect.get("move") or {}
    source = words.expr(move.get("from"))
    if move.get("from_end") == "bottom":
        source = f"the bottom of {source}"
    if "item" in move:
        what = f"{words.expr(move['item'])} from {source}"
    elif "count" in move:
        what = f"{words.expr(move['count'])} from {'' if move.get('from_end') == 'bottom' else 'the top of '}{source}"
    else:
        what = f"the {'bottom' if move.get('from_end') == 'bottom' else 'top'} item of {words.expr(move.get('from'))}"
    destination = words.expr(move.get("to"))
    text = f"move {what} to {'the bottom of ' if move.get('to_end') == 'bottom' else ''}{destination}"
    if move.get("as"):
        text += f", call the item moved {humanize(move['as'])}"
    if move.get("as_list"):
        text += f", call the list of what moved {humanize(move['as_list'])}"
    return [Item(text)]


def _effect_choose(words: Words, effect) -> list:
    choice = effect.get("choose") or {}
    who = words.expr(choice.get("player", "player"))
    verb = "choose" if who == "you" else "chooses"
    how_many = f"{words.expr(choice['count'])} of" if choice.get("count") is not None else "one of"
    text = f"{who} {verb} {how_many} {words.expr(choice.get('from'))}, call it {humanize(choice.get('as'))}"
    if choice.get("prompt"):
        text += f" (asked: “{choice['prompt']}”)"
    return [Item(text)]


def _effect_do(words: Words, effect) -> list:
    name = effect.get("do")
    given = effect.get("with") or {}
    text = f"do {code(name)}"
    if given:
        text += " with " + ", ".join(f"{key} = {words.expr(value)}" for key, value in given.items())
    return [Item(text)]


EFFECTS: dict = {
    "if": _effect_if,
    "for": _effect_for,
    "let": _effect_let,
    "move": _effect_move,
    "shuffle": lambda words, e: [Item(f"shuffle {words.expr(e['shuffle'])}")],
    "random": lambda words, e: [Item(f"pick one of {words.expr((e['random'] or {}).get('from'))} at random, "
                                     f"call it {humanize((e['random'] or {}).get('as'))}")],
    "choose": _effect_choose,
    "enter": lambda words, e: [Item(f"play the phase {code(e['enter'])}, then continue here")],
    "do": _effect_do,
    "log": lambda words, e: [Item(f"write to the log: “{e['log']}”")],
    "fail": lambda words, e: [Item(f"refuse the action: “{e['fail']}”")],
    "end_phase": lambda words, e: [Item("end this phase")],
}
