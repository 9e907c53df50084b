"""Chance as nodes: `is_chance`, `chance_outcomes`, `apply_chance`, the manual mode of
`new_game`, scenarios that script outcomes, and the history of moves and outcomes."""
import os

import pytest

import interpreter
from interpreter.play import expand_chance
from interpreter.scenario import run_scenarios

DICE = os.path.join(os.path.dirname(__file__), "rulesets", "dice")


@pytest.fixture(scope="module")
def kuhn():
    return interpreter.load("kuhn-poker")


@pytest.fixture(scope="module")
def dice():
    return interpreter.load(DICE)


def test_the_deal_of_kuhn_poker_is_a_chance_node(kuhn):
    state = kuhn.new_game(2, chance="manual")
    assert state.is_chance() and state.current_players == [] and state.legal_actions() == []
    outcomes = state.chance_outcomes()
    assert sorted(card for card, _ in outcomes) == ["J", "K", "Q"]
    assert all(probability == pytest.approx(1 / 3) for _, probability in outcomes)


def test_a_seeded_game_never_stops_at_chance(kuhn):
    state = kuhn.new_game(2, seed=3)
    assert not state.is_chance() and state.chance_outcomes() == []
    assert not state.apply_chance("J") and state.apply_chance("J").code == "no_chance"


def test_forced_outcomes_decide_the_deal(kuhn):
    state = kuhn.new_game(2, chance="manual")
    assert state.apply_chance("K")  # the last card of the deck after the shuffle
    assert state.is_chance() and sorted(o for o, _ in state.chance_outcomes()) == ["J", "Q"]
    assert state.apply_chance("J")
    assert not state.is_chance()
    # the shuffled deck reads Q, J, K: player 0 is dealt Q, player 1 J, K stays in the deck
    assert state.vars["hand"] == [["Q"], ["J"]] and state.vars["deck"] == ["K"]
    assert state.history() == [{"chance": "K"}, {"chance": "J"}]


def test_an_impossible_outcome_is_refused_and_changes_nothing(kuhn):
    state = kuhn.new_game(2, chance="manual")
    before = state.hash()
    outcome = state.apply_chance("A")
    assert not outcome and outcome.code == "not_an_outcome"
    assert state.hash() == before and state.history() == []


def test_an_action_at_a_chance_node_is_refused(kuhn):
    state = kuhn.new_game(2, chance="manual")
    outcome = state.apply({"action": "check", "args": {}})
    assert not outcome and outcome.code == "chance_pending"


def test_every_seeded_deal_is_one_of_the_enumerated_deals(kuhn):
    deals = {tuple(map(tuple, s.vars["hand"])) for s in expand_chance(kuhn.new_game(2, chance="manual"))}
    assert len(deals) == 6
    for seed in range(30):
        assert tuple(map(tuple, kuhn.new_game(2, seed=seed).vars["hand"])) in deals


def test_a_random_pick_in_an_action_is_a_chance_node(dice):
    state = dice.new_game(2, chance="manual")
    assert state.apply_chance(3) and state.apply_chance(1)
    assert state.vars["top"] == 2
    assert state.apply("roll")
    assert state.is_chance() and [o for o, _ in state.chance_outcomes()] == [1, 2, 3, 4, 5, 6]
    assert state.apply_chance(5)
    assert state.vars["rolled"][0] == 7 and state.current_player == 1
    assert [entry.get("chance", entry.get("action", {}).get("action")) for entry in state.history()] == \
        [3, 1, "roll", 5]


def test_a_chance_node_survives_copy_and_json(dice):
    state = dice.new_game(2, chance="manual")
    assert state.apply_chance(2)
    twin = state.copy()
    saved = type(state).from_json(dice, state.to_json())
    for other in (twin, saved):
        assert other.is_chance() and other.chance_outcomes() == state.chance_outcomes()
        assert other.apply_chance(3)
        assert other.vars["deck"] == [1, 3, 2] and other.vars["top"] == 1
    assert twin.hash() == saved.hash()
    assert state.is_chance(), "the original is untouched"


def test_a_scenario_scripts_the_outcomes():
    results = run_scenarios(DICE)
    assert [r.ok for r in results] == [True], [m for r in results for m in r.messages]


def test_a_scenario_whose_outcomes_run_out_says_so(tmp_path):
    import shutil

    folder = tmp_path / "dice"
    shutil.copytree(DICE, folder)
    (folder / "examples" / "roll.yaml").write_text(
        "name: short\nplayers: 2\nchance: [3]\nsteps: [roll]\n", encoding="utf-8")
    results = run_scenarios(str(folder))
    assert not results[0].ok
    assert "used up" in results[0].messages[0]


def test_perft_counts_chance_through_the_public_api(kuhn):
    from interpreter.play import perft

    assert perft(kuhn, 2, 0) == {"depth": 0, "leaves": 6, "nodes": 6, "setups": 6, "setup": "enumerated"}


def test_copies_share_the_history_so_far_and_then_go_their_own_way(kuhn):
    state = kuhn.new_game(2, seed=4)
    first = state.legal_actions()[0]
    assert state.apply(first)
    twin = state.copy()
    assert twin.apply(twin.legal_actions()[0])
    assert len(state.history()) == 1 and len(twin.history()) == 2
    assert twin.history()[0] == state.history()[0] == {"action": first.to_json()}
