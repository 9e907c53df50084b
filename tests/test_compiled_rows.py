"""Rows of moves kept across listings (interpreter/compiled/legal_code.py `_row_level`): an
action of two parameters whose second parameter's values do not read the first, nothing checked
on the second, lists the moves of one value of the first parameter as a row built once for the
same values of both (whole numbers or texts) and kept in the module. The moves, the states,
where the work bound is reached and where a listing passes its bound of moves are the
reference engine's; the game of tests/rulesets/move_rows is also played step by step against
the reference by test_compiled.py."""
import os
import random

import pytest

from interpreter import load
from interpreter.compiled import legal_code
from interpreter.compiled.module import clear_memos, game_module
from test_compiled_loops import _compiled_games, _outcomes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "tests", "rulesets", "move_rows")


def test_rows_are_kept_for_whole_numbers_and_texts_only_and_listed_again_as_the_same_moves():
    clear_memos()
    ruleset = load(GAME)
    assert game_module(ruleset).source.count(".table(domain1)") == 3  # invest, grid and weigh are listed by rows
    state = ruleset.new_game(2, seed=4, engine="compiled")
    rng = random.Random(4)
    listed = {"invest": [], "grid": [], "weigh": []}  # every move listed (kept alive: ids stay theirs)
    while not state.is_terminal:
        before = state.moves
        state.touched()  # listed again at the same position: the same rows
        assert [move is earlier for move, earlier in zip(state.moves, before)] == \
            [move[0] != "weigh" for move in before] and state.moves == before
        for move in state.moves:
            if move[0] in listed:
                listed[move[0]].append(move)
        state.apply_id(rng.randrange(len(state.moves)))
    objects = {name: len({id(move) for move in moves}) for name, moves in listed.items()}
    values = {name: len({move[:2] for move in moves}) for name, moves in listed.items()}
    # grid's values are 2 (or, once the grid is open, 3) times 3: each move one tuple in every listing
    assert len(listed["grid"]) > 60 and objects["grid"] == values["grid"] == 9
    # invest's rows are kept per list of `n` values (a move may be in several rows)
    assert len(listed["invest"]) > 2 * objects["invest"] and values["invest"] <= objects["invest"]
    # truth values and fractions: listed afresh every time
    assert values["weigh"] == 4 and objects["weigh"] == len(listed["weigh"]) > 20


@pytest.fixture
def modules_made_again():
    """The generated modules made again after the test (it changes how they are written)."""
    yield
    clear_memos()


def test_the_game_is_the_reference_s_and_the_same_without_rows_at_every_work_bound(monkeypatch, modules_made_again):
    limits, seeds = range(30, 160, 3), range(3)
    ruleset = load(GAME)
    reference = {(seed, limit): _outcomes(ruleset, "reference", limit, seed) for seed in seeds for limit in limits}
    assert _compiled_games(GAME, limits, seeds) == reference
    monkeypatch.setattr(legal_code, "rows_kept", lambda *_arguments: False)
    assert _compiled_games(GAME, limits, seeds) == reference
    assert ".table(domain1)" not in game_module(load(GAME)).source
    # not vacuous: the bound refuses moves at the lower bounds only
    refusals = [sum(not step[1] for step in reference[seed, limit]) for seed in seeds for limit in limits]
    assert refusals[0] > 0 and refusals[-1] == 0


@pytest.mark.parametrize("width, depth, refused", [(199, 100, None), (200, 100, "weigh"), (177, 113, "grid")])
def test_a_listing_past_its_bound_of_moves_refuses_the_move_where_the_reference_refuses_it(width, depth, refused):
    # once the grid is open, the next player (no coins: no `invest` move) has width * depth
    # grid moves, then two `weigh` moves and `rest`; a listing may hold 20000 moves
    seen = []
    for engine in ("reference", "compiled"):
        ruleset = load(GAME, settings={"grid_w": width, "grid_d": depth})
        state = ruleset.new_game(2, seed=1, engine=engine)
        outcome = state.apply("open_grid")
        seen.append((bool(outcome), getattr(outcome, "reason", None), len(state.legal_action_ids()), state.hash()))
    assert seen[0] == seen[1]
    applied, reason, listed, _ = seen[0]
    if refused is None:
        assert applied and listed == width * depth + 3
    else:
        assert not applied and f"action '{refused}' has more than 20000 legal combinations" in reason


def test_the_rows_kept_stay_within_their_bound_and_are_all_dropped_past_it(monkeypatch, modules_made_again):
    monkeypatch.setattr(legal_code, "KEPT_MOVES", 12)
    rows = legal_code.RowTables()
    table = rows.table([1, 2, 3])  # a table counts its values and itself
    assert rows.table([1, 2.5]) is None and rows.table([True]) is None and rows.table((1, 2)) is None
    rows.keep(table, "north", ("m1", "m2", "m3"))
    rows.keep(table, 1.5, ("m1",))  # a fraction: not kept
    assert rows.table([1, 2, 3]) is table and table == {"north": ("m1", "m2", "m3")} and rows.kept == 8
    rows.keep(table, 2, ("m1", "m2", "m3"))
    assert rows.kept == 12 and len(table) == 2
    rows.keep(table, "south", ("m1",))  # past the bound: everything kept so far is dropped
    assert rows.tables == {} and rows.kept == 2
    assert rows.table([1, 2, 3]) is not table
    # a game whose rows are dropped again and again is still the reference's game
    monkeypatch.setattr(legal_code, "KEPT_MOVES", 7)
    for seed in range(3):
        assert _compiled_games(GAME, [2_000_000], [seed]) == {(seed, 2_000_000): _outcomes(load(GAME), "reference",
                                                                                          2_000_000, seed)}
