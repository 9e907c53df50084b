"""One small ruleset per mechanism the bundled rulebooks need (tests/rulesets/<name>; each file's header
says which rulebooks use it), each checked for what the mechanism must do, through the Python API only."""
import json
import os

import pytest

import interpreter
from interpreter.errors import RulebookError
from interpreter.state import Action, State

HERE = os.path.join(os.path.dirname(__file__), "rulesets")
_CACHE: dict = {}


def ruleset(name, modules=()):
    key = (name, tuple(modules))
    if key not in _CACHE:
        _CACHE[key] = interpreter.load(os.path.join(HERE, name), modules=modules)
    return _CACHE[key]


def game(name, players, seed=1, modules=()):
    return ruleset(name, modules).new_game(players=players, seed=seed)


def do(st, label):
    """Apply the legal action with this label; fail loudly otherwise."""
    labels = [a.label for a in st.legal_actions()]
    assert label in labels, f"{label!r} not legal; legal: {labels}"
    out = st.apply(label)
    assert out, out
    return st


def names(st):
    return sorted({a.name for a in st.legal_actions()})


def poke(st, **values):
    """A copy of the state with some vars replaced (through the JSON form, as a saved game)."""
    d = json.loads(st.to_json())
    d["state"]["vars"].update(values)
    return State.from_json(st.rs, json.dumps(d))


def refused(st, action, code):
    before = st.hash()
    out = st.apply(action)
    assert not out, f"{action} was accepted"
    assert out.code == code, (out.code, out.reason)
    assert out.reason
    assert st.hash() == before, "a refused action changed the state"


def play_out(st, limit=10_000):
    """Finish a game with the first legal action each time."""
    for _ in range(limit):
        if st.is_terminal:
            return st
        assert st.apply(st.legal_actions()[0])
    raise AssertionError("game did not end")


@pytest.mark.parametrize("name", sorted(os.listdir(HERE)))
def test_every_mechanism_ruleset_validates_and_plays(name):
    rs = ruleset(name)
    for n in rs.players:
        st = play_out(rs.new_game(players=n, seed=2), limit=20_000)
        assert st.is_terminal and st.winners()


# ------------------------------------------------------------------ §2 fixed rounds
def test_fixed_rounds_last_round_is_different():
    st = game("fixed_rounds", 2)
    for year in (1, 2, 3):
        assert st.vars["year"] == year and st.phase == "year"
        assert st.rs.phases[st.phase].actions == ("earn", "build") and "earn" in names(st)
        do(st, "earn")
        do(st, "earn")
    # year 3 goes to FINAL, which offers other actions, then COUNT ends the game
    assert st.phase == "final" and names(st) == ["cash_in"]
    assert st.vars["deck_age"] == "B", "the deck switched after the middle year"
    assert st.vars["coins"] == [6, 6], "1 + 3 earned + 2 income between years"
    do(st, "cash in 6")
    assert not st.is_terminal
    do(st, "cash in 0")
    assert st.is_terminal and st.vars["counted"] and st.vars["year"] == 3
    assert st.scores()[0]["rows"] == {"built": 0, "cashed": 6}
    assert st.winners() == [0]


# ------------------------------------------------------------------ §2 pass round-robin
def test_pass_round_robin_first_passer_and_last_player():
    st = game("pass_round_robin", 3)
    assert st.current_players == [0]
    do(st, "place")
    do(st, "pass")  # player 1 passes first
    assert st.vars["start_player"] == 1 and st.vars["coins"] == [1, 2, 1], "first passer gains 1"
    assert st.current_players == [2]
    do(st, "place")
    assert st.current_players == [0]
    do(st, "pass")  # player 0 passes second: no gain
    assert st.vars["coins"] == [1, 2, 1]
    # player 2 is the last player left: one free turn, then 1 per extra turn
    assert st.current_players == [2]
    do(st, "place")
    assert st.vars["coins"][2] == 1 and st.current_players == [2], "passed players never return"
    broke = poke(st, coins=[1, 2, 0])
    refused(broke, Action("place", {}, 2), "cannot_pay")
    assert [a.label for a in broke.legal_actions()] == ["pass"]
    do(st, "place")
    assert st.vars["coins"][2] == 0 and st.vars["reserve"][2] == 0
    assert [a.label for a in st.legal_actions()] == ["pass"]
    do(st, "pass")
    # next year: the first passer starts
    assert st.vars["year"] == 2 and st.current_players == [1]
    assert st.vars["passed"] == [False, False, False]


def test_pass_round_robin_passing_is_a_turn_and_is_final():
    st = game("pass_round_robin", 2)
    do(st, "pass")
    assert st.vars["start_player"] == 0 and st.vars["coins"] == [2, 1]
    do(st, "place")              # free
    assert st.vars["coins"] == [2, 1] and st.current_players == [1]
    do(st, "place")              # pays 1
    assert st.vars["coins"] == [2, 0] and st.current_players == [1]
    assert [a.label for a in st.legal_actions()] == ["pass"], "cannot pay for a third turn"
    do(st, "pass")
    assert st.vars["year"] == 2 and st.current_players == [0]


# ------------------------------------------------------------------ §2 curator
def test_curator_restricted_first_player_and_rotating_token():
    st = game("curator", 3)
    assert st.vars["curator"] == 0 and st.current_players == [0]
    assert st.vars["agents"] == [3, 1, 1], "the token grants 2 recruits"
    labels = [a.label for a in st.legal_actions()]
    assert labels == ["place 1 on safehouse", "place 1 on archive"]
    refused(st, Action("place", {"o": "embassy"}, 0), "curator_restricted")
    do(st, "place 1 on archive")
    # the others are not restricted, only by their agents
    refused(st, Action("place", {"o": "embassy"}, 1), "no_agents")
    do(st, "place 1 on safehouse")
    # "if you can act you must": pass only when nothing else is possible
    refused(st, Action("pass", {}, 2), "must_act")
    stuck = poke(st, agents=[2, 0, 0])
    assert [a.name for a in stuck.legal_actions()] == ["pass"]
    do(st, "place 1 on archive")
    # round 2: the token moved left and granted its recruits
    assert st.vars["curator"] == 1 and st.vars["round_no"] == 2
    assert st.current_players == [1] and st.vars["recruited"] == [2, 2, 0]
    assert st.vars["agents"][1] == 2
    refused(st, Action("place", {"o": "embassy"}, 1), "curator_restricted")


# ------------------------------------------------------------------ §2 action markers
def test_action_markers_counts_once_per_turn_and_reserved_order():
    st = game("action_markers", 3)
    assert st.vars["markers"] == [3, 3, 4], "players with different counts"
    do(st, "claim_last")          # p0
    do(st, "claim_first")         # p1
    refused(st, Action("act", {"kind": "claim_first"}, 2), "taken")
    do(st, "produce")             # p2
    do(st, "produce")             # p0
    do(st, "produce")             # p1
    do(st, "sell")                # p2
    refused(st, Action("act", {"kind": "produce"}, 0), "already_used")
    do(st, "build")               # p0: 3 markers used
    do(st, "build")               # p1: 3 markers used
    assert st.current_players == [2], "players out of markers are passed over"
    do(st, "build")               # p2: 3rd
    # p2 has a 4th marker, but produce, sell and build are used and both reservations are
    # taken: p2 cannot act, nobody else has markers, so the turn ends
    assert st.vars["turn_no"] == 2 and st.vars["left"] == [3, 3, 4]
    # next turn: the reserved first player starts, the reserved last player comes last
    assert st.vars["next_first"] == 1 and st.vars["next_last"] == 0
    seen = []
    while len(seen) < 3:
        seen.append(st.current_players[0])
        assert st.apply(st.legal_actions()[0])
    assert seen == [1, 2, 0]


# ------------------------------------------------------------------ §2 sub-turns
def test_subturns_news_banking_purchasing_order():
    st = game("subturns", 3)
    assert st.phase == "news_phase" and st.current_players == [0]
    do(st, "read the news")
    assert st.phase == "banking" and st.current_players == [0]
    do(st, "no_loan")
    assert st.phase == "purchasing" and st.current_players == [0]
    do(st, "stop")
    assert st.phase == "news_phase" and st.current_players == [1]
    assert st.vars["trace"] == [["news", 0], ["banking", 0], ["purchasing", 0], ["news", 1]]


def test_subturns_last_round_ends_before_first_players_next_turn():
    st = game("subturns", 3)
    st = poke(st, influence=[0, 19, 0], cash=[3, 10, 3])
    for label in ("read the news", "no_loan", "stop"):  # player 0
        do(st, label)
    do(st, "read the news")  # player 1 reaches 20
    do(st, "no_loan")
    do(st, "buy 1 influence")
    assert st.vars["influence"][1] == 20 and not st.is_terminal
    do(st, "stop")
    # the round is finished by player 2
    assert st.current_players == [2] and not st.is_terminal
    for label in ("read the news", "no_loan", "stop"):
        do(st, label)
    assert st.is_terminal, "the game ends before player 0 plays again"
    assert st.vars["trace"][-1] == ["purchasing", 2] and st.vars["round_no"] == 1
    assert st.winners() == [1]


# ------------------------------------------------------------------ §2 auction sub-phase
def test_auction_clockwise_min_raise_pass_out_and_return():
    st = game("auction", 3)
    assert st.phase == "market" and st.current_players == [0]
    do(st, "auction mine")
    assert st.phase == "bidding" and st.current_players == [1], "bidding starts left of the seller"
    assert [a.label for a in st.legal_actions()][:3] == ["bid 10", "bid 20", "bid 30"]
    do(st, "bid 10")
    assert st.current_players == [2]
    refused(st, Action("bid", {"amount": 10}, 2), "bad_parameter")  # the minimum raise is 10
    refused(st, Action("bid", {"amount": 25}, 2), "bad_parameter")
    do(st, "pass")
    assert st.current_players == [0]
    do(st, "bid 30")
    assert st.current_players == [1], "a player who passed is out of the auction"
    do(st, "pass")
    # back where the auction was entered: the rest of the seller's action ran, then the
    # market phase goes on with the player after the seller
    assert st.phase == "market" and st.current_players == [1]
    assert st.vars["after_auction"] == ["market"]
    assert st.vars["owned"][0] == ["mine"] and st.vars["cash"] == [20, 50, 50]
    assert "mine" not in st.vars["for_sale"] and st.vars["lot"] is None


def test_auction_nobody_bids():
    st = game("auction", 2)
    do(st, "auction port")
    do(st, "pass")
    do(st, "pass")
    assert st.phase == "market" and st.current_players == [1]
    assert st.vars["for_sale"][-1] == "port" and st.vars["owned"] == [[], []]


# ------------------------------------------------------------------ §2 reaction window
def test_reaction_window_open_to_passed_players():
    st = game("reaction_window", 3)
    assert st.vars["reactions"][1] == ["fake_news", "hypnotize"]
    do(st, "play grab")                       # p0
    assert st.phase == "react" and st.current_players == [1]
    do(st, "decline")
    do(st, "decline")
    assert st.phase == "main" and st.vars["power"][0] == 2
    do(st, "pass")                            # p1 passes
    assert st.current_players == [2]
    do(st, "play steal")                      # p2
    assert st.current_players == [0]
    do(st, "decline")
    assert st.current_players == [1], "a passed player may still react"
    do(st, "answer with fake_news")
    assert st.phase == "main" and st.vars["power"][2] == 0, "FAKE NEWS blocks the card"
    assert st.vars["resolved"][-1] == ["steal", 0]
    assert st.current_players == [0], "the main round goes on, passed players skipped"
    do(st, "play steal")
    assert st.current_players == [1]
    do(st, "answer with hypnotize")
    assert st.phase == "main", "the first answer closes the window"
    assert st.vars["power"][0] == 2 + 2 * 3, "HYPNOTIZE repeats the card"
    hidden = st.observe(0)["vars"]["reactions"][1]
    assert hidden == {"hidden": 0}


# ------------------------------------------------------------------ §2 votes
def _vote(stake, stances, players=3):
    st = game("vote", players)
    while st.phase == "lobby":
        do(st, "lobby greens")
    st = poke(st, stake=stake)
    for s in stances:
        do(st, "yes" if s else "no")
    assert st.is_terminal
    return st.vars["result"], st.vars["yes_weight"], st.vars["no_weight"]


def test_vote_biggest_owner_decides_neutral_votes_by_ideology_tie_abstains():
    # reds: neutral and p0 tied -> they disagree -> abstain; greens: p1 biggest, largest (1.5);
    # blues: neutral biggest, right-wing -> against a left bill
    r = _vote({"reds": {"neutral": 1, "0": 1}, "greens": {"1": 3}, "blues": {"neutral": 1}},
              [False, True, False])
    assert r == (True, 1.5, 1)


def test_vote_draw_fails_and_tied_largest_weigh_one():
    r = _vote({"reds": {"0": 2}, "greens": {"1": 2}, "blues": {}}, [False, True, True])
    assert r == (False, 1, 1)


def test_vote_tie_with_unanimity_votes():
    r = _vote({"reds": {"0": 1, "2": 1}, "greens": {}, "blues": {"neutral": 1}}, [True, False, True])
    assert r == (True, 1.5, 1)
    r = _vote({"reds": {"0": 1, "2": 1}, "greens": {}, "blues": {"neutral": 1}}, [True, False, False])
    assert r == (False, 0, 1)


# ------------------------------------------------------------------ §1 zones
def test_zones_row_slides_and_only_first_three_are_available():
    st = game("zones", 2)
    row, deck = list(st.vars["row"]), list(st.vars["deck"])
    assert len(row) == 5 and len(deck) == 3
    assert [a.label for a in st.legal_actions() if a.name == "take"] == [f"take {c}" for c in row[:3]]
    refused(st, Action("take", {"i": 3}, 0), "bad_parameter")
    do(st, f"take {row[1]}")
    assert st.vars["hand"][0] == [row[1]]
    assert st.vars["row"] == [row[0], row[2], row[3], row[4], deck[0]]


def test_zones_reshuffle_when_empty_and_visibility():
    st = game("zones", 2)
    deck = list(st.vars["deck"])
    st = poke(st, deck=[], discard=deck)
    do(st, f"take {st.vars['row'][0]}")
    assert st.vars["reshuffles"] == 1 and st.vars["discard"] == []
    assert len(st.vars["deck"]) == 2 and st.vars["row"][-1] in deck
    card = st.vars["hand"][0][0]
    do(st, f"take {st.vars['row'][0]}")   # p1
    do(st, f"lay {card} face down")       # p0
    seen_by_1 = st.observe(1)["vars"]
    assert seen_by_1["face_down"][0] == {"hidden": 1}
    assert seen_by_1["hand"][0] == {"hidden": 0} and seen_by_1["hand"][1] == st.vars["hand"][1]
    assert seen_by_1["deck"] == {"hidden": 1}
    assert st.observe(0)["vars"]["face_down"][0] == [card]
    do(st, f"lay {st.vars['hand'][1][0]} face down")
    do(st, f"reveal {card}")
    assert st.observe(1)["vars"]["face_up"][0] == [card]


# ------------------------------------------------------------------ §1/§3 tokens, biggest
def test_tokens_biggest_single_and_combined_with_neutral():
    st = game("tokens", 3)
    do(st, "invest in sun")
    assert st.vars["stake"]["sun"] == {"0": 1} and st.vars["reserve"][0] == 3
    st = poke(st, stake={"oil": {"neutral": 2, "0": 2}, "sun": {"1": 1},
                         "pill": {"neutral": 1, "2": 1}, "lab": {"2": 1}})
    rows = {p: s["rows"] for p, s in st.scores().items()}
    # oil: tie -> nobody; sun: p1; energy (2+0+1 vs 2): tie neutral/p0 -> nobody
    # pill: tie -> nobody; lab: p2; pharma: p2 (2 vs neutral 1)
    assert rows == {0: {"corps": 0, "sectors": 0}, 1: {"corps": 2, "sectors": 0},
                    2: {"corps": 2, "sectors": 3}}
    st = poke(st, stake={"oil": {"neutral": 3, "0": 2}, "sun": {"0": 2}, "pill": {}, "lab": {}})
    rows = st.scores()[0]["rows"]
    assert rows == {"corps": 2, "sectors": 3}, "oil: the neutral owner is biggest; energy: p0 has 4 > 3"


# ------------------------------------------------------------------ §3 rankings
def test_rankings_tie_breaker_chain_and_shared_region():
    st = game("rankings", 3)
    placements = [["lagos", 0], ["lagos", 0], ["lagos", 1], ["lagos", 1], ["cairo", 1],
                  ["lima", 0], ["lima", 2], ["lima", 0], ["lima", 2], ["quito", 1]]
    st = poke(st, placements=placements)
    sc = {p: s["rows"] for p, s in st.scores().items()}
    # lagos: 2-2, p1 has more in Africa -> p1; lima: 2-2, America 2-2, p2 placed last -> p2;
    # quito: nobody has 2. Africa: p1 leads; America: p0 and p2 tied -> each get 1
    assert sc == {0: {"control": 0, "regions": 1}, 1: {"control": 3, "regions": 1},
                  2: {"control": 3, "regions": 1}}
    st = poke(st, placements=placements[:4] + [["lagos", 0]])
    assert st.scores()[0]["rows"]["control"] == 3, "more agents beats the region tie-breaker"


# ------------------------------------------------------------------ §4 modifiers and loans
def test_modifier_changes_requirement_while_in_play():
    st = game("modifiers", 2)
    do(st, "train")              # p0: strength 2
    do(st, "start war")          # p1
    refused(st, Action("build", {"x": "bridge"}, 0), "too_weak")
    do(st, "end war")            # p0
    do(st, "borrow")             # p1, round 2
    do(st, "build bridge")       # p0, round 3: need back to 2
    assert st.vars["done"][0] == ["bridge"]
    play_out(st)
    assert st.vars["paid"][1] == [3, 4, 5], "3 installments from the next turn"
    assert st.vars["owed"][1] == 0 and st.vars["cash"][1] == 0


def test_modifier_lowers_requirement():
    st = game("modifiers", 2)
    do(st, "start boom")         # p0
    do(st, "build bridge")       # p1: strength 1, the bridge needs 2 - 1
    refused(st, Action("build", {"x": "tower"}, 0), "too_weak")  # 3 - 1 > 1
    do(st, "end boom")
    do(st, "train")              # p1: strength 2
    refused(st, Action("build", {"x": "bridge"}, 0), "too_weak")  # back to 2


# ------------------------------------------------------------------ §4 deals
def test_deal_needs_consent():
    st = game("deals", 2)
    do(st, "offer 2 gold to 1 for 1 grain")
    assert st.current_players == [1] and st.pending is not None
    assert sorted(a.label for a in st.legal_actions()) == ["choose accept", "choose decline"]
    refused(st, Action("harvest", {}, 0), "decision_pending")
    assert st.observe(0)["pending"]["options"] == {"hidden": 2}
    do(st, "choose decline")
    assert st.vars["gold"] == [3, 1] and st.vars["grain"] == [0, 2] and st.vars["declined"] == 1
    do(st, "harvest")            # p1's own turn
    do(st, "offer 2 gold to 1 for 1 grain")
    do(st, "choose accept")
    assert st.vars["gold"] == [1, 3] and st.vars["grain"] == [1, 2]


def test_deal_offer_must_be_feasible():
    st = game("deals", 2)
    refused(st, Action("offer", {"to": 1, "give": 4, "want": 0}, 0), "bad_parameter")
    refused(st, Action("offer", {"to": 1, "give": 0, "want": 0}, 0), "empty_deal")


# ------------------------------------------------------------------ §5 scoring rows
def _tied(modules=(), seed=1, cards=(1, 3)):
    st = game("scoring_rows", 2, seed=seed, modules=modules)
    return poke(st, reached=[["g_money", "g_power"], ["g_power", "g_money"]], failed=[1, 1],
                cash=[2, 2], cards=list(cards))


def test_scoring_rows_breakdown_and_tiebreakers():
    st = _tied()
    sc = st.scores()
    assert sc[0] == {"total": 5, "rows": {"reached": 5, "categories": 2, "failed": -2}}
    assert sc[1]["total"] == 5
    assert st.winners() == [0], "tie on score and cash: fewest cards wins"
    assert _tied(cards=(2, 2)).winners() == [0, 1], "a shared victory"


def test_scoring_rows_random_draw_module():
    seen = set()
    for seed in range(12):
        w = _tied(("random_draw",), seed=seed, cards=(2, 2)).winners()
        assert len(w) == 1
        assert w == _tied(("random_draw",), seed=seed, cards=(2, 2)).winners(), "the draw is seeded"
        seen.add(w[0])
    assert seen == {0, 1}


# ------------------------------------------------------------------ §6 variants
def test_variants_overlay_add_replace_delete():
    base = ruleset("variants")
    assert set(base.actions) == {"invest", "bribe"} and set(base.phases) == {"round"}
    big = ruleset("variants", ("big",))
    assert big.modules == ("mean", "big"), "requires pulls mean in, first"
    assert set(big.phases) == {"round", "control"} and "take_control" in big.actions
    assert [r[0] for r in big.score_rows] == ["assets", "bribes", "control"], "a row added, others kept"
    st = big.new_game(players=3)
    do(st, "invest")
    assert st.vars["assets"][0] == 2 and st.vars["bribes"][0] == -1, "mean replaced invest"
    play_out(st)
    assert st.vars["controlled"] == [1, 1, 1]
    dis = ruleset("variants", ("dissidents",))
    assert "bribe" not in dis.actions, "deleted with null"
    assert [r[0] for r in dis.score_rows] == ["assets", "beat_neutral"]


def test_variants_excludes_and_combinations():
    with pytest.raises(RulebookError) as e:
        interpreter.load(os.path.join(HERE, "variants"), modules=["teams", "dissidents"])
    assert e.value.stage == "modules" and "excludes" in str(e.value.render())
    rs = ruleset("variants")
    combos = {tuple(sorted(c["modules"])): c["players"] for c in rs.combinations}
    assert combos[("teams",)] == [4, 6] and combos[("big", "mean")] == [3, 4, 5]
    teams = ruleset("variants", ("teams",))
    st = teams.new_game(players=4)
    do(st, "invest")
    assert st.scores()[2]["rows"]["assets"] == 1, "partners share assets"


# ------------------------------------------------------------------ §2 phase chains
def test_phase_chain_decided_by_state():
    st = play_out(game("phase_chain", 3))
    assert st.vars["chain"] == ["action", "capture", "alliance"] * 3
    assert len(st.vars["deck"]) == 2, "the deck cannot refill the row: the game ends"
    st = play_out(game("phase_chain", 2))
    # 2 players: the row of 3 needs two Action rounds before it is empty
    assert st.vars["chain"][:5] == ["action", "capture", "action", "capture", "alliance"]


# ------------------------------------------------------------------ small engine constructs
def test_min_max_of_several_values_and_most_without_key():
    from interpreter import compile_expression

    assert compile_expression("max(0, 3 - 5) == 0 and min(4, 2, 3) == 2 and max([1, 4]) == 4").evaluate({})
    assert compile_expression("most([1, 3, 2, 3]) == [3, 3]").evaluate({})


def test_called_defines_are_not_reported_unused():
    assert not [w for w in interpreter.load("kuhn-poker").warnings if "rank_of" in w.render()]


def test_actions_see_the_round():
    st = game("modifiers", 2)
    for label in ("train", "train", "borrow"):
        do(st, label)
    assert st.vars["borrowed_in"] == [2, 0]
