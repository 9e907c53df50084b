"""Cross-checks of the engine on two reference games whose numbers are known independently:
tic-tac-toe (perft, the 255168 complete games, random-play outcome frequencies) and Kuhn poker
(perft through the chance of the deal, hidden cards)."""
import io
import json
import random

import pytest

import interpreter
from interpreter.cli import run
from interpreter.play import perft


@pytest.fixture(scope="module")
def ttt():
    return interpreter.load("tictactoe")


@pytest.fixture(scope="module")
def kuhn():
    return interpreter.load("kuhn-poker")


# ------------------------------------------------------------------ tic-tac-toe
@pytest.mark.parametrize("depth,leaves", [(1, 9), (2, 72), (3, 504), (4, 3024)])
def test_tictactoe_perft(ttt, depth, leaves):
    assert perft(ttt, 2, depth)["leaves"] == leaves


@pytest.mark.slow
def test_tictactoe_all_games(ttt):
    # every complete game (games that end early count once): perft 9 takes ~40 s
    assert perft(ttt, 2, 9)["leaves"] == 255168


def test_tictactoe_random_play_frequencies(ttt):
    """Uniformly random play: X wins 58.5 %, O 28.8 %, draws 12.7 % (exact values 0.5849,
    0.2881, 0.1270). With 2000 games one standard deviation is about 1.1 points."""
    counts = {"x": 0, "o": 0, "draw": 0}
    n = 2000
    for seed in range(n):
        rng = random.Random(seed)
        st = ttt.new_game(players=2, seed=seed)
        while not st.is_terminal:
            assert st.apply(rng.choice(st.legal_actions()))
        w = st.vars["winner"]
        counts["draw" if w is None else ("x" if w == 0 else "o")] += 1
    freq = {k: v / n for k, v in counts.items()}
    assert abs(freq["x"] - 0.585) < 0.035, freq
    assert abs(freq["o"] - 0.288) < 0.035, freq
    assert abs(freq["draw"] - 0.127) < 0.025, freq


# ------------------------------------------------------------------ Kuhn poker
# Hand count: the deal is a shuffle of 3 cards (3 x 2 = 6 outcomes). Per deal: 2 first moves
# (check, bet); 4 two-move lines (cc, cb, bc, bf); 5 complete hands (cc, cbc, cbf, bc, bf).
# perft counts a finished hand as a leaf at every greater depth.
KUHN_PERFT = {0: 6, 1: 12, 2: 24, 3: 30, 4: 30}


@pytest.mark.parametrize("depth", sorted(KUHN_PERFT))
def test_kuhn_perft(kuhn, depth):
    r = perft(kuhn, 2, depth)
    assert r["setups"] == 6 and r["setup"] == "enumerated"
    assert r["leaves"] == KUHN_PERFT[depth]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_kuhn_perft_cli(depth):
    out, err = io.StringIO(), io.StringIO()
    assert run(["perft", "kuhn-poker", "--depth", str(depth)], stdout=out, stderr=err) == 0
    assert f"depth={depth}: {KUHN_PERFT[depth]} leaves" in out.getvalue()
    assert "6 set-up outcome(s)" in out.getvalue()


def _all_states(rs):
    """Every state of every hand: (state, number of actions so far)."""
    from interpreter.play import expand_chance

    roots = list(expand_chance(rs.new_game(2, chance="manual")))
    assert len(roots) == 6
    todo = list(roots)
    while todo:
        st = todo.pop()
        yield st
        for a in st.legal_actions():
            child = st.copy()
            assert child.apply(a)
            todo.append(child)


def test_kuhn_deals_are_all_different(kuhn):
    from interpreter.play import expand_chance

    deals = {tuple(tuple(h) for h in s.vars["hand"])
             for s in expand_chance(kuhn.new_game(2, chance="manual"))}
    assert len(deals) == 6


def test_kuhn_opponent_card_hidden_until_showdown(kuhn):
    leaves = 0
    for st in _all_states(kuhn):
        showdown = st.is_terminal and st.vars["folded"] is None
        for p in (0, 1):
            mine, theirs = st.vars["hand"][p][0], st.vars["hand"][1 - p][0]
            view = st.observe(p)
            assert view["vars"]["hand"][p] == [mine]
            assert view["vars"]["hand"][1 - p] == {"hidden": 1}
            assert view["vars"]["deck"] == {"hidden": 1}
            text = json.dumps(view)
            if showdown:
                assert view["vars"]["shown"][1 - p] == [theirs]
            else:
                assert f'"{theirs}"' not in text, (st.vars["history"], p, text)
        if st.is_terminal:
            leaves += 1
            assert sum(st.vars["chips"]) == 0
            if showdown:
                w = st.winners()[0]
                assert st.vars["hand"][w][0] == max(st.vars["hand"][0][0], st.vars["hand"][1][0],
                                                    key="JQK".index)
    assert leaves == 30


def test_kuhn_payoffs(kuhn):
    st = kuhn.new_game(players=2, seed=0)
    st2 = kuhn.new_game(players=2, seed=0)
    assert [a.label for a in st.legal_actions()] == ["check", "bet 1"]
    for label in ("check", "bet 1", "fold"):
        assert st.apply(label)
    assert st.is_terminal and st.vars["chips"] == [-1, 1] and st.winners() == [1]
    for label in ("bet 1", "call"):
        assert st2.apply(label)
    hi = 0 if "JQK".index(st2.vars["hand"][0][0]) > "JQK".index(st2.vars["hand"][1][0]) else 1
    assert st2.vars["chips"][hi] == 2 and st2.vars["chips"][1 - hi] == -2
