"""Davos's heuristic counts the GOALS met once and takes the others as the rest: the same value,
for every seat, as the form that checks `meets` both ways, on the positions of seeded games
through both engines (MCTS judges every cut rollout by it; issue 15)."""
from __future__ import annotations

import random
import shutil

import interpreter
from interpreter.engine.state import State

BOTH_WAYS = ("3 * len(reached[p]) + 2 * count(g for g in goals[p] if meets(p, g)) - "
             "count(g for g in goals[p] if not meets(p, g)) + 0.1 * (assets[p] + on_board(team[p]))")


def test_the_heuristic_is_the_value_of_counting_both_ways(tmp_path):
    folder = tmp_path / "davos"
    shutil.copytree(interpreter.load("davos").folder, folder)
    game_file = folder / "game.yaml"
    lines = game_file.read_text().splitlines()
    lines = [f'  heuristic: "{BOTH_WAYS}"' if line.startswith("  heuristic:") else line for line in lines]
    game_file.write_text("\n".join(lines) + "\n")
    ruleset, both_ways = interpreter.load("davos"), interpreter.load(str(folder))
    assert both_ways.heuristic.source == BOTH_WAYS != ruleset.heuristic.source
    compared = 0
    for seed in range(3):
        for engine in ("reference", "compiled"):
            state = ruleset.new_game(4, seed=seed, engine=engine)
            rng = random.Random(seed)
            while not state.is_terminal:
                for seat in range(4):
                    names = {"p": seat, "player": seat}
                    value = state.evaluate(ruleset.heuristic, names)
                    assert value == state.evaluate(both_ways.heuristic, names) and type(value) is float
                    compared += 1
                state.apply_id(rng.choice(state.legal_action_ids()))
            assert engine == "reference" or not isinstance(state, State)
    assert compared > 1000
