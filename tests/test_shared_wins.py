"""Shared wins: team-mates who win together are winners, not a draw, in `rulebook simulate`
and `rulebook analyze` (Davos TEAMS: the winning team's two seats win)."""
import io
import json

from interpreter.cli import run
from interpreter.runs import _wins


def cli_json(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO())
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


def test_wins_counts_each_winner_of_a_shared_win():
    records = [{"winners": [0], "agents": ["a", "b", "a", "b"]},
               {"winners": [1, 3], "agents": ["a", "b", "a", "b"]},
               {"winners": [], "agents": ["a", "b", "a", "b"]},
               {"winners": [0, 1, 2, 3], "agents": ["a", "b", "a", "b"]}]
    summary = _wins(records, 4)
    assert summary["wins_by_seat"] == {"0": 1, "1": 1, "2": 0, "3": 1}
    assert summary["draws"] == 2 and summary["shared_wins"] == 1
    assert summary["wins_by_agent"]["b"] == {"seats": 8, "wins": 2, "shared": 2}
    assert summary["wins_by_agent"]["a"] == {"seats": 8, "wins": 1, "shared": 0}


def test_simulate_teams_are_winners_together():
    summary = cli_json("simulate", "davos", "-m", "teams", "--players", "4", "--games", "8", "--json")
    assert summary["completed"] == 8 and summary["draws"] == 0 and summary["shared_wins"] == 8
    wins = summary["wins_by_seat"]
    # companions sit across (seat q and q + 2) and win together
    assert wins["0"] == wins["2"] and wins["1"] == wins["3"] and wins["0"] + wins["1"] == 8
    out, err = io.StringIO(), io.StringIO()
    run(["simulate", "davos", "-m", "teams", "--players", "4", "--games", "8"], out, err, io.StringIO())
    assert "draws: 0  shared wins: 8" in out.getvalue()


def test_analyze_teams_are_winners_together(tmp_path):
    report = cli_json("analyze", "davos", "-m", "teams", "--players", "4", "--games", "8", "--json",
                      "--quiet", "--db", str(tmp_path / "t.sqlite"))
    assert report["draws"]["count"] == 0 and report["shared_wins"]["count"] == 8
    seats = report["by_seat"]["rates"]
    assert seats["0"]["wins"] == seats["2"]["wins"] and seats["0"]["wins"] + seats["1"]["wins"] == 8
    # the fair rate is the mean over the positions: 1/2 here, as two of four players win each game
    assert report["metrics"]["first_mover_advantage"]["fair"] == 0.5
