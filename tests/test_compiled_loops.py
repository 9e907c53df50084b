"""A loop "up to N times, while C" (a `for` whose body is one `if` without `else`, whose condition
does not read the loop's name) in the compiled game (interpreter/compiled/blocks.py `_for_while`):
it stops at the first turn whose condition is false and charges the turns after it the work the
condition cost, so the moves, the states and where the work bound is reached (the step, the
message, the place in the rule files) are the reference engine's, at every bound. The game of
tests/rulesets/guarded_loops is also played step by step against the reference by
test_compiled.py."""
import os
import random

from interpreter import load
from interpreter.compiled.module import clear_memos, game_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "tests", "rulesets", "guarded_loops")


def test_only_a_loop_whose_condition_does_not_read_its_name_stops_early():
    source = game_module(load(GAME)).source
    acts = source.split("def act_")[1:]
    assert len(acts) == 3  # take, refill, stir
    take, refill, stir = acts
    assert "break" in take and "break" in refill
    assert "break" not in stir  # `k < stock[player]` reads the loop's `k`: every turn is evaluated
    assert take.count("break") == 1  # the inner loop over the board reads its `c`


def _outcomes(ruleset, engine: str, limit: int, seed: int) -> list:
    """(move, applied, reason, state hash) of each step of a random game with work bound `limit`
    (also tests/test_compiled_shared_checks.py's)."""
    state = ruleset.new_game(2, seed=seed, engine=engine)
    ruleset.budget.limit = limit
    rng = random.Random(seed)
    seen = []
    try:
        while not state.is_terminal and len(seen) < 80:
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            outcome = state.apply(action)
            seen.append((action.key, bool(outcome), getattr(outcome, "reason", None), state.hash()))
    finally:
        ruleset.budget.limit = 2_000_000
    return seen


def _compiled_games(folder: str, limits, seeds) -> dict:
    """{(seed, bound): _outcomes} of the compiled game of `folder`, its module generated anew
    (also tests/test_compiled_shared_checks.py's and tests/test_compiled_rows.py's)."""
    clear_memos()
    ruleset = load(folder)
    return {(seed, limit): _outcomes(ruleset, "compiled", limit, seed) for seed in seeds for limit in limits}


def test_the_work_bound_is_reached_where_the_reference_reaches_it_at_every_bound():
    ruleset = load(GAME)
    refused_at = {}  # (seed, step, action) -> the bounds at which the move was refused there
    reasons = set()
    for seed in range(3):
        for limit in range(4, 80, 3):
            expected = _outcomes(ruleset, "reference", limit, seed)
            assert _outcomes(ruleset, "compiled", limit, seed) == expected, (seed, limit)
            for step, (key, applied, reason, _) in enumerate(expected):
                if not applied and "work bound" in reason:
                    refused_at.setdefault((seed, step, key[0]), []).append(limit)
                    reasons.add(reason)
    # not vacuous: the moves with the loops are refused at some bounds and made at others, and
    # the refusal is located at a loop's condition
    assert {"take", "refill"} <= {name for _, _, name in refused_at}
    assert any(min(limits) > 4 for limits in refused_at.values())
    with open(os.path.join(GAME, "game.yaml")) as rules:
        line = next(number for number, text in enumerate(rules, 1) if "stock[player] + marks(player) < 5" in text)
    assert any(f"game.yaml:{line}:" in reason for reason in reasons)
