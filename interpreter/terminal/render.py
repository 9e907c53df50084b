"""Rich output for the terminal table: a console on any text stream (a terminal, a pipe, a
StringIO in tests), the view's tables, plain lines that are never read as markup, and a diff of
two views (what a step changed).

Width: the terminal's own width on a TTY; 120 columns elsewhere, so that a transcript fits
the 120×40 terminal the play command is designed for.
"""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.style import Style
from rich.table import Table
from rich.text import Text

__all__ = ["make_console", "say", "table_of", "draw_view", "draw_changes", "view_diff", "header_line", "PIPE_WIDTH"]

PIPE_WIDTH = 120
TABLE_GAP = 3  # blank columns between tables drawn side by side
MAX_CELL = 60  # a cell longer than this is cut (a long list of cards is still one line)


def make_console(out, width=None) -> Console:
    tty = bool(getattr(out, "isatty", lambda: False)())
    return Console(file=out, width=width or (None if tty else PIPE_WIDTH), force_terminal=tty,
                   color_system="auto" if tty else None, highlight=False, emoji=False,
                   soft_wrap=False, legacy_windows=False)


def say(console, text, style=None) -> None:
    """One plain line (square brackets in a label are text, not markup)."""
    console.print(Text(str(text), style=style or ""))


def table_of(table: dict, console=None) -> Table:
    """A view table as a Rich table. Column headings are bold and underlined on a terminal; in
    plain output (a pipe, a file: no styles) a rule of ─ under them keeps them apart from the rows
    (not under the players' names of the players table: those read as headings by themselves)."""
    title = str(table.get("title") or "")
    plain = console is not None and console.color_system is None and table.get("rule", True)
    grid = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD if plain else None, show_edge=False,
                 pad_edge=False, padding=(0, 1, 0, 0) if plain else (0, 1), header_style="bold underline",
                 expand=False, title_style="bold",
                 min_width=min(len(title), 60))
    columns = list(table.get("columns") or [])
    if not any(str(column) for column in columns):
        grid.show_header = False
    colours = list(table.get("colours") or [])
    for index, column in enumerate(columns):
        colour = colours[index] if index < len(colours) else None
        grid.add_column(_styled({"text": str(column), "colour": colour}) if colour else str(column), overflow="fold")
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


def draw_view(console, view: dict, sections=("board", "own", "others"), max_lines=None) -> None:
    """The view's tables, packed side by side where they fit the width; the own area and the
    other players' rows drawn as one players table (a row per field, a column per player).
    With `max_lines`, board tables are left out from the last one on until the drawing fits,
    and one line names them (the `board` command draws everything)."""
    say(console, header_line(view), "bold")
    players = players_table(view) if "own" in sections and "others" in sections else None
    board = [table for table in view.get("board") or [] if table.get("rows")] if "board" in sections else []
    areas = [players] if players is not None else [
        table for section in ("own", "others") if section in sections for table in view.get(section) or []
        if table.get("rows")]
    rows = layout(console, [table_of(table, console) for table in board + areas])
    left_out = []
    if max_lines is not None and height(console, rows) > max_lines - 1:
        kept = []  # the board tables, in order, that still fit with a line naming the others
        for table in board:
            trial = layout(console, [table_of(item, console) for item in kept + [table] + areas])
            (kept if height(console, trial) <= max_lines - 2 else left_out).append(table)
        rows = layout(console, [table_of(table, console) for table in kept + areas])
    for row in rows:
        console.print(row)
    if left_out:
        titles = ", ".join(str(table.get("title") or "untitled").split(" (")[0] for table in left_out)
        suffix = " (type board to see the whole table)"
        line = f"not shown: {titles}"
        room = console.width - len(suffix)
        say(console, (line if len(line) <= room else line[:room - 1] + "…") + suffix)


def layout(console, tables: list) -> list:
    """Rich tables in rows: each table goes on the first row it fits beside (first fit, in the
    view's order), so narrow tables share the width instead of each taking its own lines."""
    rows = []  # [(width used, [table])]
    for table in tables:
        width = Measurement.get(console, console.options, table).maximum
        for index, (used, members) in enumerate(rows):
            if used + TABLE_GAP + width <= console.width:
                rows[index] = (used + TABLE_GAP + width, members + [table])
                break
        else:
            rows.append((width, [table]))
    drawn = []
    for _, members in rows:
        grid = Table.grid(padding=(0, TABLE_GAP, 0, 0))
        for _ in members:
            grid.add_column(vertical="top")
        grid.add_row(*members)
        drawn.append(members[0] if len(members) == 1 else grid)
    return drawn


def height(console, renderables: list) -> int:
    """The lines these renderables take at the console's width."""
    return sum(len(console.render_lines(item, console.options, pad=False)) for item in renderables)


def players_table(view: dict):
    """The own area (a field a row) and the other players' table (a player a row, a field a
    column) as one table with a row per field and a column per player, you first; None when
    their fields differ (then both are drawn as they are)."""
    own, others = view.get("own") or [], view.get("others") or []
    if len(own) != 1 or len(others) != 1 or len(own[0].get("columns") or []) != 2:
        return None
    fields = [cell_text(row[0]) for row in own[0].get("rows") or [] if row]
    columns = [str(column) for column in others[0].get("columns") or []]
    if not fields or columns[1:] != fields:
        return None
    you = view.get("you") or {}
    name = f"{str(you.get('name') or 'you').upper()} (you)"
    heads = [{"text": name, "colour": you.get("colour")}] + [row[0] for row in others[0]["rows"] if row]
    rows = []
    for index, (field, value) in enumerate((row[0], row[1] if len(row) > 1 else "") for row in own[0]["rows"]):
        rows.append([field, value] + [row[index + 1] if index + 1 < len(row) else "" for row in others[0]["rows"]])
    return {"title": "players", "columns": [""] + [cell_text(head) for head in heads], "rows": rows, "rule": False,
            "colours": [None] + [head.get("colour") if isinstance(head, dict) else None for head in heads]}


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
    tables = [table_of(table, console) for table in view.get("own") or [] if table.get("rows")]
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
