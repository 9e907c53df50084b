"""Simultaneous moves (issue 9, item 2): a phase where every player chooses at once
(tests/rulesets/sealed_bid, tests/rulesets/goofspiel), a `choose` of several players at once
(tests/rulesets/draft), and log lines only some players read (tests/rulesets/secret_note).

The contract: `current_players` lists every player still to choose; each applies their own
move, in any order; nothing of a choice shows to another player (observe, information_state,
log, labels, `rulebook play`, `rulebook replay --player`) until all are in and the rules
reveal it; a move by a player who has chosen already, or that does not say whose it is, is
refused with the state unchanged."""
from __future__ import annotations

import io
import json
import os
import random

import pytest

import interpreter
from interpreter.agents import GreedyAgent, MCTSAgent, RandomAgent
from interpreter.state import Action, State

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name):
    return interpreter.load(os.path.join(HERE, "rulesets", name))


def _bid(amount, player):
    return Action("bid", {"amount": amount}, player)


def _cli(*argv):
    from interpreter.cli import run

    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO(""))
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ the sealed bid
def test_every_bidder_is_current_and_each_lists_their_own_moves():
    state = _load("sealed_bid").new_game(3, seed=0)
    assert state.current_players == [0, 1, 2] and state.is_simultaneous()
    assert [action.label for action in state.legal_actions(1)] == ["bid 1", "bid 2", "bid 3"]
    assert {action.player for action in state.legal_actions(1)} == {1}
    assert len(state.legal_actions()) == 9  # every seat's moves, each with its player


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_bids_resolve_only_when_all_are_in_in_any_order(order):
    state = _load("sealed_bid").new_game(2, seed=0)
    amounts = {0: 3, 1: 1}
    first, second = order
    assert state.apply(_bid(amounts[first], first))
    assert state.current_players == [second]
    assert state.vars["shown"] == [0, 0] and state.vars["gain"] == [0, 0]  # nothing resolved yet
    assert state.apply(_bid(amounts[second], second))
    assert state.is_terminal
    assert state.vars["shown"] == [3, 1] and state.vars["gain"] == [0, 0]  # 3 - 3: the winner pays it all
    assert state.log[-2:] == ["player 0 bid 3", "player 1 bid 1"]  # effects run in seat order


def test_a_second_bid_and_an_ambiguous_move_are_refused_and_change_nothing():
    state = _load("sealed_bid").new_game(3, seed=0)
    before = state.to_json()
    outcome = state.apply("bid 2")  # a label every bidder has: whose is it?
    assert not outcome and outcome.code == "which_player"
    assert state.apply(_bid(2, 0))
    before = state.to_json()
    outcome = state.apply(_bid(3, 0))
    assert not outcome and outcome.code == "already_chosen" and "1, 2" in outcome.reason
    outcome = state.apply(Action("bid", {"amount": 7}, 1))
    assert not outcome and outcome.code == "bad_parameter"
    assert state.to_json() == before
    assert state.current_players == [1, 2]


def test_the_second_bidder_cannot_see_the_first_bid_by_any_api_path():
    rules = _load("sealed_bid")
    worlds = []
    for amount in (1, 3):
        state = rules.new_game(2, seed=0)
        assert state.apply(_bid(amount, 0))
        worlds.append(state)
    low, high = worlds
    assert low.hash() != high.hash()  # the bids differ ...
    assert low.observe(1) == high.observe(1)  # ... and nothing player 1 can read does
    assert low.information_state(1) == high.information_state(1)
    assert low.log_for(1) == high.log_for(1) and low.log == high.log
    assert [(a.label, a.player) for a in low.legal_actions(1)] == [(a.label, a.player) for a in high.legal_actions(1)]
    assert low.information_state(1)["history"] == [{"player": 0, "secret": True, "simultaneous": True}]
    assert "3" not in json.dumps(high.information_state(1)["history"])
    assert high.information_state(0)["history"][0]["action"]["args"] == {"amount": 3}  # their own, whole


def test_play_and_replay_do_not_print_a_bid_before_all_are_in(tmp_path):
    save = str(tmp_path / "game.json")
    code, out, _ = _cli("play", os.path.join(HERE, "rulesets", "sealed_bid"), "--agents", "random", "--seed", "4",
                        "--save", save)
    assert code == 0
    first, second = out.splitlines()[:2]  # the seat's name from the view may come first
    assert first.endswith("player 0 (random) has chosen") and second.endswith("player 1 (random) has chosen")
    assert "bid" not in first + second
    code, shown, _ = _cli("replay", save, "--player", "1")
    assert code == 0
    lines = shown.splitlines()
    assert lines[0] == "   1. player 0: has chosen (at once with others)"
    assert lines[1].startswith("   2. player 1: bid ")  # their own move, whole


def test_a_save_in_the_middle_of_a_round_resumes_and_replays():
    rules = _load("sealed_bid")
    state = rules.new_game(2, seed=0)
    assert state.apply(_bid(2, 1))
    resumed = State.from_json(rules, state.to_json())
    assert resumed.current_players == [0] and resumed.hash() == state.hash()
    assert resumed.apply(_bid(3, 0)) and resumed.vars["gain"] == [0, 0] and resumed.vars["shown"] == [3, 2]
    again = State.from_history(rules, 2, resumed.history())
    assert again.hash() == resumed.hash()


def test_a_damaged_simultaneous_round_in_a_save_is_refused():
    from interpreter.state import SaveError

    rules = _load("sealed_bid")
    state = rules.new_game(2, seed=0)
    assert state.apply(_bid(2, 1))
    saved = json.loads(state.to_json())
    saved["state"]["stack"][-1]["sim"]["chosen"][0][1] = "no_such_action"
    with pytest.raises(SaveError, match="simultaneous round"):
        State.from_json(rules, json.dumps(saved))


def test_determinize_draws_the_other_bid_anew():
    state = _load("sealed_bid").new_game(2, seed=0)
    assert state.apply(_bid(3, 0))
    drawn = {state.determinize(1, seed).history()[0]["action"]["args"]["amount"] for seed in range(40)}
    assert drawn == {1, 2, 3}


# ------------------------------------------------------------------ Goofspiel
def test_goofspiel_rounds_compare_the_bids_of_the_round():
    state = _load("goofspiel").new_game(2, seed=5)
    prizes, expected = [], [0, 0]
    while not state.is_terminal:
        prize = state.vars["prize"]
        prizes.append(prize)
        assert state.current_players == [0, 1]
        high, low = max(state.vars["hand"][1]), min(state.vars["hand"][0])
        assert state.apply(Action("play_card", {"card": high}, 1))  # player 1 bids high, player 0 low
        assert state.vars["points"] == expected  # nothing resolved before both are in
        assert state.apply(Action("play_card", {"card": low}, 0))
        if high != low:
            expected[0 if low > high else 1] += prize
        assert state.vars["points"] == expected
    assert sorted(prizes) == [1, 2, 3, 4, 5]
    assert state.vars["spent"] == [[5, 4, 3, 2, 1], [1, 2, 3, 4, 5]]  # moved to the top, last first


def test_goofspiel_ties_discard_the_prize():
    state = _load("goofspiel").new_game(2, seed=5)
    while not state.is_terminal:
        card = state.vars["hand"][0][0]
        assert state.apply(Action("play_card", {"card": card}, 0))
        assert state.apply(Action("play_card", {"card": card}, 1))
    assert state.vars["points"] == [0, 0]
    assert "a tie for the prize" in state.log[-1]


@pytest.mark.parametrize("name", ["sealed_bid", "goofspiel", "draft"])
@pytest.mark.parametrize("make", [RandomAgent, GreedyAgent, lambda seed: MCTSAgent(seed, iterations=30)],
                         ids=["random", "greedy", "mcts"])
def test_agents_play_simultaneous_games_to_the_end(name, make):
    state = _load(name).new_game(2, seed=2)
    agents = [make(seat) for seat in range(2)]
    while not state.is_terminal:
        for player in state.current_players:  # each player asked for their own choice
            action = agents[player].act(state, player)
            assert action.player == player
            assert state.apply(action)
            break
    assert state.winners()


def test_simulate_runs_a_simultaneous_game():
    code, out, _ = _cli("simulate", os.path.join(HERE, "rulesets", "goofspiel"), "--games", "6",
                        "--agents", "greedy,random", "--seed", "1")
    assert code == 0
    assert "completed: 6  errors: 0" in out


# ------------------------------------------------------------------ a choose of several players
def test_a_draft_asks_every_player_at_once_and_binds_a_list_by_seat():
    state = _load("draft").new_game(2, seed=3)
    packs = [list(pack) for pack in state.vars["packs"]]
    assert state.current_players == [0, 1] and state.is_simultaneous()
    assert [action.label for action in state.legal_actions(0)] == [f"keep {card}" for card in packs[0]]
    view = state.observe(1)["pending"]
    assert view["options"] == packs[1] and view["players"] == [0, 1]
    assert state.apply(Action("choose", {"value": packs[0][2]}, 0))
    assert state.observe(1)["pending"]["options"] == packs[1]
    assert state.observe(0)["pending"]["options"] == {"hidden": True}  # answered: nothing more to choose
    outcome = state.apply(Action("choose", {"value": packs[0][1]}, 0))
    assert not outcome and outcome.code == "already_chosen"
    assert state.apply(Action("choose", {"value": packs[1][0]}, 1))
    assert state.vars["hand"] == [[packs[0][2]], [packs[1][0]]]
    # the rest passed to the left: player 1 now holds what player 0 did not keep
    assert sorted(state.vars["packs"][1]) == sorted(card for card in packs[0] if card != packs[0][2])


def test_a_draft_choice_is_never_seen_by_the_other_player():
    rules = _load("draft")
    worlds = []
    for index in (0, 2):
        state = rules.new_game(2, seed=3)
        assert state.apply(Action("choose", {"value": state.vars["packs"][0][index]}, 0))
        worlds.append(state)
    first, second = worlds
    assert first.hash() != second.hash()
    assert first.observe(1) == second.observe(1)
    assert first.information_state(1) == second.information_state(1)
    assert [a.label for a in first.legal_actions(1)] == [a.label for a in second.legal_actions(1)]


# ------------------------------------------------------------------ log lines for some players only
def test_a_log_line_to_one_player_reads_as_private_to_the_others():
    state = _load("draft").new_game(2, seed=3)
    kept = [state.vars["packs"][0][0], state.vars["packs"][1][0]]
    assert state.apply(Action("choose", {"value": kept[0]}, 0))
    assert state.apply(Action("choose", {"value": kept[1]}, 1))
    assert f"you keep {kept[0]}" in state.log_for(0) and f"you keep {kept[1]}" not in state.log_for(0)
    assert f"you keep {kept[1]}" in state.log_for(1) and f"you keep {kept[0]}" not in state.log_for(1)
    assert not any("you keep" in line for line in state.log)
    assert len(state.log) == len(state.log_for(0)) == len(state.log_for(1))


def test_a_secret_move_writes_its_log_lines_for_its_player_only():
    state = _load("secret_note").new_game(2, seed=0)
    assert state.apply("write 2")
    assert "player 0 writes 2" in state.log_for(0)
    assert "player 0 writes 2" not in state.log_for(1) and "(a private line)" in state.log_for(1)
    assert not any("writes" in line for line in state.log)
    assert json.loads(state.to_json())  # still plain data


def test_play_shows_a_human_only_their_own_log_lines():
    from interpreter.cli import run

    out = io.StringIO()
    code = run(["play", os.path.join(HERE, "rulesets", "secret_note"), "--agents", "random,human", "--seed", "1",
                "--save", os.devnull], out, io.StringIO(), io.StringIO("0\n"))
    assert code == 0
    text = out.getvalue()
    assert "writes" not in text.split("player 1>")[0]  # player 0's note never reaches player 1's screen


# ------------------------------------------------------------------ the language
def test_a_simultaneous_phase_with_the_settings_of_one_players_turn_is_an_error(tmp_path):
    from interpreter.errors import RulebookError

    folder = tmp_path / "bad"
    folder.mkdir()
    text = (open(os.path.join(HERE, "rulesets", "sealed_bid", "game.yaml")).read()
            .replace("    rounds: 1\n", "    rounds: 1\n    actions_per_turn: 2\n"))
    (folder / "game.yaml").write_text(text)
    with pytest.raises(RulebookError) as caught:
        interpreter.load(str(folder))
    assert "'actions_per_turn' has no meaning in simultaneous phase 'bidding'" in str(caught.value)


def test_conformance_passes_on_the_simultaneous_rulesets():
    from interpreter.conformance import check_conformance

    for name in ("sealed_bid", "goofspiel", "draft", "secret_note"):
        report = check_conformance(os.path.join(HERE, "rulesets", name), games=3)
        assert report.ok, (name, report)
