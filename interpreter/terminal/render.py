"""Rich output for the terminal table: a console on any text stream (a terminal, a pipe, a
StringIO in tests), the view's tables, plain lines that are never read as markup, and a diff of
two views (what a step changed).

Width: the terminal's own width on a TTY; 120 columns elsewhere, so that a transcript fits
the 120×40 terminal the play command is designed for.
"""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.style import Style
from rich.table import Table
from rich.text import Text

__all__ = ["make_console", "say", "table_of", "draw_view", "draw_changes", "view_diff", "header_line", "PIPE_WIDTH"]

PIPE_WIDTH = 120
MAX_CELL = 60  # a cell longer than this is cut (a long list of cards is still one line)


def make_console(out, width=None) -> Console:
    tty = bool(getattr(out, "isatty", lambda: False)())
    return Console(file=out, width=width or (None if tty else PIPE_WIDTH), force_terminal=tty,
                   color_system="auto" if tty else None, highlight=False, emoji=False,
                   soft_wrap=False, legacy_windows=False)


def say(console, text, style=None) -> None:
    """One plain line (square brackets in a label are text, not markup)."""
    console.print(Text(str(text), style=style or ""))


def table_of(table: dict) -> Table:
    title = str(table.get("title") or "")
    grid = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, expand=False,
                 title_style="bold", min_width=min(len(title), 60))
    columns = list(table.get("columns") or [])
    if not any(str(column) for column in columns):
        grid.show_header = False
    for column in columns:
        grid.add_column(str(column), overflow="fold")
    for row in table.get("rows") or []:
        cells = [_styled(cell) for cell in row][:len(columns) or None]
        cells += [Text("")] * (len(columns) - len(cells))
        grid.add_row(*cells)
    return grid


def cell_text(cell) -> str:
    """The text of a cell (a string, or {"text", "colour"})."""
    return str(cell.get("text", "")) if isinstance(cell, dict) else str(cell)


def _styled(cell) -> Text:
    text = Text(_cut(cell_text(cell)))
    colour = cell.get("colour") if isinstance(cell, dict) else None
    if colour:
        try:
            text.stylize(Style(color=str(colour)))
        except Exception:  # a colour Rich does not know (a CSS name): the text stays plain
            pass
    return text


def _cut(cell) -> str:
    text = cell_text(cell)
    return text if len(text) <= MAX_CELL else text[:MAX_CELL - 1] + "…"


def header_line(view: dict) -> str:
    you = view.get("you") or {}
    name = str(you.get("name") or "")
    player = view.get("player")
    who = "everyone's view" if player is None else f"you are player {player}"
    if player is not None and name and name != f"player {player}":
        who = f"you are {name.upper()} (player {player})"
    return f"── {who} · phase {view.get('phase')} · step {view.get('step')} ──"


def draw_view(console, view: dict, sections=("board", "own", "others")) -> None:
    """The view's tables, section by section, tables side by side where they fit."""
    from rich.columns import Columns

    say(console, header_line(view), "bold")
    for section in sections:
        tables = [table_of(table) for table in view.get(section) or [] if table.get("rows")]
        if tables:
            console.print(Columns(tables, padding=(0, 3)))


def draw_changes(console, before: dict, view: dict, limit: int) -> None:
    """The header, what changed since `before` (at most `limit` lines), and the own area."""
    say(console, header_line(view), "bold")
    changes = view_diff(before, view)
    if changes:
        say(console, "since your last move:")
        for line in changes[:limit]:
            say(console, f"  {line}")
        if len(changes) > limit:
            say(console, f"  … and {len(changes) - limit} more (type board to see the whole table)")
    tables = [table_of(table) for table in view.get("own") or [] if table.get("rows")]
    if tables:
        from rich.columns import Columns

        console.print(Columns(tables, padding=(0, 3)))


def _cells(view: dict) -> dict:
    """{(table title, row name, column): text} of every cell of a view. A row is named by its
    first cell when those are unique names, else by its number (a list drawn one item a row)."""
    cells = {}
    for section in ("board", "own", "others"):
        for table in view.get(section) or []:
            columns = list(table.get("columns") or [])
            rows = [row for row in table.get("rows") or [] if row]
            names = [cell_text(row[0]) for row in rows]
            named = len(columns) > 1 and len(set(names)) == len(names)
            for number, row in enumerate(rows, 1):
                row_name, values = (names[number - 1], row[1:]) if named else (f"#{number}", row)
                for index, cell in enumerate(values, 1 if named else 0):
                    column = columns[index] if index < len(columns) else str(index)
                    cells[(str(table.get("title")), row_name, str(column))] = cell_text(cell)
    return cells


def _blank(text):
    """A missing cell and an empty one read the same."""
    return "" if text in (None, "", "—", "·") else text


def view_diff(before: dict, after: dict) -> list:
    """Lines saying what changed from one view to the next: 'title · row · column: old → new'."""
    old, new = _cells(before), _cells(after)
    lines = []
    for key in list(old) + [key for key in new if key not in old]:
        if _blank(old.get(key)) == _blank(new.get(key)):
            continue
        title, row, column = key
        where = " · ".join(part for part in (title, row, column) if part)
        lines.append(f"{where}: {_cut(old.get(key, '—'))} → {_cut(new.get(key, '—'))}")
    if before.get("phase") != after.get("phase"):
        lines.insert(0, f"phase: {before.get('phase')} → {after.get('phase')}")
    return lines
