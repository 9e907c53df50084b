"""A compiled game that keeps no log (`CompiledState.drop_log`, the worlds MCTS searches): the
same game but for its log (the same vars, frames, steps, chance, legal moves, outcomes and undo),
`log`/`log_for` refuse to answer, and a move whose log line alone would fail or exceed the work
bound is made (docs/language.md, `log`; issue 15, MCTS)."""
from __future__ import annotations

import os
import random
import sys

import pytest

import interpreter
from interpreter.agents import MCTSAgent
from interpreter.compiled import played_on
from interpreter.errors import RuleRuntimeError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools", "bench"))
import mcts as mcts_bench  # noqa: E402

# a log line that divides by zero, one that exceeds the work bound, and a plain one
GAME = """\
game: {name: logfail, players: [2], start: s}
phases:
  s: {kind: turns, actions: [divide, pairs, wait], rounds: 2, next: end}
vars: {d: {value: 0}, n: {value: 0}}
actions:
  divide: {effects: ["n += 1", {log: "{10 // d} per player"}]}
  pairs: {effects: ["n += 1", {log: "{len([i * j for i in range(100000) for j in range(100000)])} pairs"}]}
  wait: {effects: ["n += 2", {log: "player {player} waits"}]}
"""


def _without_log(game) -> dict:
    return {key: value for key, value in game.plain().items() if key != "log"}


def _played_alike(kept, searched, rng, most: int) -> int:
    """Up to `most` random moves made in both games, which must stay alike but for the log;
    how many were made."""
    for made in range(most):
        if kept.is_terminal:
            return made
        listed = kept.legal_action_ids()
        assert searched.legal_action_ids() == listed
        chosen = rng.choice(listed)
        assert searched.action_key(chosen) == kept.action_key(chosen)
        assert bool(searched.apply_id(chosen)) == bool(kept.apply_id(chosen))
        assert _without_log(searched) == _without_log(kept) and searched.is_terminal == kept.is_terminal
    return most


@pytest.mark.parametrize("name,players", [("davos", 4), ("deep-state", 3), ("corporate-times", 4)])
def test_a_game_keeping_no_log_is_the_same_game_but_for_its_log(name, players):
    decisions = mcts_bench.decision_states(interpreter, name, players, 4, False)
    for number, (state, player) in enumerate(decisions):
        world = state.determinize(player, 11)
        searched = played_on(world)
        searched.drop_log()
        made = _played_alike(played_on(world), searched, random.Random(number), 40)
        assert searched.undo(made)
        assert searched.hash() == world.hash()  # taken back: the log as it was at the world too
        with pytest.raises(RuleRuntimeError, match="keeps no log"):
            searched.log
        with pytest.raises(RuleRuntimeError, match="keeps no log"):
            searched.copy().log_for(player)


@pytest.fixture
def rules(tmp_path):
    folder = tmp_path / "logfail"
    folder.mkdir()
    (folder / "game.yaml").write_text(GAME)
    return interpreter.load(str(folder), check=False)


def test_a_move_whose_log_line_alone_fails_is_made_in_a_game_keeping_no_log(rules):
    for index, reason in ((0, "division by zero"), (1, "work bound")):
        kept = rules.new_game(2, seed=0, engine="compiled")
        assert type(kept).__name__ == "CompiledState"
        before = kept.hash()
        outcome = kept.apply_id(index)
        assert outcome.code == "rule_error" and reason in outcome.reason and kept.hash() == before
        searched = rules.new_game(2, seed=0, engine="compiled")
        searched.drop_log()
        assert searched.apply_id(index) and searched.vars["n"] == 1 and searched.steps == 1
        assert searched.undo(1) and searched.hash() == before


def test_a_game_keeping_no_log_writes_no_line_and_its_start_is_kept(rules):
    kept = rules.new_game(2, seed=0, engine="compiled")
    searched = rules.new_game(2, seed=0, engine="compiled")
    searched.drop_log()
    start = searched.plain()["log"]
    assert kept.apply_id(2) and searched.apply_id(2)
    assert kept.log == start + ["player 0 waits"]
    assert searched.plain()["log"] == start
    assert _without_log(searched) == _without_log(kept)


def test_mcts_searches_games_keeping_no_log_and_leaves_its_worlds_alone():
    state, player = mcts_bench.decision_states(interpreter, "davos", 4, 1, False)[0]
    agent = MCTSAgent(5, iterations=8, rollout_limit=6)
    worlds = agent._draw_worlds(state, player)
    games = agent._played(worlds)
    assert all(not game.log_kept for game in games)
    assert all(world.log for world in worlds)  # the drawn worlds (kept for later decisions) keep theirs
