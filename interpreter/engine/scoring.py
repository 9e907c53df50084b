"""Scores and winners of a game: the ruleset's score rows per player, its tie-breakers in
order, and its final tie rule (`shared`, or `random` decided by the game's seed).

Owns: `scores` and `winners`.
"""
from __future__ import annotations

import hashlib

__all__ = ["scores", "winners"]


def scores(state) -> dict:
    """{player: {"total": n, "rows": {row: n}}}"""
    ruleset = state.rs
    game_vars = state.d["vars"]
    ruleset.budget.reset()
    out = {}
    for player in game_vars["players"]:
        rows = {}
        for row_id, _label, handle in ruleset.score_rows:
            rows[row_id] = handle.fn(game_vars, {"p": player, "player": player}) if handle is not None else 0
        out[player] = {"total": sum(x for x in rows.values() if isinstance(x, (int, float))), "rows": rows}
    return out


def winners(state) -> list:
    ruleset = state.rs
    game_vars = state.d["vars"]
    table = scores(state)
    best = max(entry["total"] for entry in table.values()) if table else 0
    candidates = [player for player, entry in table.items() if entry["total"] == best]
    for _label, handle in ruleset.tiebreakers:
        if len(candidates) <= 1 or handle is None:
            break
        keys = {player: handle.fn(game_vars, {"p": player, "player": player}) for player in candidates}
        top = max(keys.values())
        candidates = [player for player in candidates if keys[player] == top]
    if len(candidates) > 1 and ruleset.final_tie == "random":
        digest = hashlib.sha256(f"{state.seed_text}:tie".encode()).digest()
        candidates = [candidates[int.from_bytes(digest[:8], "big") % len(candidates)]]
    return candidates
