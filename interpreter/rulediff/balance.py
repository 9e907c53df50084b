"""`rulebook diff --simulate K`: the same K seeds played on both sides with the same agents,
and the balance compared with intervals: win rate by seat with Wilson 95 % intervals on each
side (a win shared by some players, as a team's, counts for each; a tie of all players is a
draw), the difference with Newcombe's interval (built from the two Wilson intervals), mean game
length with a normal 95 % interval and its difference, completed games and errors by kind.

Owns the statistics of the comparison. Playing a game is play.play_game's.
"""
from __future__ import annotations

import math

from . import DiffError

__all__ = ["wilson", "difference_interval", "common_players", "compare_balance"]


def wilson(successes: int, trials: int, z_score: float = 1.96):
    """The Wilson score interval (95 % by default) of a proportion: (low, high)."""
    if trials == 0:
        return 0.0, 1.0
    rate = successes / trials
    denominator = 1 + z_score * z_score / trials
    centre = (rate + z_score * z_score / (2 * trials)) / denominator
    half = z_score * math.sqrt(rate * (1 - rate) / trials + z_score * z_score / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def difference_interval(s_old: int, n_old: int, s_new: int, n_new: int, z_score: float = 1.96):
    """new − old of two proportions with Newcombe's interval (from the two Wilson intervals)."""
    p_old = s_old / n_old if n_old else 0.0
    p_new = s_new / n_new if n_new else 0.0
    lo_old, hi_old = wilson(s_old, n_old, z_score)
    lo_new, hi_new = wilson(s_new, n_new, z_score)
    diff = p_new - p_old
    low = diff - math.sqrt((p_new - lo_new) ** 2 + (hi_old - p_old) ** 2)
    high = diff + math.sqrt((hi_new - p_new) ** 2 + (p_old - lo_old) ** 2)
    return diff, low, high


def _mean_interval(values, z_score: float = 1.96):
    """(mean, half width of its 95 % normal interval, variance of the mean)."""
    if not values:
        return 0.0, 0.0, 0.0
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0, 0.0
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, z_score * math.sqrt(variance / len(values)), variance / len(values)


def _allowed_players(ruleset) -> list:
    if ruleset.combinations:
        chosen = sorted(ruleset.modules)
        counts = {n for c in ruleset.combinations if sorted(c.get("modules") or []) == chosen for n in c["players"]}
        return sorted(counts)
    return sorted(ruleset.players)


def common_players(old_rs, new_rs, wanted) -> int:
    old_counts, new_counts = _allowed_players(old_rs), _allowed_players(new_rs)
    common = [n for n in new_counts if n in old_counts]
    if wanted is not None:
        if wanted not in common:
            raise DiffError(f"--players {wanted}: the old side allows {old_counts or 'no combination'}, "
                            f"the new side {new_counts or 'no combination'}")
        return wanted
    if not common:
        raise DiffError(f"no player count both sides allow (old {old_counts or 'none'}, new {new_counts or 'none'}): "
                        "is each module combination one the game allows?")
    return common[0]


def _side_balance(ruleset, players: int, seeds: list, agents: list) -> dict:
    from ..play import play_game

    results = [play_game(ruleset, players, seed, agents) for seed in seeds]
    completed = [result for result in results if not result.error]
    # a win shared by some players (a team) counts for each of them; a tie of everyone is a draw
    decided = [result for result in completed if 0 < len(result.winners) < players]
    wins = [sum(1 for result in decided if seat in result.winners) for seat in range(players)]
    steps = [result.steps for result in completed]
    mean, half, var = _mean_interval(steps)
    errors: dict = {}
    for result in results:
        if result.error:
            kind = result.error.split(" (action")[0][:160]
            errors[kind] = errors.get(kind, 0) + 1
    return {"games": len(results), "completed": len(completed), "errors": len(results) - len(completed),
            "error_kinds": errors, "draws": len(completed) - len(decided),
            "wins_by_seat": wins,
            "win_rate_by_seat": [{"rate": w / len(completed) if completed else 0.0,
                                  "interval95": list(wilson(w, len(completed)))} for w in wins],
            "mean_steps": mean, "mean_steps_half_width95": half, "_mean_var": var}


def compare_balance(old_rs, new_rs, players: int, games: int, seed: int, agents: list) -> dict:
    """Play the same seeds on both sides with the same agents; win rates by seat with Wilson
    95 % intervals, their differences (Newcombe), mean game length and its difference."""
    from ..agents import make_agent

    for spec in agents:
        try:
            make_agent(spec)
        except ValueError as error:
            raise DiffError(str(error)) from None
    if "human" in agents:
        raise DiffError("--simulate plays agents only (random, greedy, mcts)")
    seeds = [seed + i for i in range(games)]
    old = _side_balance(old_rs, players, seeds, agents)
    new = _side_balance(new_rs, players, seeds, agents)
    seats = []
    for seat in range(players):
        diff, low, high = difference_interval(old["wins_by_seat"][seat], old["completed"],
                                              new["wins_by_seat"][seat], new["completed"])
        seats.append({"seat": seat, "difference": diff, "interval95": [low, high]})
    length_diff = new["mean_steps"] - old["mean_steps"]
    length_half = 1.96 * math.sqrt(old.pop("_mean_var") + new.pop("_mean_var"))
    return {"players": players, "games": games, "seeds": [seeds[0], seeds[-1]], "agents": agents,
            "old": old, "new": new, "win_rate_difference_by_seat": seats,
            "mean_steps_difference": length_diff, "mean_steps_difference_half_width95": length_half}
