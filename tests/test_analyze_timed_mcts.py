"""`mcts:time=SECONDS`: the search starts no iteration once the budget has passed (checked with
a fake clock, never against wall-clock time), runs at least one, and `iterations` caps it."""
import itertools
import types

import interpreter
import interpreter.agents as agents_module
from interpreter.agents import MCTSAgent
from interpreter.analyze.agents import TimedMCTSAgent, build_agent


def iterations_of_one_move(agent):
    state = interpreter.load("tictactoe").new_game(2, seed=0)
    count = itertools.count()
    original = agent._rollout
    def counting_rollout(sample):
        next(count)
        return original(sample)  # how many moves the rollout made (undone by the search)
    agent._rollout = counting_rollout
    agent.act(state, state.current_player)
    return next(count)


def test_budget_stops_the_search_at_the_first_iteration_past_it(monkeypatch):
    clock = itertools.count(1)  # each reading of the clock is one second later
    monkeypatch.setattr(agents_module, "time", types.SimpleNamespace(perf_counter=lambda: float(next(clock))))
    agent = TimedMCTSAgent(seed=1, seconds=5)
    # the move starts at 1 s (budget until 6 s); iterations 1, 2, ... read 2 s, 3 s, ...:
    # iteration 5 reads 6 s and does not start
    assert iterations_of_one_move(agent) == 5


def test_at_least_one_iteration_and_the_cap_still_holds():
    assert iterations_of_one_move(TimedMCTSAgent(seed=1, seconds=1e-12)) == 1
    assert iterations_of_one_move(MCTSAgent(seed=1, iterations=7, seconds=1000.0)) == 7
    assert iterations_of_one_move(MCTSAgent(seed=1, iterations=7)) == 7
    assert isinstance(build_agent("mcts:time=0.05:30", 3), TimedMCTSAgent)
    assert build_agent("mcts:time=0.05:30", 3).rollout_limit == 30
