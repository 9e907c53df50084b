"""Information sets: `information_state(p)` never holds another player's secret, `determinize`
re-samples every hidden outcome and secret move, and the agents choose the same in two states
that look the same to them (issue 9, items 2 and 3)."""
from __future__ import annotations

import json
import os

import pytest

import interpreter
from interpreter.agents import GreedyAgent, MCTSAgent
from interpreter.state import Action

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name):
    return interpreter.load(os.path.join(HERE, "rulesets", name))


def _hidden_die(die_of_0, die_of_1=3, bid=4):
    """Player 1 to answer player 0's bid; only player 0's secret die differs."""
    state = _load("hidden_die").new_game(2, chance="manual")
    assert state.apply_chance(die_of_0) and state.apply_chance(die_of_1)
    assert state.apply(f"bid {bid}")
    return state


def _sealed_bid(bid_of_0):
    """Both bid at once (a simultaneous phase); player 0 has bid, player 1 is still to bid."""
    state = _load("sealed_bid").new_game(2, seed=0)
    assert state.apply(Action("bid", {"amount": bid_of_0}, 0))
    return state


def _kuhn(card_of_0, card_of_1="Q"):
    """A seeded Kuhn deal with these cards, player 0 has bet: player 1 to act."""
    ruleset = interpreter.load("kuhn-poker")
    for seed in range(200):
        state = ruleset.new_game(2, seed=seed)
        if state.vars["hand"] == [[card_of_0], [card_of_1]]:
            assert state.apply("bet 1")
            return state
    raise AssertionError("no seed deals these cards")


PAIRS = {
    "hidden_die": lambda: (_hidden_die(1), _hidden_die(6)),
    "sealed_bid": lambda: (_sealed_bid(1), _sealed_bid(3)),
    "kuhn": lambda: (_kuhn("J"), _kuhn("K")),
}


@pytest.mark.parametrize("game", sorted(PAIRS))
def test_the_two_states_differ_only_in_a_secret(game):
    first, second = PAIRS[game]()
    assert first.hash() != second.hash()
    assert first.information_state(1) == second.information_state(1)
    assert first.information_state(0) != second.information_state(0)


@pytest.mark.parametrize("game", sorted(PAIRS))
@pytest.mark.parametrize("make", [lambda seed: GreedyAgent(seed), lambda seed: MCTSAgent(seed, iterations=60)],
                         ids=["greedy", "mcts"])
def test_same_information_state_same_choice(game, make):
    """The bar: same seed, same information state -> the same choice, for every seed."""
    first, second = PAIRS[game]()
    for seed in range(6):
        assert make(seed).act(first, 1).key == make(seed).act(second, 1).key


@pytest.mark.parametrize("game", sorted(PAIRS))
def test_determinize_does_not_depend_on_the_secret(game):
    first, second = PAIRS[game]()
    for seed in range(10):
        assert first.determinize(1, seed).to_json() == second.determinize(1, seed).to_json()


def test_determinize_resamples_a_secret_die():
    """The die rolled with `random` into an owner var is drawn anew; player 1's own die and the
    public bid stay as they were."""
    state = _hidden_die(6)
    dice = set()
    for seed in range(60):
        sample = state.determinize(1, seed)
        assert sample.vars["die"][1] == 3 and sample.vars["bid"] == 4
        assert sample.information_state(1) == state.information_state(1)
        dice.add(sample.vars["die"][0])
    assert dice == {1, 2, 3, 4, 5, 6}


def test_determinize_resamples_a_secret_move():
    state = _sealed_bid(3)
    bids = {state.determinize(1, seed).history()[0]["action"]["args"]["amount"] for seed in range(40)}
    assert bids == {1, 2, 3}


def test_determinize_keeps_what_the_player_saw():
    """The acting player's own secret and a seen chance outcome are kept."""
    state = _hidden_die(2)
    for seed in range(20):
        assert state.determinize(0, seed).vars["die"][0] == 2


def test_a_secret_move_reads_as_who_made_which_action():
    state = _sealed_bid(2)
    seen_by_other = state.information_state(1)["history"]
    assert seen_by_other == [{"player": 0, "secret": True, "simultaneous": True}]
    assert "2" not in json.dumps(seen_by_other)
    assert state.information_state(0)["history"][0]["action"]["args"] == {"amount": 2}


def test_hidden_chance_is_hidden_and_a_public_outcome_is_shown():
    state = _load("dice").new_game(2, chance="manual")
    while state.is_chance():
        state.apply_chance(state.chance_outcomes()[0][0])
    assert all(entry == {"chance": "hidden"} for entry in state.information_state(0)["history"])
    state.apply(state.legal_actions()[0])
    state.apply_chance(4)  # player 0's die: written to a public var
    shown = [entry for entry in state.information_state(1)["history"] if entry.get("chance") not in (None, "hidden")]
    assert shown == []  # after the hidden shuffle everything is hidden (when unsure, hide)


def test_information_state_is_plain_data():
    state = _kuhn("J")
    assert json.loads(json.dumps(state.information_state(1))) == state.information_state(1)


def _cli(*argv):
    import io

    from interpreter.cli import run

    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO(""))
    return code, out.getvalue(), err.getvalue()


def test_play_does_not_print_a_sealed_bid(tmp_path):
    """`rulebook play` shows another player only that a sealed bid was made."""
    save = str(tmp_path / "game.json")
    code, out, _ = _cli("play", os.path.join(HERE, "rulesets", "sealed_bid"), "--agents", "random", "--seed", "1",
                        "--save", save)
    assert code == 0
    assert "player 0 (random) has chosen" in out and "player 1 (random) has chosen" in out
    # nothing of a bid shows before both are in (the reveal's log lines after it are public)
    before_reveal = out.split("player 1 (random) has chosen")[0]
    assert "bid 1" not in before_reveal and "bid 2" not in before_reveal and "bid 3" not in before_reveal
    code, shown, _ = _cli("replay", save, "--player", "1")
    assert code == 0 and "player 0: has chosen (at once with others)" in shown
    assert "player 1: bid" in shown  # their own bid, whole
    assert not any(f"bid {amount}" in line for line in shown.splitlines() if "player 0" in line for amount in (1, 2, 3))
    _, whole, _ = _cli("replay", save)
    assert "player 0: bid " in whole  # the full record, for whoever holds the file


# ----------------------------------------------------------------------------- choose answers
def _sealed_by_choice(bid_of_0):
    """Player 0 sealed a bid by answering a `choose`: player 1 to seal theirs."""
    state = interpreter.load(os.path.join(HERE, "rulesets", "secret_bid"), modules=["by_choice"]).new_game(2, seed=0)
    assert state.apply("seal a bid") and state.apply(f"choose {bid_of_0}")
    return state


def test_another_players_choose_answer_is_masked_and_redrawn():
    state = _sealed_by_choice(3)
    seen_by_other = state.information_state(1)["history"]
    assert seen_by_other[1] == {"player": 0, "action": "choose", "secret": True}
    assert state.information_state(0)["history"][1]["action"]["args"] == {"value": 3}  # their own, whole
    assert state.information_state(1) == _sealed_by_choice(1).information_state(1)
    bids = set()
    for seed in range(30):
        sample = state.determinize(1, seed)
        assert sample.information_state(1) == state.information_state(1)
        bids.add(sample.vars["sealed"][0])
    assert bids == {1, 2, 3}


def test_a_choose_answer_the_observation_shows_is_not_masked():
    """Accepting or declining a deal changes public counters: the answer is seen, so it stays
    whole in the other player's history (and a world drawn for them keeps it)."""
    state = _load("deals").new_game(2, seed=0)
    assert state.apply("offer 1 gold to 1 for 1 grain") and state.apply("choose decline")
    assert state.information_state(0)["history"][1]["action"]["args"] == {"value": "decline"}
    for seed in range(5):
        assert state.determinize(0, seed).vars["declined"] == 1


@pytest.mark.parametrize("make", [lambda seed: GreedyAgent(seed), lambda seed: MCTSAgent(seed, iterations=40)],
                         ids=["greedy", "mcts"])
def test_same_choice_when_only_a_choose_answer_differs(make):
    first, second = _sealed_by_choice(1), _sealed_by_choice(3)
    for seed in range(4):
        assert make(seed).act(first, 1).key == make(seed).act(second, 1).key


# ----------------------------------------------------------------------------- bundled rulesets
HIDDEN_INFO = [("davos", 4), ("deep-state", 3), ("global-mogul", 3), ("corporate-times", 3), ("kuhn-poker", 2)]


def _points(name, players, seed, every):
    """States of a seeded random game every `every` moves (the last one too)."""
    import random

    state = interpreter.load(name).new_game(players, seed=seed)
    chooser = random.Random(seed)
    moves = 0
    while not state.is_terminal and moves < 150:
        actions = state.legal_actions()
        state.apply(chooser.choice(actions))
        moves += 1
        if moves % every == 0:
            yield state.copy()


@pytest.mark.parametrize("name,players", HIDDEN_INFO, ids=[name for name, _ in HIDDEN_INFO])
def test_determinized_worlds_are_consistent_with_what_the_player_saw(name, players):
    """A world drawn for p is played again from the history (not re-dealt), and p's
    information state in it is exactly the real one — at several points of seeded games."""
    replayed = 0
    every = 2 if name == "kuhn-poker" else 40 if name == "global-mogul" else 25
    for seed in (1, 2) if name == "kuhn-poker" else (1,):
        for state in _points(name, players, seed, every):
            player = state.current_player if state.current_player is not None else 0
            real = state.information_state(player)
            for sample_seed in (0, 1):
                sample = state.determinize(player, sample_seed)
                assert sample.observe(player) == state.observe(player)
                if sample.replayed:
                    replayed += 1
                    assert sample.information_state(player) == real
    assert replayed >= 2, f"no world of {name} could be played again from its history"
