"""The χ² test that seats or positions are exchangeable (stats.chi2_exchangeable): with one
winner per game it is the goodness-of-fit χ² of the winners' positions; draws add nothing;
team-mates who always win together are tested as one unit (balance.with_exchangeable_test)."""
import pytest

from interpreter.analyze.balance import balance
from interpreter.analyze.stats import chi2_exchangeable, chi2_sf


def one_hot(unit, units=4):
    return [int(u == unit) for u in range(units)]


def test_single_winner_is_the_goodness_of_fit_test():
    counts = [40, 20, 25, 15]  # 100 games, expected 25 each
    outcomes = [one_hot(unit) for unit, n in enumerate(counts) for _ in range(n)]
    test = chi2_exchangeable(outcomes)
    gof = sum((n - 25) ** 2 / 25 for n in counts)  # 14.0
    assert test["chi2"] == pytest.approx(gof) and test["dof"] == 3
    assert test["p_value"] == pytest.approx(chi2_sf(14.0, 3))
    with_draws = outcomes + [[0, 0, 0, 0]] * 30 + [[1, 1, 1, 1]] * 10
    assert chi2_exchangeable(with_draws)["chi2"] == pytest.approx(gof)


def test_two_winners_of_four_uses_the_variance_without_replacement():
    # every game: 2 winners of 4 -> p = 1/2, Var = 1/4 * 4/3 = 1/3 per game
    outcomes = [[1, 1, 0, 0]] * 30 + [[0, 0, 1, 1]] * 10
    test = chi2_exchangeable(outcomes)
    assert test["chi2"] == pytest.approx(4 * 10 ** 2 / (40 / 3))


def record(index, winners, players=4):
    return {"index": index, "winners": winners, "start_order": list(range(players)), "agents": ["random"] * players,
            "scores": {str(s): int(s in winners) for s in range(players)}, "error": None}


def test_team_mates_are_one_unit():
    records = [record(i, [0, 2] if i < 58 else [1, 3]) for i in range(100)]
    report = balance(records, 4)
    seats = report["by_seat"]
    assert seats["won_together"] == [[0, 2], [1, 3]] and seats["dof"] == 1
    assert seats["chi2"] == pytest.approx((58 - 50) ** 2 / 25)  # the binomial test of 58 of 100
    assert report["shared_wins"]["count"] == 100 and report["draws"]["count"] == 0
