"""`table_view(state, player)`: the whole table as one player sees it, as plain data.

Everything shown is evaluated against `state.observe(player)` (another player's `owner` slot and
every `hidden`/`count` var are already placeholders there), so no expression of the view can
reach a secret. Moves come from the history in their public form (another player's secret move
as its action only, another player's decision as "made a decision"); the engine's log lines are
shown only when the view declares them public (`log: public`). The dict shape is documented in
the package docstring (interpreter/view/__init__.py) and docs/play.md.
"""
from __future__ import annotations

from .cells import Viewer
from .spec import view_spec
from .steps import action_groups, decision

RECENT_MOVES = 12
RECENT_LINES = 8


def table_view(state, player, *, actions: bool = True, shared: dict = None, finished_game: bool = False) -> dict:
    """The table as `player` (a seat number) sees it. `player` None is everyone's view, for a
    finished game only (every `owner` slot from its owner; `hidden` vars stay hidden).
    `actions=False` leaves the legal actions out (an empty list): a replay frame needs none.
    `shared`: a dict the caller passes to every view of the SAME state (one per seat): board
    tables that read only public values are then built once and shared.
    `finished_game=True`: the caller vouches that the game of this (earlier) state is over, so
    everyone's view may show it (a replay of a finished game, step by step)."""
    ruleset = state.rs
    spec = view_spec(ruleset)
    if player is None and not (state.is_terminal or finished_game):
        raise ValueError("everyone's view (player None) is only for a finished game: it shows every hand")
    observation = _everyone(state) if player is None else state.observe(player)
    viewer = Viewer(ruleset, spec, observation["vars"], player)
    seats = viewer.seats
    current = list(observation["current"] or [])
    players = [dict(viewer.player(seat), current=seat in current, you=seat == player) for seat in seats]
    areas = [_area(viewer, seat, shared) for seat in seats]
    phase = ruleset.phases.get(observation["phase"])
    waiting = decision(state, viewer, observation.get("pending"), player)
    view = {
        "ruleset": ruleset.name, "title": ruleset.title, "step": observation["step"],
        "phase": {"id": observation["phase"], "label": phase.label if phase is not None else observation["phase"]},
        "terminal": bool(observation["terminal"]),
        "you": viewer.player(player),
        "players": players,
        "board": board_tables(viewer, shared),
        "own_area": areas[player] if player is not None and 0 <= player < len(areas) else None,
        "other_areas": [area for area in areas if area["seat"] != player],
        "decision": waiting,
        "actions": action_groups(state, viewer, player, waiting and waiting["about"]) if actions else [],
        "scores": shared_scores(state, viewer, shared),
        "log": recent_moves(state, viewer, player),
        "log_lines": list(state.log[-RECENT_LINES:]) if spec.log_public else [],
    }
    return view


def _everyone(state) -> dict:
    """Every seat's own observation merged: each `owner` slot from its owner."""
    merged = state.observe(0)
    for seat in merged["vars"].get("players", [0])[1:]:
        other = state.observe(seat)
        for name, value in other["vars"].items():
            decl = state.rs.vars.get(name)
            if decl is not None and decl.visibility == "owner":
                merged["vars"][name][seat] = value[seat]
    return merged


# -- the board ---------------------------------------------------------------------------------
def board_tables(viewer, shared=None) -> list:
    """The board: the declared tables, else the default ones. With `shared`, a table that reads
    only public values is built for the first viewer and reused for the others."""
    spec = viewer.spec
    if not spec.board:
        if shared is not None and viewer.public_only(()):
            return shared.setdefault("default board", default_board(viewer))
        return default_board(viewer)
    tables = []
    for index, table in enumerate(spec.board):
        if shared is not None and viewer.public_only(_table_handles(table)):
            key = ("board", index)
            if key not in shared:
                shared[key] = _declared_table(viewer, table)
            tables.append(shared[key])
        else:
            tables.append(_declared_table(viewer, table))
    return tables


def _table_handles(table) -> list:
    handles = [table.rows, table.value] + [entry.value for entry in table.fields]
    for parts in [table.label] + [column.title for column in table.columns]:
        handles += [part for part in parts or () if not isinstance(part, str)]
    for column in table.columns:
        handles += [column.value, column.each]
    return [handle for handle in handles if handle is not None]


def _declared_table(viewer, table) -> dict:
    if table.fields:
        rows = [[{"text": entry.title}, viewer.cell_of(entry.value, {}, entry.by_player)] for entry in table.fields]
        return {"id": table.id, "title": table.title, "columns": ["", ""], "rows": rows}
    if table.rows is None:
        evaluated, value = viewer.evaluate(table.value, {})
        if not evaluated:
            return {"id": table.id, "title": table.title, "columns": ["", ""], "rows": [[{"text": ""}, viewer.unreadable(table.value)]]}
        return _value_table(viewer, table.id, table.title, value, table.by_player)
    evaluated, items = viewer.evaluate(table.rows, {})
    items = list(items) if evaluated and isinstance(items, (list, tuple)) else []
    columns, rows = [""], []
    for index, item in enumerate(items):
        names = {table.row_as: item}
        label = viewer.text(table.label, names) if table.label else viewer.cell(item)["text"]
        row = [dict(viewer.cell(item), text=label)]
        for column in table.columns:
            for title, cell in _column_cells(viewer, column, names):
                if index == 0:
                    columns.append(title)
                row.append(cell)
        rows.append(row)
    if not items:
        columns += [_plain_title(column) for column in table.columns]
    return {"id": table.id, "title": table.title, "columns": columns, "rows": rows}


def _column_cells(viewer, column, names: dict) -> list:
    """[(title, cell)] of one declared column (several for a column with `each`)."""
    if column.each is None:
        return [(column.title, viewer.cell_of(column.value, names, column.by_player))]
    evaluated, items = viewer.evaluate(column.each, names)
    out = []
    for item in (items if evaluated and isinstance(items, (list, tuple)) else []):
        inner = dict(names, **{column.each_as: item})
        out.append((viewer.text(column.title, inner), viewer.cell_of(column.value, inner, column.by_player)))
    return out


def _plain_title(column) -> str:
    return column.title if isinstance(column.title, str) else ""


def _value_table(viewer, table_id, title, value, by_player=False) -> dict:
    """One value as a table: a map of maps as a grid, a map as key/value rows, a list as one
    row per item, anything else as one row."""
    if isinstance(value, dict) and value and "hidden" not in value and all(
            isinstance(item, dict) and "hidden" not in item for item in value.values()):
        inner = []
        for item in value.values():
            inner += [key for key in item if key not in inner]
        rows = [[viewer.cell(key)] + [viewer.cell(item.get(key), by_player) for key in inner] for key, item in value.items()]
        heads = [viewer.player(viewer.seat_of(key))["name"] if viewer.seat_of(key) is not None else str(key) for key in inner]
        return {"id": table_id, "title": title, "columns": [""] + heads, "rows": rows}
    if isinstance(value, dict) and "hidden" not in value:
        rows = [[viewer.cell(key), viewer.cell(item, by_player)] for key, item in value.items()]
        return {"id": table_id, "title": title, "columns": ["", ""], "rows": rows}
    if isinstance(value, (list, tuple)) and not by_player:
        return {"id": table_id, "title": title, "columns": [""], "rows": [[viewer.cell(item)] for item in value]}
    return {"id": table_id, "title": title, "columns": [""], "rows": [[viewer.cell(value, by_player)]]}


def default_board(viewer) -> list:
    """Without a declared board: every shared var that is not internal, each map or list its
    own table, the plain values together in one table."""
    ruleset, spec = viewer.rs, viewer.spec
    tables, plain = [], []
    for name, value in viewer.vars.items():
        decl = ruleset.vars.get(name)
        if name in spec.internal or name.startswith("_") or (decl is not None and decl.per_player):
            continue
        if isinstance(value, (dict, list)) and not (isinstance(value, dict) and set(value) == {"hidden"}):
            tables.append(_value_table(viewer, name, name, value))
        else:
            plain.append([{"text": name}, viewer.cell(value)])
    if plain:
        tables.insert(0, {"id": "_values", "title": "state", "columns": ["", ""], "rows": plain})
    return tables


# -- players' areas ----------------------------------------------------------------------------
def _area(viewer, seat: int, shared=None) -> dict:
    """A player's area as the viewer sees it; with `shared`, a field reading only public
    values is built once for all viewers."""
    spec, ruleset = viewer.spec, viewer.rs
    fields = []
    if spec.area:
        for index, entry in enumerate(spec.area):
            key = ("area", seat, index)
            if shared is not None and key in shared:
                fields.append(shared[key])
                continue
            field = {"title": entry.title, "cell": viewer.cell_of(entry.value, {"p": seat}, entry.by_player)}
            if shared is not None and viewer.public_only([entry.value]):
                shared[key] = field
            fields.append(field)
    else:
        for name, value in viewer.vars.items():
            decl = ruleset.vars.get(name)
            if decl is None or not decl.per_player or name in spec.internal or name.startswith("_"):
                continue
            item = value[seat] if isinstance(value, list) and seat < len(value) else value
            fields.append({"title": name, "cell": viewer.cell(item)})
    return dict(viewer.player(seat), fields=fields)


# -- scores and moves --------------------------------------------------------------------------
def shared_scores(state, viewer, shared) -> dict:
    """The score table, built once for all viewers of a state when no row reads a secret."""
    if shared is None or not viewer.public_only([handle for _, _, handle in state.rs.score_rows if handle is not None]):
        return score_table(state, viewer)
    if "scores" not in shared:
        shared["scores"] = score_table(state, viewer)
    return shared["scores"]


def score_table(state, viewer) -> dict:
    """The score rows now: evaluated on what the viewer sees while the game runs (a row reading
    a hidden value shows 'hidden'), the engine's scores once it is over, with the winners and
    the tie-breaker that decided."""
    ruleset = state.rs
    columns = ["player"] + [label or row_id for row_id, label, _ in ruleset.score_rows] + ["total"]
    rows = []
    final = state.scores() if state.is_terminal else None
    for seat in viewer.seats:
        player_cell = viewer.player(seat)
        cells, total = [{"text": player_cell["name"], "colour": player_cell["colour"], "seat": seat}], 0
        for row_id, _label, handle in ruleset.score_rows:
            if final is not None:
                readable, value = True, final[seat]["rows"].get(row_id)
            elif viewer.reads_secret(handle, {"p": seat}):
                readable, value = False, None  # computed from placeholders it would be wrong: not computed
            else:
                readable, value = viewer.evaluate(handle, {"p": seat, "player": seat})
            cells.append(viewer.cell(value) if readable else viewer.unreadable(handle))
            if readable and isinstance(value, (int, float)) and not isinstance(value, bool) and total is not None:
                total += value
            elif not readable:
                total = None  # a row the viewer cannot read: the total is not known either
        if final is not None:
            total = final[seat]["total"]
        cells.append({"text": str(total)} if total is not None else {"text": "hidden", "hidden": True})
        rows.append(cells)
    out = {"columns": columns, "rows": rows}
    if state.is_terminal:
        out["winners"] = state.winners()
        out["decided_by"] = _decided_by(state, final)
    return out


def _decided_by(state, final) -> str:
    """How the winners were found: 'score', a tie-breaker's label, or the final tie rule."""
    ruleset = state.rs
    best = max((entry["total"] for entry in final.values()), default=0)
    candidates = [seat for seat, entry in final.items() if entry["total"] == best]
    if len(candidates) <= 1:
        return "score"
    game_vars = state.vars
    for label, handle in ruleset.tiebreakers:
        if handle is None:
            break
        ruleset.budget.reset()
        keys = {seat: handle.fn(game_vars, {"p": seat, "player": seat}) for seat in candidates}
        top = max(keys.values())
        candidates = [seat for seat in candidates if keys[seat] == top]
        if len(candidates) <= 1:
            return f"tie-breaker: {label}"
    return f"tie: {ruleset.final_tie}"


def recent_moves(state, viewer, player) -> list:
    """The last moves as `player` may read them."""
    from .steps import move_text

    out = []
    for entry in _last_history(state, RECENT_MOVES):
        action = entry.get("action")
        if not isinstance(action, dict):
            continue
        seat = action.get("player")
        out.append(dict(viewer.player(seat), text=move_text(state, viewer, entry, player)))
    return out


def last_move_entry(state) -> dict:
    """The history entry of the last move (not a chance outcome) applied to `state`, as the
    state recorded it (with "simultaneous": true for a choice made at once with others); {}
    when there is none."""
    link = getattr(state, "_history", None)
    while link is not None:
        link, entry = link
        if hasattr(entry, "to_json"):  # an Action: a move made alone
            return {"action": entry.to_json()}
        if isinstance(entry, dict) and "action" in entry:
            return entry
    return {}


def _last_history(state, count: int) -> list:
    """The last `count` entries of the state's history (moves and chance outcomes), oldest first."""
    link = getattr(state, "_history", None)
    entries = []
    while link is not None and len(entries) < count:
        link, entry = link
        entries.append({"action": entry.to_json()} if hasattr(entry, "to_json") else entry)
    entries.reverse()
    return entries
