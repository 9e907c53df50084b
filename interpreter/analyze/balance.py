"""Balance from game records: win rates by seat, by turn position and by agent, each with a
Wilson 95 % interval and a χ² test of equality (for seats and positions: that they are
exchangeable, team-mates taken as one); draws, shared wins, tie-breakers; the score
distributions of winners and losers; how many games a given interval width needs.

A player wins when it is among the game's winners (team-mates win together). A game is a
draw when nobody wins or every player does; a shared win has several winners but not all."""
from __future__ import annotations

import re

from .stats import chi2_equal_rates, chi2_exchangeable, games_for_width, mean, quantiles, wilson

__all__ = ["balance", "rate_table", "completed", "error_kinds"]


def completed(records) -> list:
    return [r for r in records if not r.get("error")]


def rate_table(wins: dict, chances: dict) -> dict:
    """{key: {wins, games, rate, ci}} plus the χ² test over the keys."""
    keys = list(chances)
    rows = {}
    for key in keys:
        won, tried = wins.get(key, 0), chances[key]
        low, high = wilson(won, tried)
        rows[str(key)] = {"wins": won, "games": tried, "rate": won / tried if tried else 0.0,
                          "ci": [low, high]}
    test = chi2_equal_rates([wins.get(k, 0) for k in keys], [chances[k] for k in keys])
    return {"rates": rows, "chi2": test["chi2"], "dof": test["dof"], "p_value": test["p_value"]}


MERGE_MIN_GAMES = 20  # units that won together in every one of at least this many games are one unit


def _won_together(outcomes) -> list:
    """Groups of units whose outcome was the same in every game (team-mates), in unit order;
    with fewer than MERGE_MIN_GAMES games every unit stands alone."""
    units = len(outcomes[0]) if outcomes else 0
    if len(outcomes) < MERGE_MIN_GAMES:
        return [[unit] for unit in range(units)]
    groups: dict = {}
    for unit in range(units):
        groups.setdefault(tuple(row[unit] for row in outcomes), []).append(unit)
    return sorted(groups.values())


def with_exchangeable_test(table: dict, outcomes) -> dict:
    """Replace a seat or position table's χ² by the test that its units are exchangeable
    (stats.chi2_exchangeable), over groups of units that won together in every game."""
    groups = _won_together(outcomes)
    test = chi2_exchangeable([[row[group[0]] for group in groups] for row in outcomes])
    table.update(chi2=test["chi2"], dof=test["dof"], p_value=test["p_value"], test="exchangeable units")
    if any(len(group) > 1 for group in groups):
        table["won_together"] = groups
    return table


def _is_draw(record, players: int) -> bool:
    return len(record["winners"]) in (0, players)


def balance(records, players: int) -> dict:
    done = completed(records)
    seat_wins, position_wins, agent_wins, agent_chances = {}, {}, {}, {}
    seat_rows, position_rows = [], []
    for record in done:
        winners = set(record["winners"])
        seat_rows.append([int(seat in winners) for seat in range(players)])
        position_rows.append([int(seat in winners) for seat in record["start_order"]])
        for position, seat in enumerate(record["start_order"]):
            position_wins[position] = position_wins.get(position, 0) + (seat in winners)
        for seat, spec in enumerate(record["agents"]):
            won = seat in winners
            seat_wins[seat] = seat_wins.get(seat, 0) + won
            agent_chances[spec] = agent_chances.get(spec, 0) + 1
            agent_wins[spec] = agent_wins.get(spec, 0) + won
    chances = {k: len(done) for k in range(players)}
    draws = sum(_is_draw(r, players) for r in done)
    shared = sum(1 < len(r["winners"]) < players for r in done)
    tie_decided = sum(bool(r.get("tie_decided")) for r in done)
    out = {
        "games": len(records), "completed": len(done), "errors": len(records) - len(done),
        "by_seat": with_exchangeable_test(rate_table(seat_wins, chances), seat_rows),
        "by_position": with_exchangeable_test(rate_table(position_wins, chances), position_rows),
        "by_agent": rate_table(agent_wins, agent_chances) if len(agent_chances) > 1 else None,
        "draws": _count(draws, len(done)), "shared_wins": _count(shared, len(done)),
        "tie_breaker_decided": _count(tie_decided, len(done)),
        "scores": _score_distribution(done),
        "games_needed": {f"±{half * 100:g}%": games_for_width(1 / max(players, 1), 2 * half)
                         for half in (0.05, 0.02, 0.01)},
        "errors_by_kind": error_kinds(records),
    }
    return out


def _count(count: int, total: int) -> dict:
    low, high = wilson(count, total)
    return {"count": count, "rate": count / total if total else 0.0, "ci": [low, high]}


def _score_distribution(done) -> dict:
    winner_scores, loser_scores = [], []
    negative_winner = 0
    for record in done:
        winners = set(record["winners"])
        for seat_text, total in record["scores"].items():
            if not isinstance(total, (int, float)):
                continue
            (winner_scores if int(seat_text) in winners else loser_scores).append(total)
        if any(isinstance(record["scores"].get(str(w)), (int, float)) and record["scores"][str(w)] < 0
               for w in winners):
            negative_winner += 1

    def summary(values):
        low, lower_quartile, median, upper_quartile, high = quantiles(values)
        return {"n": len(values), "mean": mean(values), "min": low, "q1": lower_quartile, "median": median,
                "q3": upper_quartile, "max": high}

    return {"winners": summary(winner_scores), "losers": summary(loser_scores),
            "winner_score_negative": _count(negative_winner, len(done))}


_VALUES = re.compile(r"\[[^\]]*?(?:\]|\.\.\.|$)|'[^']*'|\"[^\"]*\"|\b\d+\b")


def error_kinds(records) -> dict:
    """Failed games grouped by their message with values (lists, strings, numbers) elided."""
    kinds: dict = {}
    for record in records:
        if record.get("error"):
            key = _VALUES.sub("…", record["error"].split(" (action")[0])[:160]
            kinds[key] = kinds.get(key, 0) + 1
    return kinds
