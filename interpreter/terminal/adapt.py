"""The language's view model (`interpreter.view.table_view`, documented in
interpreter/view/__init__.py) in the shape the terminal draws (see `view.py`): cells keep their
text and colour, the own area becomes a two-column table, the other players' areas one table
with a row per player, the action groups become the questions `ask.py` asks."""
from __future__ import annotations

__all__ = ["normalise"]


def _cell(cell):
    if isinstance(cell, dict):
        text = str(cell.get("text", ""))
        parts = [part for part in cell.get("parts") or [] if isinstance(part, dict) and part.get("colour")]
        colour = cell.get("colour") or (parts[0].get("colour") if len(parts) == 1 else None)
        return {"text": text, "colour": colour} if colour else text
    return "" if cell is None else str(cell)


def _table(table: dict) -> dict:
    return {"title": str(table.get("title") or table.get("id") or ""), "columns": [str(c) for c in table.get("columns") or []],
            "rows": [[_cell(cell) for cell in row] for row in table.get("rows") or []]}


def _player_cell(player: dict):
    name = str(player.get("name") or f"player {player.get('seat')}")
    return {"text": name, "colour": player["colour"]} if player.get("colour") else name


def _own(area) -> list:
    if not area:
        return []
    rows = [[str(field.get("title", "")), _cell(field.get("cell"))] for field in area.get("fields") or []]
    return [{"title": f"your area — {area.get('name')}", "columns": ["", ""], "rows": rows}]


def _others(areas: list) -> list:
    if not areas:
        return []
    titles = []
    for area in areas:
        titles += [str(field.get("title", "")) for field in area.get("fields") or [] if field.get("title") not in titles]
    if not titles:
        return []
    rows = []
    for area in areas:
        cells = {str(field.get("title", "")): _cell(field.get("cell")) for field in area.get("fields") or []}
        rows.append([_player_cell(area)] + [cells.get(title, "") for title in titles])
    return [{"title": "the other players", "columns": ["player"] + titles, "rows": rows}]


def _asking(groups: list) -> dict:
    """{kind: {"order": [param], "questions": {param: question}, "title": str, "paths": {label: [text
    of each step's value]}}}"""
    asking = {}
    for group in groups or []:
        steps = group.get("steps") or []
        asking[group.get("kind")] = {"order": [step.get("param") for step in steps],
                                     "questions": {step.get("param"): step.get("question") for step in steps},
                                     "title": group.get("title"),
                                     "shown": [step.get("param") for step in steps if step.get("shown")],
                                     "paths": {choice.get("label"): choice.get("path") for choice in group.get("choices") or []}}
    return asking


def normalise(model: dict, state, player) -> dict:
    if not isinstance(model, dict):
        from .view import _generic_view

        return _generic_view(state, player)
    you = model.get("you") or {}
    decision = model.get("decision")
    scores = model.get("scores")
    phase = model.get("phase") or {}
    return {
        "player": player, "you": {"name": you.get("name") or f"player {player}", "colour": you.get("colour")},
        "names": {entry.get("seat"): entry.get("name") for entry in model.get("players") or []},
        "colours": {entry.get("seat"): entry.get("colour") for entry in model.get("players") or []},
        "phase": phase.get("label") or phase.get("id") if isinstance(phase, dict) else phase,
        "step": model.get("step"), "terminal": model.get("terminal"),
        "board": [_table(table) for table in model.get("board") or []],
        "own": _own(model.get("own_area")), "others": _others(model.get("other_areas") or []),
        "decision": None if not decision else {"player": decision.get("seat"),
                                               "prompt": decision.get("about") or decision.get("prompt")},
        "scores": None if not scores else {"title": "scores", "columns": [str(c) for c in scores.get("columns") or []],
                                            "rows": [[_player_cell(row[0]) if isinstance(row[0], dict) and "seat" in row[0]
                                                      else _cell(row[0])] + [_cell(c) for c in row[1:]]
                                                     for row in scores.get("rows") or []]},
        "asking": _asking(model.get("actions")),
        "log_lines": model.get("log_lines"),
    }
