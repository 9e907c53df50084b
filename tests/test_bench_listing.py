"""Correctness of tools/bench/listing.py's pieces: it finds the generated listings, keeps the
positions a listing was called at, and its per-listing memo and its count of repeated calls
see the calls they should. Nothing here times anything."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "bench"))
import listing  # noqa: E402

import interpreter  # noqa: E402
from interpreter.compiled.module import game_module  # noqa: E402


def test_the_listings_of_a_game_module():
    ruleset = interpreter.load("deep-state")
    names = set(listing.listings(game_module(ruleset)))
    # the action phase declares a bound: listed_0 lists (legal_0 checks it); the alliance phase has legal_2 alone
    assert {"listed_0", "legal_2"} <= names
    assert "legal_0" not in names


def test_positions_are_the_calls_of_the_listing_and_list_the_same_moves_again():
    ruleset = interpreter.load("kuhn-poker")
    module = game_module(ruleset)
    name = sorted(listing.listings(module))[0]
    function, kept = listing.positions(ruleset, 2, 2, name)
    assert kept and all(type(game_vars) is dict for game_vars, _, _ in kept)
    namespace = next(f for f in module.legal if f is not None).__globals__
    assert namespace[name] is function  # put back
    extra = ([],) if name.startswith("listed_") else ()
    assert all(function(None, game_vars, player, round_, *extra) for game_vars, player, round_ in kept)


def test_kept_for_the_listing_computes_once_per_arguments_until_emptied():
    calls = []
    memos: list = []
    kept = listing.kept_for_the_listing(lambda game_vars, names, *args: calls.append(args) or len(calls), memos)
    assert kept({}, {}, 1, "a") == 1 and kept({}, {}, 1, "a") == 1 and kept({}, {}, 2, "a") == 2
    assert kept({}, {}, [1], "a") == 3 == kept({}, {}, [1], "a") - 1  # a list argument is never kept
    memos[0].clear()
    assert kept({}, {}, 1, "a") == 5
    assert calls == [(1, "a"), (2, "a"), ([1], "a"), ([1], "a"), (1, "a")]


def test_timing_repeats_times_only_calls_made_again_and_not_inside_one():
    memos: list = []
    spent = [0.0, False]
    inner_seen = []

    def define(game_vars, names, *args):
        inner_seen.append(spent[1])  # was a repeated call being timed when this one ran?
        return sum(args)

    timing = listing.timing_repeats(define, memos, spent)
    assert timing({}, {}, 1, 2) == 3  # first time: not timed
    assert inner_seen == [False] and spent[0] == 0.0
    assert timing({}, {}, 1, 2) == 3  # again: timed
    assert inner_seen == [False, True] and spent[1] is False
    memos[0].clear()
    assert timing({}, {}, 1, 2) == 3  # a new listing: not timed
    assert inner_seen == [False, True, False]


def test_parts_names_each_expression_the_listing_calls(capsys):
    ruleset = interpreter.load("deep-state")
    listing.parts(ruleset, 3, 1, "legal_2")
    printed = capsys.readouterr().out
    assert printed.startswith("legal_2: ")
    assert "req_ok(player, a)" in printed and "hand[player]" in printed
    namespace = next(f for f in game_module(ruleset).legal if f is not None).__globals__
    assert not hasattr(namespace["legal_2"], "__wrapped__") and namespace["legal_2"].__name__ == "legal_2"  # put back
