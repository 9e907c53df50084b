"""The end of a game as people read it: the score rows per player as a table, and which
tie-breaker decided (or that the tie was shared, or drawn at random by the game's seed).

`decided_by` follows the same steps as `engine.scoring.winners` and says which one settled it.
"""
from __future__ import annotations

from rich import box
from rich.table import Table

__all__ = ["score_table", "decided_by"]


def score_table(state, names: dict, table=None) -> Table:
    """Players as columns, the ruleset's score rows (with their labels) as rows, then the total."""
    table = table if table is not None else state.scores()
    labels = {row_id: label for row_id, label, _handle in state.rs.score_rows}
    grid = Table(title="scores", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, title_style="bold")
    grid.add_column("")
    players = list(table)
    for player in players:
        grid.add_column(str(names.get(player) or f"player {player}"), justify="right")
    row_ids = list(table[players[0]]["rows"]) if players else []
    for row_id in row_ids:
        label = labels.get(row_id) or row_id
        grid.add_row(str(label), *[_number(table[player]["rows"].get(row_id)) for player in players])
    grid.add_row("total", *[_number(table[player]["total"]) for player in players], style="bold")
    return grid


def _number(value) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def decided_by(state, names: dict) -> str:
    """One sentence: who won and what decided it."""
    def called(players):
        return ", ".join(str(names.get(player) or f"player {player}") for player in players)

    ruleset, game_vars = state.rs, state.d["vars"]
    table = state.scores()
    if not table:
        return "nobody scored"
    best = max(entry["total"] for entry in table.values())
    candidates = [player for player, entry in table.items() if entry["total"] == best]
    if len(candidates) == 1:
        return f"{called(candidates)} won with the most points ({_number(best)})"
    sentence = f"{called(candidates)} tied on {_number(best)} points"
    for label, handle in ruleset.tiebreakers:
        if handle is None:
            break
        ruleset.budget.reset()
        keys = {player: handle.fn(game_vars, {"p": player, "player": player}) for player in candidates}
        top = max(keys.values())
        kept = [player for player in candidates if keys[player] == top]
        if len(kept) < len(candidates):
            shown = ", ".join(f"{names.get(player) or f'player {player}'} {_number(keys[player])}" for player in candidates)
            return f"{sentence}; the tie-breaker '{label}' decided ({shown})"
        sentence += f"; still tied on '{label}'"
        candidates = kept
    winners = state.winners()
    if len(winners) == 1:
        return f"{sentence}; {called(winners)} won the tie by lot (the game's seed)"
    return f"{sentence}; they share the win"
