"""Global Mogul's market decks over seeded random 4-player games, through the public API.

The rulebook: "Set aside each of the B decks. They will be used at the end of turn 3."; "If the A
market deck is exhausted before the beginning of turn 4, use the B market deck. If the B market deck
is exhausted, shuffle and use all discarded market cards to form a new market deck."; "At the end of
turn 3, before drawing replacement emerging markets, discard the A market deck and use the B market
deck." So no A market is drawn after turn 3 while a B market is still undrawn: an A market can come
back only once the B deck itself has run out and the discards are reshuffled.
"""
import random

import pytest

import interpreter


def late_a_draws(modules, games, first_seed=0):
    """Count the games (of `games`) in which an A market is drawn at the end of turn 3 or later
    while some B market has never been drawn (counting the B markets drawn by the same step: the
    last B cards and, after the reshuffle, the first cards of the new deck are drawn together). Returns (such games, games where the A deck ran out
    before the end of turn 3)."""
    ruleset = interpreter.load("global-mogul", modules=modules)
    deck_of = {m: ruleset.entities[m]["deck"] for m in ruleset.components["market"]}
    b_markets = {m for m, letter in deck_of.items() if letter == "B"}
    bad_games = early_exhaustions = 0
    for seed in range(first_seed, first_seed + games):
        state = ruleset.new_game(players=4, seed=seed)
        chooser = random.Random(seed)
        seen = set(state.vars["emerg"]) | set(state.vars["open_m"])
        bad = exhausted_early = False
        while not state.is_terminal:
            b_set_aside, turn_before = len(state.vars["mdeck_b"]), state.vars["turn"]
            emerging_before = set(state.vars["emerg"])
            state.apply(chooser.choice(state.legal_actions()))
            if b_set_aside and not state.vars["mdeck_b"] and turn_before < 3:
                exhausted_early = True
            drawn = [m for m in state.vars["emerg"] if m not in emerging_before]
            seen |= set(drawn)
            undrawn_b = b_markets - seen
            if state.vars["turn"] >= 4 and undrawn_b and any(deck_of[m] == "A" for m in drawn):
                bad = True
        bad_games += bad
        early_exhaustions += exhausted_early
    return bad_games, early_exhaustions


@pytest.mark.parametrize("modules", [[], ["standard"]], ids=["base", "standard"])
def test_no_a_market_after_turn_3_fast(modules):
    bad, _ = late_a_draws(modules, games=20)
    assert bad == 0


@pytest.mark.slow
@pytest.mark.parametrize("modules", [[], ["standard"]], ids=["base", "standard"])
def test_no_a_market_after_turn_3_200_games(modules):
    bad, early = late_a_draws(modules, games=200)
    assert bad == 0
    # the case the rule is about is reached: the A deck runs out before turn 4 in many games
    assert early > 0


def test_completed_contracts_show_their_number_not_their_vps():
    """"All money, resources and the number of completed contracts (but not the VPs awarded) are
    visible to all players." (Other Rules) Played at random until a contract is completed: its owner
    sees their own face-down contracts, the others see how many there are, and the log does not
    name it."""
    ruleset = interpreter.load("global-mogul")
    state = ruleset.new_game(players=3, seed=4)
    chooser = random.Random(4)
    while not state.is_terminal and not any(state.vars["priv_done"] + state.vars["gov_done"]):
        state.apply(chooser.choice(state.legal_actions()))
    owner = next(p for p in range(3) if state.vars["priv_done"][p] + state.vars["gov_done"][p])
    other = (owner + 1) % 3
    done = state.vars["priv_done"][owner] + state.vars["gov_done"][owner]
    mine, theirs = state.observe(owner)["vars"], state.observe(other)["vars"]
    for name in ("priv_done", "gov_done"):
        assert mine[name][owner] == state.vars[name][owner]
        assert theirs[name][owner] == {"hidden": len(state.vars[name][owner])}
    assert theirs["cash"] == mine["cash"] and theirs["res"] == mine["res"]
    names = [ruleset.entities[c]["name"] for c in done]
    assert not any(f"completes {name}" in line for line in state.log for name in names)
