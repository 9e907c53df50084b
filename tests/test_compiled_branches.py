"""What the game module generator leaves out (interpreter/compiled/blocks.py), on
tests/rulesets/branch_names: an undo-log record of a var that a record on the same path, with no
`yield` between, already made (`Writer.save_var`); the copy of the local names of an `if`'s
branch that binds none (`_binds_names`). The code left out would change nothing: the moves, the
states and the vars are the reference engine's (test_compiled.py plays the game step by step
against the reference too)."""
import os

from interpreter import load
from interpreter.compiled.module import game_module, not_loopable

from test_compiled_loops import _outcomes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "tests", "rulesets", "branch_names")


def _acts() -> dict:
    source = game_module(load(GAME)).source
    count, pick, hide = source.split("def act_")[1:]
    return {"count": count, "pick": pick, "hide": hide.split("\nENTER")[0]}


def test_a_var_is_recorded_once_on_a_path_and_again_after_a_decision():
    acts = _acts()
    # `tally` is written eight times in `count` (in branches and a loop too): recorded once, first
    assert acts["count"].count("'tally' not in S") == 1
    assert acts["count"].index("'tally' not in S") < acts["count"].index("_h")
    # `pick` writes it before a `choose` and after it: recorded on both sides of the yield
    assert acts["pick"].count("'tally' not in S") == 2
    assert acts["pick"].index("yield") < acts["pick"].rindex("'tally' not in S")
    # a var first written in branches is recorded in each and again after them (a branch may
    # not have run), and not in the loop after that (five records for seven writes)
    assert acts["count"].count("'total' not in S") == 5


def test_only_a_branch_that_binds_a_name_copies_the_names():
    acts = _acts()
    # in `count`: the branch with a `let` and the one assigning the local `n` (and the loop's
    # body); not the `else`, nor the two branches that only read `n` and write vars
    assert acts["count"].count("= dict(L)") == 3
    # in `pick`: the branches with `choose`, `random` and `move ... as` each have their own
    assert acts["pick"].count("= dict(L)") == 3
    # in `hide`: the branch assigning its local `shade` (a var's name too)
    assert acts["hide"].count("= dict(L)") == 1


def _count_move(state, k: int):
    return next(action for action in state.legal_actions() if action.key == ("count", (("k", k),)))


def test_a_name_bound_in_a_branch_is_not_seen_after_it():
    """`count k` from the start, worked by hand from the rules (n is k * 10 outside the
    branches; 5 and k * 10 + 1 inside the two that bind it), on both engines."""
    expected = {1: (123, 7), 2: (128, 13), 3: (99, 13)}
    for engine in ("reference", "compiled"):
        for k, (total, tally) in expected.items():
            state = load(GAME).new_game(2, seed=1, engine=engine)
            assert state.apply(_count_move(state, k))
            game_vars = state.plain()["vars"]
            assert (game_vars["total"][0], game_vars["tally"]) == (total, tally), (engine, k)


def test_a_local_named_as_a_var_assigned_in_a_branch_is_not_seen_after_it():
    for engine in ("reference", "compiled"):
        state = load(GAME).new_game(2, seed=1, engine=engine)
        assert state.apply(next(action for action in state.legal_actions() if action.key[0] == "hide"))
        game_vars = state.plain()["vars"]
        assert (game_vars["seen"], game_vars["shade"]) == ([10, 0], 0), engine


def test_seeded_games_are_the_reference_games():
    ruleset = load(GAME)
    for seed in range(6):
        expected = _outcomes(ruleset, "reference", 2_000_000, seed)
        assert len(expected) > 4
        assert _outcomes(ruleset, "compiled", 2_000_000, seed) == expected, seed


def test_a_loop_over_a_value_that_is_not_a_list_says_so():
    assert str(not_loopable(3)) == "'for' needs a list or a map, not 3"
