"""OpenSpiel's perfect-recall information string never shows another player's secret move:
only that one was made (tests/rulesets/secret_bid: bids are `secret: true`, made in turn; the
simultaneous sealed bid is in test_adapters_openspiel_simultaneous.py)."""
import os

import pytest

pyspiel = pytest.importorskip("pyspiel")

from interpreter.adapters.openspiel import register  # noqa: E402

HERE = os.path.dirname(__file__)


def test_a_sealed_bid_reads_as_secret_to_the_other_player():
    game = pyspiel.load_game(register(os.path.join(HERE, "rulesets", "secret_bid"), players=2,
                                      name="python_rulebook_secret_bid_secrets"))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    bidder = state.current_player()
    other = 1 - bidder
    bids = state.legal_actions()
    views = []
    for bid in bids[:2]:
        child = state.clone()
        child.apply_action(bid)
        views.append(child.information_state_string(other))
        assert '"secret"' in views[-1]
    assert views[0] == views[1]  # the other player cannot tell the two bids apart


def test_a_sealed_bid_is_not_in_the_other_players_information_state_tensor():
    game = pyspiel.load_game(register(os.path.join(HERE, "rulesets", "secret_bid"), players=2,
                                      name="python_rulebook_secret_bid_secrets"))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    bidder = state.current_player()
    children = []
    for bid in state.legal_actions()[:2]:
        child = state.clone()
        child.apply_action(bid)
        children.append(child)
    assert children[0].information_state_tensor(1 - bidder) == children[1].information_state_tensor(1 - bidder)
    assert children[0].information_state_tensor(bidder) != children[1].information_state_tensor(bidder)
