"""Game-shape metrics from game records, after Ludii's metrics where they exist (Browne et al.,
the Ludii portal's "Metrics" list): duration, branching factor over the course of the game,
decision moves, lead changes, decisiveness, drawishness, first-mover advantage, balance,
completion. Each is defined in docs/analyze.md."""
from __future__ import annotations

from .stats import mean, newcombe_diff, quantiles, wilson

__all__ = ["shape_metrics", "length_histogram", "branching_curve"]

CURVE_BINS = 10


def length_histogram(steps, bins: int = 20) -> dict:
    if not steps:
        return {"edges": [], "counts": []}
    low, high = min(steps), max(steps)
    width = max(1, -(-(high - low + 1) // bins))
    edges = [low + k * width for k in range(bins + 1) if low + k * width <= high + width]
    counts = [0] * (len(edges) - 1)
    for value in steps:
        counts[min((value - low) // width, len(counts) - 1)] += 1
    return {"edges": edges, "counts": counts}


def branching_curve(records, bins: int = CURVE_BINS) -> list:
    """Mean legal actions per decision in each tenth of the game (by decision count)."""
    sums, counts = [0.0] * bins, [0] * bins
    for record in records:
        branching = record.get("branching") or []
        total = len(branching)
        for decision, value in enumerate(branching):
            slot = min(decision * bins // total, bins - 1)
            sums[slot] += value
            counts[slot] += 1
    return [sums[slot] / counts[slot] if counts[slot] else None for slot in range(bins)]


def _lead_changes(leaders) -> int:
    changes, current = 0, None
    for leader in leaders:
        if leader < 0:
            continue
        if current is not None and leader != current:
            changes += 1
        current = leader
    return changes


def _decided_at(record):
    """Fraction of the game after which the sole winner led without interruption, or None."""
    leaders = record.get("leaders") or []
    if len(record["winners"]) != 1 or not leaders:
        return None
    winner = record["winners"][0]
    run = 0
    for leader in reversed(leaders):
        if leader != winner:
            break
        run += 1
    return 1 - run / len(leaders)


def _turns_and_rounds(done, players: int) -> dict:
    """Turns (maximal runs of decisions by one player) and rounds (turns / players) per game;
    empty for records made before turns were counted."""
    turns = [r["turns"] for r in done if "turns" in r]
    if not turns:
        return {}
    rounds = [t / players for t in turns] if players else []
    low, lower_quartile, median, upper_quartile, high = quantiles(rounds)
    return {"mean_turns": mean(turns), "mean_rounds": mean(rounds),
            "rounds": {"min": low, "q1": lower_quartile, "median": median, "q3": upper_quartile, "max": high,
                       "histogram": length_histogram([round(value) for value in rounds])}}


def _fair_rate(balance_report: dict, players: int) -> float:
    """The win rate every position would have if none had an advantage: the mean over the
    positions (1/players when each game has one winner; higher with shared wins, lower with
    draws)."""
    rows = balance_report["by_position"]["rates"].values()
    games = sum(row["games"] for row in rows)
    if not games:
        return 1 / players if players else 0.0
    return sum(row["wins"] for row in rows) / games


def shape_metrics(records, players: int, balance_report: dict) -> dict:
    done = [r for r in records if not r.get("error")]
    steps = [r["steps"] for r in done]
    all_branching = [b for r in done for b in (r.get("branching") or [])]
    lead = [_lead_changes(r.get("leaders") or []) for r in done]
    lead_rate = [c / (len(r["leaders"]) - 1) for c, r in zip(lead, done) if len(r.get("leaders") or []) > 1]
    decided = [d for d in (_decided_at(r) for r in done) if d is not None]
    low, lower_quartile, median, upper_quartile, high = quantiles(steps)
    position = balance_report["by_position"]["rates"].get("0", {"wins": 0, "games": 0})
    fair = _fair_rate(balance_report, players)
    diff = position["wins"] / position["games"] - fair if position["games"] else 0.0
    first_low, first_high = wilson(position["wins"], position["games"])
    seat_rates = [row["rate"] for row in balance_report["by_seat"]["rates"].values()]
    return {
        "completion": {"rate": len(done) / len(records) if records else 0.0,
                       "ci": list(wilson(len(done), len(records)))},
        "duration": {"mean_steps": mean(steps), "min": low, "q1": lower_quartile, "median": median, "q3": upper_quartile,
                     "max": high, "histogram": length_histogram(steps), **_turns_and_rounds(done, players)},
        "branching": {"mean": mean(all_branching), "curve": branching_curve(done)},
        "decision_moves": sum(b > 1 for b in all_branching) / len(all_branching) if all_branching else 0.0,
        "lead_changes": {"mean_per_game": mean(lead), "rate": mean(lead_rate)},
        "decisiveness": {"mean_decided_at": mean(decided) if decided else None, "games": len(decided)},
        "drawishness": balance_report["draws"]["rate"],
        "first_mover_advantage": {"rate": position["wins"] / position["games"] if position["games"] else 0.0,
                                  "fair": fair, "difference": diff,
                                  "ci": [first_low - fair, first_high - fair]},
        "balance": 1 - (max(seat_rates) - min(seat_rates)) if seat_rates else None,
    }


def compare_rate(base_wins, base_games, other_wins, other_games) -> dict:
    diff, low, high = newcombe_diff(base_wins, base_games, other_wins, other_games)
    return {"difference": diff, "ci": [low, high]}
