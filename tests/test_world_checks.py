"""The checks a drawn world's replay makes at each step, made cheaper without changing a world
(docs/performance.md, "MCTS, fifth round (worlds)"): a public move's label read from the move
made rather than by listing the moves first, a plain value compared without writing it as
JSON, and a trajectory's runs of draws worked out once. Each is checked against the way it was
done before, on the same states."""
from __future__ import annotations

import json
import os
import random

import pytest

import interpreter
from interpreter.engine import infosets, world_plan, worlds
from interpreter.engine.labels import label_is_public
from interpreter.engine.world_values import same_value

HERE = os.path.dirname(os.path.abspath(__file__))
GAMES = [("davos", 4), ("kuhn-poker", 2), ("tictactoe", 2), (os.path.join(HERE, "rulesets", "secret_labels"), 2),
         (os.path.join(HERE, "rulesets", "goofspiel"), 2), (os.path.join(HERE, "rulesets", "deals"), 3)]


def _public_move_before(sample, step, player):
    """`worlds._public_move` as it was: the label found among the listed moves first."""
    move = step.entry["action"]
    if (move.get("player") == player or label_is_public(sample.rs, move.get("action"))) \
            and worlds._label_of(sample, move) != move.get("label"):
        return None, None
    after = sample.copy(trial=True)
    if not after.apply(step.entry["action"]):
        return None, worlds.REFUSED
    if not worlds.seen_as(after, player, step):
        return None, worlds.view_text(after, player)
    return after, None


def _entries(state, chooser) -> list:
    """History entries to replay at `state`: every legal move (as recorded, then with another
    label), and moves the state refuses (another seat's move, with its label and another)."""
    entries = []
    for action in state.legal_actions():
        move = action.to_json()
        entries.append(move)
        entries.append(dict(move, label=move["label"] + " (another)"))
        for seat in range(state.num_players):
            if seat != move["player"]:
                entries.append(dict(move, player=seat))
                entries.append(dict(move, player=seat, label="?"))
    chooser.shuffle(entries)
    return entries[:12]


@pytest.mark.parametrize("name,players", GAMES)
def test_a_public_move_is_judged_as_before(name, players):
    """Across random games, every seat's reading of legal and refused moves, recorded labels
    right or wrong, and recorded observations right or wrong: the same answer (REFUSED, None,
    the observation seen instead, or the state after: the same hash)."""
    ruleset = interpreter.load(name)
    checked = {"after": 0, "refused": 0, "label": 0, "seen": 0}
    for seed in range(3):
        state = ruleset.new_game(players, seed=seed)
        chooser = random.Random(seed)
        while not state.is_terminal and state.steps < 60:
            entries = _entries(state, chooser)
            seen = worlds.view_text(state, 0)  # (a recorded observation, mostly not the one after)
            for move in entries:
                for player in range(players):
                    after = state.copy(trial=True)
                    recorded = worlds.view_text(after, player) if after.apply(move) else seen
                    for text in (recorded, seen):
                        step = infosets._Step({"action": move}, text, False)
                        now, before = worlds._public_move(state, step, player), _public_move_before(state, step, player)
                        assert now[1] == before[1]
                        assert (now[0] is None) == (before[0] is None)
                        if now[0] is not None:
                            assert now[0].hash() == before[0].hash()
                            checked["after"] += 1
                        else:
                            checked["refused" if now[1] is worlds.REFUSED else "label" if now[1] is None else "seen"] += 1
            actions = state.legal_actions()
            assert state.apply(actions[chooser.randrange(len(actions))])
    assert checked["after"] and checked["refused"] and checked["label"]


VALUES = ["a", "1", "", "true", "null", 0, 1, -1, 2, True, False, None, 0.0, -0.0, 1.0, 1.5, [1], ["a"], {"a": 1}, (1,)]


def test_plain_values_are_the_same_exactly_when_their_json_is():
    for left in VALUES:
        for right in VALUES:
            as_json = json.dumps(left, sort_keys=True, default=str) == json.dumps(right, sort_keys=True, default=str)
            assert same_value(left, right) == as_json, (left, right)


def test_a_trajectory_works_out_its_runs_of_draws_once():
    state, chooser = interpreter.load("davos").new_game(4, seed=3), random.Random(3)
    for _ in range(8):  # (after the set-up's 46 draws)
        assert state.apply(chooser.choice(state.legal_actions()))
    steps = infosets.trajectory(state, 1)
    assert len(steps) > 50
    first, second = worlds.Plan(steps), worlds.Plan(steps)
    assert first.run_of == world_plan._runs_of(steps) and second.run_of is first.run_of
    assert worlds.Plan(list(steps)).run_of == first.run_of  # a plain list of steps: worked out each time
    shorter = infosets._Steps(steps[:50])
    assert worlds.Plan(shorter).run_of == first.run_of[:50]
    assert first.run_of.count(None) == sum("chance" not in step.entry for step in steps)
    assert len(set(run for run in first.run_of if run is not None)) >= 2  # the set-up's shuffles


def test_seeds_played_on_together_give_the_worlds_each_gives_alone(monkeypatch):
    """`play_on_each` hands a move already tried from the same state to the next seed
    (`worlds.Tried`): every seed's world is the one it gives played on alone (`play_on`, its
    own Tried), and fewer moves are made."""
    ruleset = interpreter.load("davos")
    state = ruleset.new_game(4, seed=5)
    chooser = random.Random(5)
    earlier = {}
    made = {"together": 0, "alone": 0}
    fitting = worlds._fitting
    compared = 0
    while not state.is_terminal and state.steps < 70:
        player = state.legal_actions()[0].player
        if player in earlier:
            counting = {"now": 0}

            def counted(*args):
                counting["now"] += 1
                return fitting(*args)
            monkeypatch.setattr(worlds, "_fitting", counted)
            seeds = list(range(8))
            together = infosets.play_on_each(state, earlier[player], player, seeds)
            made["together"] += counting["now"]
            counting["now"] = 0
            alone = [infosets.play_on(state, earlier[player], player, seed) for seed in seeds]
            made["alone"] += counting["now"]
            monkeypatch.setattr(worlds, "_fitting", fitting)
            for world, own in zip(together, alone):
                assert (world is None) == (own is None)
                if world is not None:
                    assert world.hash() == own.hash() and world.history() == own.history()
                    assert world._world[2].hash() == own._world[2].hash()
                    compared += 1
        earlier[player] = state.determinize(player, state.steps)
        actions = state.legal_actions()
        assert state.apply(actions[chooser.randrange(len(actions))])
    assert compared > 20 and 0 < made["together"] < made["alone"]


class _Untried:
    """worlds.Tried that keeps nothing: every move made again (the earlier way)."""

    def result(self, state, index, key, play):
        return play()


def test_worlds_drawn_with_their_moves_kept_are_the_worlds_drawn_without(monkeypatch):
    """draw_world's repairs and the world search's climbs play again from states kept on the
    way with a `Tried`: along a whole seeded Davos game, every player's worlds (searched ones
    among them) are the ones drawn with every move made again, and the kept moves stay
    bounded (MAX_TRIED, here made small so that the oldest go)."""
    from interpreter.engine import world_search

    searched = []
    search = world_search.search_world
    monkeypatch.setattr(world_search, "search_world", lambda *args: searched.append(1) or search(*args))
    monkeypatch.setattr(worlds, "MAX_TRIED", 16)
    ruleset = interpreter.load("davos")
    state, chooser = ruleset.new_game(4, seed=101), random.Random(1)
    compared = 0
    while not state.is_terminal:
        if state.steps % 6 == 0:
            player = state.legal_actions()[0].player
            kept = [state.determinize(player, seed) for seed in (1, 2)]
            with monkeypatch.context() as plain:
                plain.setattr(worlds, "Tried", _Untried)
                plain.setattr(world_search, "Tried", _Untried)
                again = [state.determinize(player, seed) for seed in (1, 2)]
            for world, other in zip(kept, again):
                assert world.hash() == other.hash() and world.history() == other.history()
                compared += 1
        actions = state.legal_actions()
        assert state.apply(actions[chooser.randrange(len(actions))])
    assert compared > 10 and searched
