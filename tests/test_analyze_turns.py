"""Game length in turns and rounds: a turn is a maximal run of decisions by one player, a
round is turns / players."""
import interpreter
from interpreter.analyze.metrics import _turns_and_rounds
from interpreter.analyze.runner import RunConfig, play_recorded_game


def test_tictactoe_has_one_turn_per_decision():
    rs = interpreter.load("tictactoe")
    record = play_recorded_game(rs, RunConfig("tictactoe", [], 2, ["random"]), 3)
    assert record["turns"] == record["decisions"] == record["steps"] > 0


def test_rounds_are_turns_per_player():
    out = _turns_and_rounds([{"turns": 8}, {"turns": 12}, {"steps": 3}], 4)
    assert out["mean_turns"] == 10 and out["mean_rounds"] == 2.5
    assert out["rounds"]["min"] == 2 and out["rounds"]["max"] == 3
    assert _turns_and_rounds([{"steps": 3}], 2) == {}
