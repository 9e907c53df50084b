"""The generated listing of a phase whose one action has one parameter (interpreter/compiled/
legal_code.py): a loop over the values, given the turn's names (`player`, `round`) only when the
values read them, themselves or through a define; the games stay the reference's (the rulesets
are also played step by step against the reference by test_compiled.py)."""
import os
import random

from interpreter import load
from interpreter.compiled.module import game_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _listing(folder: str, number: int) -> str:
    source = game_module(load(folder)).source
    return source.split(f"def legal_{number}(")[1].split("\ndef ")[0]


def test_values_that_read_no_turn_name_get_no_names_dict():
    listing = _listing(os.path.join(ROOT, "rulesets", "tictactoe"), 0)
    assert "_NO_NAMES" in listing and "L = {" not in listing, listing
    assert "moves.append(" in listing and "for value in _domain(" in listing, listing


def test_values_that_read_the_mover_through_a_define_or_the_round_get_the_names():
    folder = os.path.join(ROOT, "tests", "rulesets", "domain_names")
    for number in (0, 1):  # place (a define reading `player`), grab (`round`)
        listing = _listing(folder, number)
        assert "L = {'player': player, 'round': round_}" in listing and "_NO_NAMES" not in listing, listing


def test_the_listed_moves_are_the_reference_moves():
    ruleset = load(os.path.join(ROOT, "tests", "rulesets", "domain_names"))
    for seed in range(6):
        reference, compiled = ruleset.new_game(2, seed=seed), ruleset.new_game(2, seed=seed, engine="compiled")
        rng = random.Random(seed)
        moves = 0
        while not reference.is_terminal:
            expected = [action.key for action in reference.legal_actions()]
            assert [action.key for action in compiled.legal_actions()] == expected
            index = rng.randrange(len(expected))
            assert reference.apply_id(index) and compiled.apply_id(index)
            assert compiled.hash() == reference.hash()
            moves += 1
        assert compiled.is_terminal and moves == 6
