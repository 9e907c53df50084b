"""Asking a person for a move: the legal actions grouped by kind and asked in steps — first the
kind (when there are several), then each parameter whose value is still open (first the CORP,
then the amount) — instead of one long numbered list.

A menu is numbered from 0, except an amount (integer options of a decision, or of a second or
later parameter): its options are typed as the amount itself, so "3" means three, never the
fourth line. At every step a person may also type an action's full label, an option's text,
`back`, `q` (save and quit) or one of the table's commands (see `commands.py`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.columns import Columns
from rich.text import Text

from .render import say
from .view import format_value

__all__ = ["Menu", "next_menu", "ask_action", "UNDO", "QUIT"]

UNDO = "undo"  # what `ask_action` returns when the person asked to take a move back
QUIT = "quit"  # ... and when they quit (or the input ended)
COLUMNS_FROM = 13  # a menu with more options than this is drawn in columns


@dataclass
class Menu:
    question: str
    options: list = field(default_factory=list)  # [(key, text, [actions])]
    by_value: bool = False  # keys are the options' own integer values (an amount)

    def pick(self, word: str):
        """The actions an answer selects, or None."""
        for key, text, actions in self.options:
            if word == str(key) or word.casefold() == text.casefold():
                return actions
        return None

    def hint(self) -> str:
        keys = [key for key, _, _ in self.options]
        return f"  type a number from {min(keys)} to {max(keys)}" + (" (the amount itself)" if self.by_value else "") \
            + " (or q to save and quit, back, help for the commands)"


def _template_text(ruleset, name: str) -> str:
    rule = ruleset.actions.get(name)
    template = getattr(rule, "label", None) or name
    return re.sub(r"\{[^{}]*\}", "…", str(template))


def next_menu(ruleset, remaining: list, prompt=None, asking=None) -> Menu:
    """The next question to ask about `remaining` (two or more actions, or the only one).
    `asking`: {kind: {"order": [param], "questions": {param: text}, "title": text}} from the view."""
    asking = asking or {}
    kinds: dict = {}
    for action in remaining:
        kinds.setdefault(action.name, []).append(action)
    if len(kinds) > 1:
        options = []
        for index, (name, actions) in enumerate(kinds.items()):
            title = (asking.get(name) or {}).get("title") or name
            if title == name:
                title = f"{name}: {_template_text(ruleset, name)}"
            options.append((index, actions[0].label if len(actions) == 1 else f"{title}  ({len(actions)} choices)", actions))
        return Menu(prompt or "what do you do?", options)
    return _parameter_menu(ruleset, remaining, prompt, asking.get(remaining[0].name) or {})


def _parameter_menu(ruleset, remaining: list, prompt, asking: dict) -> Menu:
    first = remaining[0]
    order = [name for name in asking.get("order") or [] if name in dict(first.args)]
    order += [name for name, _ in first.args if name not in order]
    param = _open_parameter(remaining, order)
    if param is None:  # the same move listed twice, or a single action: ask by label
        return Menu(prompt or "what do you do?", [(index, action.label, [action]) for index, action in enumerate(remaining)])
    groups: dict = {}
    for action in remaining:
        groups.setdefault(dict(action.args).get(param), []).append(action)
    values = list(groups)
    amount = all(type(value) is int for value in values) and (first.name == "choose" or order.index(param) > 0)
    options = []
    for index, (value, actions) in enumerate(groups.items()):
        if len(actions) > 1:
            text = f"{_step_text(ruleset, asking, actions[0], param, value)}  ({len(actions)} choices)"
        elif param in (asking.get("shown") or ()):  # the view says how this value reads
            text = _step_text(ruleset, asking, actions[0], param, value)
        else:
            text = actions[0].label
        options.append((value if amount else index, text, actions))
    question = prompt if first.name == "choose" and prompt else \
        (asking.get("questions") or {}).get(param) or f"{first.name}: which {param}?"
    if question.endswith(f"{param}?") and first.name not in question:
        question = f"{asking.get('title') or first.name}: {question}"
    return Menu(question, options, by_value=amount)


def _step_text(ruleset, asking: dict, action, param, value) -> str:
    """A parameter's value as the view shows it in this step (its `path`), else by name."""
    order = asking.get("order") or []
    path = (asking.get("paths") or {}).get(action.label)
    if path and param in order and order.index(param) < len(path):
        return str(path[order.index(param)])
    return format_value(ruleset, value)


def _open_parameter(remaining: list, order: list):
    """The first parameter (in the asking order) whose value differs among the actions, or None."""
    values = [dict(action.args) for action in remaining]
    for name in order:
        if any(args.get(name) != values[0].get(name) for args in values):
            return name
    return None


def menu_height(console, menu: Menu) -> int:
    """The lines `draw_menu` takes for this menu (its question and options)."""
    lines = [Text(f"  {key!s:>3}. {text}") for key, text, _ in menu.options]
    if len(lines) < COLUMNS_FROM:
        return 1 + len(lines)
    return 1 + len(console.render_lines(Columns(lines, padding=(0, 2)), console.options, pad=False))


def draw_menu(console, menu: Menu) -> None:
    say(console, menu.question, "bold")
    lines = [Text(f"  {key!s:>3}. {text}") for key, text, _ in menu.options]
    if len(lines) >= COLUMNS_FROM:
        console.print(Columns(lines, padding=(0, 2)))
    else:
        for line in lines:
            console.print(line)


def ask_action(session, legal: list, player, prompt=None, asking=None):
    """The action a person picks, UNDO, or QUIT. `session` gives `console`, `read_line(player)`
    and `command(word, player)` (False: not a command; True: carried out; UNDO: take a move back)."""
    remaining, earlier = legal, []
    while True:
        menu = next_menu(session.rs, remaining, prompt, asking)
        draw_menu(session.console, menu)
        while True:
            line = session.read_line(player)
            if line is None:
                return QUIT
            word = line.strip()
            if word in ("q", "quit"):
                return QUIT
            if word in ("back", "b") and earlier:
                remaining = earlier.pop()
                break
            by_label = [action for action in legal if action.label == word]
            if by_label:
                return by_label[0]
            picked = menu.pick(word) if word else None
            if picked is not None:
                if len(picked) == 1:
                    return picked[0]
                earlier.append(remaining)
                remaining = picked
                break
            done = session.command(word, player) if word else False
            if done == UNDO:
                return UNDO
            if done:
                continue
            say(session.console, menu.hint())
