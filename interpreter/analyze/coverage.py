"""Coverage and influence from game records: actions never legal or never chosen, dominant
actions, phases never entered, components that never left their initial zone, components
never named by a chosen action (among the types that actions name: a goal never claimed),
procedures never called, defines never evaluated and `if` branches never taken (counted by
the engine's coverage hook, interpreter/engine/coverage.py, in the game itself), each with the
file:line of its definition; per-action and per-card use and the win rate of those who used or
held them, with intervals."""
from __future__ import annotations

import os

from .runner import holder, locate_components
from .stats import wilson

__all__ = ["coverage", "influence", "definition_pos"]

DOMINANT = 0.95
DOMINANT_MIN_DECISIONS = 20
RULE_PARTS = ("procedures_never_called", "defines_never_evaluated", "branches_never_taken")


def definition_pos(ruleset, section: str, key, sub=None) -> str:
    """'file:line' of a definition in the composed rules ('?' when the tree has no position)."""
    from ..loader import key_pos

    tree = getattr(ruleset, "tree", None)
    try:
        node = tree[section]
        if sub is not None:
            node = node[sub]
        pos = key_pos(node, key)
    except (KeyError, TypeError):
        return "?"
    if not (pos and pos.line):
        return "?"
    folder = os.path.abspath(ruleset.folder)
    path = os.path.abspath(pos.file)
    if path.startswith(folder + os.sep):  # 'davos/goals.yaml', not the whole install path
        path = os.path.relpath(path, os.path.dirname(folder))
    else:
        path = pos.file
    return f"{path}:{pos.line}"


def _component_type(ruleset, cid):
    for typ, ids in ruleset.components.items():
        if cid in ids:
            return typ
    return None


def initial_zones(ruleset, players: int, seed: int) -> dict:
    """Where each component is right after set-up (one set-up, replayed for the report)."""
    try:
        state = ruleset.new_game(players, seed=seed)
    except Exception:
        return {}
    per_player = {name for name, decl in ruleset.vars.items() if decl.per_player}
    return locate_components(state.vars, frozenset(ruleset.entities), per_player)


def coverage(ruleset, records, players: int, seed: int) -> dict:
    done = [r for r in records if r.get("actions") is not None]
    legal, chosen, contested = {}, {}, {}
    phases, moved, named = set(), set(), set()
    for record in done:
        named.update(record.get("card_uses") or {})
        for name, count in (record.get("legal") or {}).items():
            legal[name] = legal.get(name, 0) + count
        for name, counts in (record.get("actions") or {}).items():
            chosen[name] = chosen.get(name, 0) + sum(counts)
        for name, (times, picked) in (record.get("contested") or {}).items():
            entry = contested.setdefault(name, [0, 0])
            entry[0] += times
            entry[1] += picked
        phases.update(record.get("phases") or [])
        moved.update(record.get("moved") or [])
    actions = [{"action": aid, "where": definition_pos(ruleset, "actions", aid),
                "legal": legal.get(aid, 0), "chosen": chosen.get(aid, 0)} for aid in ruleset.actions]
    zones = initial_zones(ruleset, players, seed)
    dead_cards, never_in_play = [], {}
    for cid in ruleset.entities:
        if cid in moved:
            continue
        typ = _component_type(ruleset, cid)
        if cid not in zones:
            never_in_play.setdefault(typ, []).append(cid)
            continue
        dead_cards.append({"component": cid, "type": typ, "zone": zones[cid],
                           "where": definition_pos(ruleset, "components", cid, typ)})
    named_types = {_component_type(ruleset, cid) for cid in named}
    never_named = [{"component": cid, "type": _component_type(ruleset, cid),
                    "where": definition_pos(ruleset, "components", cid, _component_type(ruleset, cid))}
                   for cid in ruleset.entities if cid not in named and _component_type(ruleset, cid) in named_types
                   and (cid in moved or cid in zones)]
    dominant = [{"action": name, "where": definition_pos(ruleset, "actions", name), "contested": times,
                 "chosen": picked, "rate": picked / times}
                for name, (times, picked) in sorted(contested.items())
                if times >= DOMINANT_MIN_DECISIONS and picked / times > DOMINANT]
    return {
        "games": len(done),
        "actions_never_legal": [a for a in actions if a["legal"] == 0],
        "actions_never_chosen": [a for a in actions if a["legal"] > 0 and a["chosen"] == 0],
        "dominant_actions": dominant,
        "phases_never_entered": [{"phase": pid, "where": definition_pos(ruleset, "phases", pid)}
                                 for pid in ruleset.phases if pid not in phases],
        "components_never_moved": dead_cards,
        "components_never_in_play": never_in_play,
        "components_never_chosen": never_named,
        **rule_coverage(ruleset, done),
    }


def _where(ruleset, pos) -> str:
    """'davos/rules.yaml:34' for a Pos inside the ruleset folder (as definition_pos does)."""
    if pos is None or not getattr(pos, "line", 0):
        return "?"
    folder = os.path.abspath(ruleset.folder)
    path = os.path.abspath(pos.file)
    if path.startswith(folder + os.sep):
        path = os.path.relpath(path, os.path.dirname(folder))
    else:
        path = pos.file
    return f"{path}:{pos.line}"


def rule_coverage(ruleset, done) -> dict:
    """Procedures, defines and `if` branches no game reached. Records made before the engine
    counted them (no `covered` field) leave these lists out and say so in `not_measured`."""
    from ..engine.coverage import points

    measured = [r for r in done if "covered" in r]
    if not measured:
        return {"not_measured": ["procedures never called", "defines never evaluated",
                                 "if-branches never taken"] if done else []}
    hit = set()
    for record in measured:
        hit.update(record["covered"])
    out: dict = {part: [] for part in RULE_PARTS}
    out["rule_points"] = {"total": 0, "reached": 0}
    for point in points(ruleset):
        out["rule_points"]["total"] += 1
        if point.key in hit:
            out["rule_points"]["reached"] += 1
        elif point.kind == "procedure":
            out["procedures_never_called"].append(
                {"procedure": point.name, "where": definition_pos(ruleset, "procedures", point.name)})
        elif point.kind == "define":
            out["defines_never_evaluated"].append(
                {"define": point.name, "where": definition_pos(ruleset, "define", point.name)})
        else:
            out["branches_never_taken"].append({"branch": point.kind, "condition": point.name,
                                                "where": _where(ruleset, point.pos)})
    out["not_measured"] = []
    return out


def _rate(wins: float, games: int) -> dict:
    low, high = wilson(wins, games)
    return {"wins": wins, "games": games, "rate": wins / games if games else 0.0, "ci": [low, high]}


def influence(ruleset, records, players: int) -> dict:
    """For each action kind and card: player-games that used it (or held the card at the end)
    and their win rate, against the player-games that did not."""
    done = [r for r in records if not r.get("error")]
    per_player = {name for name, decl in ruleset.vars.items() if decl.per_player}
    ids = frozenset(ruleset.entities)
    action_use, card_use, card_held = {}, {}, {}
    for record in done:
        winners = set(record["winners"])
        _tally(action_use, record.get("actions") or {}, winners, players)
        _tally(card_use, record.get("card_uses") or {}, winners, players)
        located = locate_components(record.get("final_vars") or {}, ids, per_player)
        held = {}
        for cid, where in located.items():
            seat = holder(where, per_player)
            if seat is not None:
                held[cid] = [int(s == seat) for s in range(players)]
        _tally(card_held, held, winners, players)
    totals = (len(done) * players, sum(len(r["winners"]) for r in done))
    return {"actions": _rows(action_use, totals), "cards_used": _rows(card_use, totals),
            "cards_held": _rows(card_held, totals)}


def _tally(table: dict, counts: dict, winners: set, players: int) -> None:
    for name, per_seat in counts.items():
        entry = table.setdefault(name, {"uses": 0, "users": 0, "user_wins": 0, "wins_total": 0})
        for seat in range(min(players, len(per_seat))):
            if per_seat[seat]:
                entry["uses"] += per_seat[seat]
                entry["users"] += 1
                entry["user_wins"] += seat in winners


def _rows(table: dict, totals: tuple) -> list:
    """One row per name, most used first: its users' win rate and the others' (with intervals)."""
    player_games, wins = totals
    rows = []
    for name, entry in sorted(table.items(), key=lambda item: (-item[1]["users"], item[0])):
        others = player_games - entry["users"]
        rows.append({"name": name, "uses": entry["uses"], "player_games": entry["users"],
                     "used_share": entry["users"] / player_games if player_games else 0.0,
                     "win_rate": _rate(entry["user_wins"], entry["users"]),
                     "others_win_rate": _rate(wins - entry["user_wins"], others)})
    return rows
