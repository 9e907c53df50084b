"""The commands a person can type at any prompt of `rulebook play`: help, show NAME, score,
log, board, undo (and q to save and quit, handled by the asking itself).

Each command reads only what the player may see: `show` prints a component's printed fields
(the rules, not where the card is), `score` prints the current score rows only when they
cannot read a hidden value, `log` repeats lines this terminal has already shown.
"""
from __future__ import annotations

from rich import box
from rich.table import Table

from .ask import UNDO
from .render import say

__all__ = ["run_command", "HELP"]

HELP = """commands (type them at any prompt):
  a number    pick that line of the menu (an amount is typed as itself: 3 means three)
  a label     the full label of an action, e.g. 'pass'
  back        go back to the previous step of the move
  board       show the table again
  show NAME   a component (card, tile, …) with its fields, by name or id
  score       the current score rows (games without hidden information)
  log [N]     the last N lines of what happened (default 20)
  undo        take back the last move (hot-seat games without hidden information)
  help        this list
  q           save the replay and quit"""


def run_command(session, word: str, player):
    """False when `word` is not a command; True once carried out; UNDO to take a move back."""
    name, _, rest = word.partition(" ")
    name, rest = name.lower(), rest.strip()
    console = session.console
    if name in ("help", "?", "h"):
        for line in HELP.splitlines():
            say(console, line)
    elif name == "show" and rest:
        show_component(session, rest, player)
    elif name == "score":
        show_scores(session, player)
    elif name == "log":
        count = int(rest) if rest.isdigit() else 20
        for line in session.transcript[-count:]:
            say(console, line)
    elif name == "board":
        session.draw(player)
    elif name == "undo":
        reason = session.undo_refusal()
        if reason is None:
            return UNDO
        say(console, f"  undo refused: {reason}")
    else:
        return False
    return True


def find_component(ruleset, text: str):
    """A component by id, by name (any case), or by the start of a unique name: (id, fields) or
    (None, a reason)."""
    wanted = text.casefold()
    entities = ruleset.entities
    if text in entities:
        return text, entities[text]
    exact = [key for key, item in entities.items() if str(item.get("name", "")).casefold() == wanted]
    if len(exact) == 1:
        return exact[0], entities[exact[0]]
    starts = [key for key, item in entities.items()
              if str(item.get("name", key)).casefold().startswith(wanted) or key.casefold().startswith(wanted)]
    if len(starts) == 1:
        return starts[0], entities[starts[0]]
    if starts:
        names = ", ".join(str(entities[key].get("name", key)) for key in starts[:8])
        return None, f"'{text}' could be {names}{' …' if len(starts) > 8 else ''}"
    return None, f"no component is called '{text}'"


def show_component(session, text: str, player) -> None:
    """A component with the fields that matter (the view's `components:` entry), else all of
    its printed fields."""
    from .view import format_value

    key, found = find_component(session.rs, text)
    if key is None:
        say(session.console, f"  {found}")
        return
    say(session.console, f"{found.get('name', key)} — {found.get('type', 'component')} {key}", "bold")
    grid = Table(box=box.SIMPLE_HEAD, show_header=False, pad_edge=False)
    grid.add_column("field", style="bold")
    grid.add_column("value", overflow="fold")
    shown = _view_fields(session.state, player, key)
    if shown is None:
        shown = [(field, format_value(session.rs, value)) for field, value in found.items()
                 if field not in ("id", "name", "type", "source", "reconstructed", "interpretation")
                 and not field.startswith("_")]
    for field, value in shown:
        grid.add_row(str(field), str(value))
    session.console.print(grid)


def _view_fields(state, player, key):
    """[(title, text)] of the view model's `component_view`, or None without one."""
    try:
        from ..view import component_view
    except ImportError:
        return None
    shown = component_view(state, player, key)
    if not shown or not shown.get("fields"):
        return None
    return [(field.get("title", ""), (field.get("cell") or {}).get("text", "")) for field in shown["fields"]]


def show_scores(session, player) -> None:
    from .ending import score_table
    from .view import hides_information

    view = session.view_for(player)
    if isinstance(view.get("scores"), dict):  # the view model's own score rows, safe to show
        from .render import table_of

        session.console.print(table_of(view["scores"], session.console))
        return
    hidden = hides_information(session.rs)
    if hidden and not session.state.is_terminal:
        say(session.console, "  the scores are shown at the end in a game with hidden information "
                             f"(a score may read what you cannot see: {', '.join(hidden[:4])})")
        return
    session.console.print(score_table(session.state, view.get("names") or {}))
