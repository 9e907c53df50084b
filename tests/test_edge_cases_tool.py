"""tools/edge_cases.py: the developer tool that finds the deck and supply edge cases random games reach."""
import importlib.util
from pathlib import Path

import interpreter

TOOL = Path(__file__).resolve().parent.parent / "tools" / "edge_cases.py"


def load_tool():
    spec = importlib.util.spec_from_file_location("edge_cases", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_deck_that_runs_out_and_is_replaced_is_reported():
    tool = load_tool()
    ruleset = interpreter.load("global-mogul")
    per_player = {name for name, decl in ruleset.vars.items() if decl.per_player}
    events = tool.watch_game(ruleset, 4, 0, per_player)
    # the private A deck runs out at the end of turn 3 and the B deck takes its place
    assert ("pdeck", "emptied") in events and ("pdeck", "refilled") in events
    assert not any(zone in per_player for zone, _ in events)


def test_the_command_prints_one_line_per_event(capsys):
    assert load_tool().main(["global-mogul", "--players", "2", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("global-mogul [base] 2 players, 2 games")
    assert "pdeck_b" in out and "emptied" in out
