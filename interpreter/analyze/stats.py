"""Statistics for balance reports, in plain Python (no SciPy): Wilson score intervals for a
proportion, Newcombe's interval for a difference of two proportions, a normal interval for a
difference of means, Pearson's χ² test of equal win rates with its p-value (the survival
function of the χ² distribution through the regularized incomplete gamma function), the χ²
test that the seats (or positions) of a game are exchangeable, and the number of games a given
interval width needs."""
from __future__ import annotations

import math

__all__ = ["Z95", "wilson", "newcombe_diff", "mean_diff", "chi2_sf", "chi2_equal_rates",
           "chi2_exchangeable", "games_for_width", "mean", "stdev", "quantiles"]

Z95 = 1.959963984540054  # two-sided 95 % quantile of the standard normal


def wilson(successes: float, trials: int, z_score: float = Z95) -> tuple:
    """The Wilson score interval (low, high) of a proportion; (0, 1) without trials."""
    if trials <= 0:
        return (0.0, 1.0)
    rate = successes / trials
    denom = 1 + z_score * z_score / trials
    centre = (rate + z_score * z_score / (2 * trials)) / denom
    half = z_score * math.sqrt(rate * (1 - rate) / trials + z_score * z_score / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def newcombe_diff(first_successes: float, first_trials: int, second_successes: float, second_trials: int,
                  z_score: float = Z95) -> tuple:
    """Difference p2 - p1 with Newcombe's hybrid score interval (his method 10, 1998), where
    p1 = first_successes / first_trials and p2 = second_successes / second_trials."""
    if first_trials <= 0 or second_trials <= 0:
        return (0.0, -1.0, 1.0)
    first_rate, second_rate = first_successes / first_trials, second_successes / second_trials
    first_low, first_high = wilson(first_successes, first_trials, z_score)
    second_low, second_high = wilson(second_successes, second_trials, z_score)
    diff = second_rate - first_rate
    low = diff - math.sqrt((second_rate - second_low) ** 2 + (first_high - first_rate) ** 2)
    high = diff + math.sqrt((second_high - second_rate) ** 2 + (first_rate - first_low) ** 2)
    return (diff, low, high)


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def stdev(values) -> float:
    values = list(values)
    if len(values) < 2:
        return 0.0
    centre = mean(values)
    return math.sqrt(sum((v - centre) ** 2 for v in values) / (len(values) - 1))


def mean_diff(first, second, z_score: float = Z95) -> tuple:
    """Difference of means (second - first) with a normal (Welch) 95 % interval."""
    first, second = list(first), list(second)
    diff = mean(second) - mean(first)
    if len(first) < 2 or len(second) < 2:
        return (diff, float("-inf"), float("inf"))
    standard_error = math.sqrt(stdev(first) ** 2 / len(first) + stdev(second) ** 2 / len(second))
    return (diff, diff - z_score * standard_error, diff + z_score * standard_error)


def quantiles(values, points=(0.0, 0.25, 0.5, 0.75, 1.0)) -> list:
    """Quantiles by linear interpolation between order statistics."""
    ordered = sorted(values)
    if not ordered:
        return [None for _ in points]
    out = []
    for point in points:
        position = point * (len(ordered) - 1)
        low = int(math.floor(position))
        high = min(low + 1, len(ordered) - 1)
        out.append(ordered[low] + (ordered[high] - ordered[low]) * (position - low))
    return out


def _gamma_prefactor(shape: float, point: float) -> float:
    """x^a e^-x / Γ(a), the factor both gamma expansions share (a = shape, x = point)."""
    return math.exp(-point + shape * math.log(point) - math.lgamma(shape))


def _lower_gamma_series(shape: float, point: float) -> float:
    """P(a, x) (a = shape, x = point) by its power series (converges fast for x < a + 1)."""
    term = total = 1.0 / shape
    denom = shape
    for _ in range(10_000):
        denom += 1
        term *= point / denom
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * _gamma_prefactor(shape, point)


def _upper_gamma_fraction(shape: float, point: float) -> float:
    """Q(a, x) (a = shape, x = point) by Lentz's continued fraction (for x >= a + 1): the
    fraction's partial numerators a_i = -i (i - a) and denominators b_i = x + 1 - a + 2i, with
    Lentz's running ratios C (`numerator_ratio`) and 1/D (`denominator_ratio`)."""
    tiny = 1e-300
    partial_denominator = point + 1 - shape
    numerator_ratio = 1 / tiny
    denominator_ratio = 1 / partial_denominator
    fraction = denominator_ratio
    for index in range(1, 10_000):
        partial_numerator = -index * (index - shape)
        partial_denominator += 2
        denominator_ratio = partial_numerator * denominator_ratio + partial_denominator
        denominator_ratio = tiny if abs(denominator_ratio) < tiny else denominator_ratio
        numerator_ratio = partial_denominator + partial_numerator / numerator_ratio
        numerator_ratio = tiny if abs(numerator_ratio) < tiny else numerator_ratio
        denominator_ratio = 1 / denominator_ratio
        delta = denominator_ratio * numerator_ratio
        fraction *= delta
        if abs(delta - 1) < 1e-15:
            break
    return _gamma_prefactor(shape, point) * fraction


def chi2_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X ~ χ²(dof): the regularized upper gamma Q(dof/2, statistic/2)."""
    if dof <= 0:
        return float("nan")
    if statistic <= 0:
        return 1.0
    shape, point = dof / 2.0, statistic / 2.0
    if point < shape + 1:
        return max(0.0, 1.0 - _lower_gamma_series(shape, point))
    return min(1.0, _upper_gamma_fraction(shape, point))


def chi2_equal_rates(wins, trials) -> dict:
    """Pearson's χ² test that every category wins equally often: `wins[i]` wins in `trials[i]`
    chances (a k × 2 contingency table of won / not won). Shared wins may be fractional."""
    pairs = [(won, chances) for won, chances in zip(wins, trials) if chances > 0]
    total_wins = sum(won for won, _ in pairs)
    total = sum(chances for _, chances in pairs)
    if len(pairs) < 2 or total == 0 or total_wins in (0, total):
        return {"chi2": 0.0, "dof": max(0, len(pairs) - 1), "p_value": 1.0}
    rate = total_wins / total
    statistic = 0.0
    for won, chances in pairs:
        expected_win, expected_loss = chances * rate, chances * (1 - rate)
        statistic += ((won - expected_win) ** 2 / expected_win
                      + ((chances - won) - expected_loss) ** 2 / expected_loss)
    dof = len(pairs) - 1
    return {"chi2": statistic, "dof": dof, "p_value": chi2_sf(statistic, dof)}


def chi2_exchangeable(outcomes) -> dict:
    """Test that no unit (seat, turn position, team) is favoured, from `outcomes`: per game, a
    list of 0/1 per unit (1 = among the winners). Under the null hypothesis a game with m
    winners of k units picks them uniformly, so each unit wins with p = m/k and the units of one
    game are dependent (sampling without replacement): Var(w_i) = p(1 - p) k/(k - 1) and
    X = Σ (w_i − E)² / Σ_games p(1 − p) k/(k − 1) is χ² with k − 1 degrees of freedom. With one
    winner per game this is the goodness-of-fit χ² of the winners' units; draws (no winner or
    all) add nothing. (The k × 2 table of won / not won would count each game k times and
    overstate χ² by k/(k − 1).)"""
    games = [list(row) for row in outcomes]
    units = len(games[0]) if games else 0
    if units < 2:
        return {"chi2": 0.0, "dof": max(units - 1, 0), "p_value": 1.0}
    expected = variance = 0.0
    for row in games:
        share = sum(row) / units
        expected += share
        variance += share * (1 - share) * units / (units - 1)
    if variance <= 0:
        return {"chi2": 0.0, "dof": units - 1, "p_value": 1.0}
    wins = [sum(row[unit] for row in games) for unit in range(units)]
    statistic = sum((won - expected) ** 2 for won in wins) / variance
    return {"chi2": statistic, "dof": units - 1, "p_value": chi2_sf(statistic, units - 1)}


def games_for_width(rate: float, width: float, z_score: float = Z95) -> int:
    """About how many trials give a 95 % interval of total `width` around a rate near `rate`
    (normal approximation, n = z² p (1-p) / (width/2)²)."""
    rate = min(max(rate, 0.01), 0.99)
    half = width / 2
    return int(math.ceil(z_score * z_score * rate * (1 - rate) / (half * half)))
