"""The compiled game against the reference engine under a seeded random mix of `apply`,
`apply_id`, `undo(k)` and `copy` (what a search agent and a driver do to one game): after every
call the same outcome (refusals too, with their code and reason), the same hash, terminal flag,
player and legal ids, and at the end the same scores and winners. The contract is the
reference's (docs/api.md): `undo(n)` goes back to before the n-th last move made with
`apply_id`, taking the moves made with `apply` since then with it; a copy keeps no undo point."""
import os
import random
from typing import Optional

import pytest

from interpreter import load
from interpreter.compiled.game import CompiledState

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLED = sorted(os.listdir(os.path.join(ROOT, "rulesets")))
# small test rulesets with hidden information, decisions inside moves (`choose`), refusals,
# simultaneous phases and sub-phases
SMALL = ["bounded_answers", "bystander", "deals", "draft", "goofspiel", "hidden_die", "lifecycle", "private_lines",
         "proc_param_choose", "reaction_window", "scoring_rows", "sealed_bid", "secret_bid", "secret_note", "subturns",
         "stepped_bids", "versioned_defines", "vote"]
FOLDERS = [os.path.join(ROOT, "rulesets", name) for name in BUNDLED] + \
          [os.path.join(ROOT, "tests", "rulesets", name) for name in SMALL]


def _outcome(outcome) -> tuple:
    return bool(outcome), outcome.code, outcome.reason


def _compared(reference, compiled) -> Optional[str]:
    """What differs between the two games now (None when nothing does)."""
    if compiled.hash() != reference.hash():
        return f"hash: {reference.diff(compiled.reference())[:3]}"
    if compiled.is_terminal != reference.is_terminal:
        return "is_terminal"
    if reference.is_terminal:
        if (compiled.scores(), compiled.winners()) != (reference.scores(), reference.winners()):
            return "scores or winners"
        return None
    if compiled.current_player != reference.current_player:
        return "current_player"
    if compiled.legal_action_ids() != reference.legal_action_ids():
        return "legal_action_ids"
    return None


def _call(rng: random.Random, reference, compiled, seen: list) -> tuple:
    """One call picked at random, made on both games: (what was called, both outcomes)."""
    roll = rng.random()
    kept = len(reference._undo)
    if roll < 0.2 and kept:
        back = rng.randint(1, min(kept + 1, 4))  # one more than kept now and then: refused
        return f"undo({back})", compiled.undo(back), reference.undo(back)
    if reference.is_terminal or roll < 0.25:  # an action seen earlier: legal again, or refused
        action = rng.choice(seen) if seen else {"action": "nothing", "args": {}}
        return f"apply({action})", compiled.apply(action), reference.apply(action)
    listed = reference.legal_action_ids()
    if roll < 0.3:
        index = len(listed) + rng.randint(0, 2)  # no such id: refused
    else:
        index = rng.randrange(len(listed))
    seen.append(reference.legal_action(index).to_json() if index < len(listed) else {"action": "none", "args": {}})
    del seen[:-30]
    if roll < 0.65:
        return f"apply_id({index})", compiled.apply_id(index), reference.apply_id(index)
    return (f"apply(#{index})", compiled.apply(compiled.legal_actions()[index]),
            reference.apply(reference.legal_actions()[index]))


def mixed_play(ruleset, players: int, seed, calls: int = 120) -> Optional[str]:
    """Play one game through both engines with a seeded random mix of calls; the first
    difference, described (None when there is none)."""
    reference = ruleset.new_game(players, seed=seed)
    compiled = ruleset.new_game(players, seed=seed, engine="compiled")
    assert type(compiled) is CompiledState
    rng = random.Random(f"{seed}-mix")
    seen: list = []
    for number in range(calls):
        if rng.random() < 0.05:  # a copy: one of the two plays on (a copy keeps no undo point)
            reference_copy, compiled_copy = reference.copy(), compiled.copy()
            difference = _compared(reference_copy, compiled_copy)
            if difference is not None:
                return f"call {number} copy(): {difference}"
            if rng.random() < 0.5:
                reference, compiled = reference_copy, compiled_copy
        what, outcome, expected = _call(rng, reference, compiled, seen)
        if _outcome(outcome) != _outcome(expected):
            return f"call {number} {what}: outcome {_outcome(outcome)} != {_outcome(expected)}"
        difference = _compared(reference, compiled)
        if difference is not None:
            return f"call {number} {what}: {difference}"
    return None


def _players(ruleset) -> int:
    return max(ruleset.players)


@pytest.mark.parametrize("folder", FOLDERS, ids=os.path.basename)
def test_a_mix_of_apply_apply_id_undo_and_copy_is_the_references(folder):
    ruleset = load(folder)
    for seed in range(4):
        difference = mixed_play(ruleset, _players(ruleset), seed, calls=150)
        assert difference is None, (os.path.basename(folder), seed, difference)


@pytest.mark.slow
@pytest.mark.parametrize("folder", FOLDERS, ids=os.path.basename)
def test_a_mix_of_apply_apply_id_undo_and_copy_is_the_references_over_many_seeds(folder):
    ruleset = load(folder)
    for players in ruleset.players:
        for seed in range(4, 24):
            difference = mixed_play(ruleset, players, seed, calls=300)
            assert difference is None, (os.path.basename(folder), players, seed, difference)


def test_undo_goes_back_across_a_sub_phase_entered_by_an_answer():
    """In Corporate Times an answer to a decision inside a move (the news phase's) can enter a
    sub-phase (the bidding war), where the generated code plays on with the reference's frames
    below: undo() back to the start puts the frames below back too (seed 3, 5 players: the
    57th move is such an answer)."""
    ruleset = load("corporate-times")
    reference = ruleset.new_game(5, seed=3)
    compiled = ruleset.new_game(5, seed=3, engine="compiled")
    rng = random.Random(3)
    hashes, entered = [compiled.hash()], 0
    for _ in range(70):
        at_decision = compiled._pending is not None
        index = rng.randrange(len(reference.legal_action_ids()))
        assert reference.apply_id(index) and compiled.apply_id(index)
        hashes.append(compiled.hash())
        entered += at_decision and compiled.phase == "bidding_war"
    assert entered, "no answer entered the sub-phase: pick another seed"
    assert hashes[-1] == reference.hash()
    while len(hashes) > 1:
        hashes.pop()
        assert compiled.undo() and reference.undo()
        assert compiled.hash() == hashes[-1] == reference.hash(), len(hashes)


@pytest.mark.parametrize("name,players", [("davos", 4), ("global-mogul", 3), ("corporate-times", 5)])
def test_undo_takes_back_the_moves_made_with_apply_since_the_last_apply_id(name, players):
    """One move made with apply_id, then a few with `apply` (answers to its decisions, moves
    handed to the reference engine, plain moves), then undo(): the position before the
    apply_id move, as the reference's snapshot gives."""
    ruleset = load(name)
    for seed in range(2):
        reference = ruleset.new_game(players, seed=seed)
        compiled = ruleset.new_game(players, seed=seed, engine="compiled")
        rng = random.Random(seed)
        while not reference.is_terminal and reference.steps < 80:
            before = reference.hash()
            index = rng.randrange(len(reference.legal_action_ids()))
            assert reference.apply_id(index) and compiled.apply_id(index)
            for _ in range(rng.randint(1, 6)):
                if reference.is_terminal:
                    break
                number = rng.randrange(len(reference.legal_actions()))
                assert reference.apply(reference.legal_actions()[number])
                assert compiled.apply(compiled.legal_actions()[number])
            assert compiled.hash() == reference.hash()
            assert compiled.undo() and reference.undo()
            assert compiled.hash() == before == reference.hash(), (seed, reference.steps)
            number = rng.randrange(len(reference.legal_actions()))  # the game goes on
            assert reference.apply(reference.legal_actions()[number])
            assert compiled.apply(compiled.legal_actions()[number])
