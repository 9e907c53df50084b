"""Seeded games stay the same games: for every bundled ruleset, every module combination it
allows and every player count, a few seeded random-agent games are replayed and compared step
by step with golden data recorded from the engine before its second edition.

What is compared does not depend on how the engine lays out its state: at every step, the
labels of the legal actions (read when they are listed), the chosen action, the players to act,
the phase, the game's own vars and the new log lines. Each step's record is folded into a
running digest; the golden file keeps every step's digest so a difference names its first step.

A configuration whose rule files changed since the golden data was recorded (its ruleset digest
differs) is still played: its games must be the recorded ones unless they differ, which is then
a skip with a note (a rule change may change the games): regenerate it with
    python tests/test_seed_identity.py --regenerate RULESET [RULESET ...]
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden", "seed_identity.json")
SEEDS = (1, 2, 3)
MAX_STEPS = 150
RULESETS = ("tictactoe", "kuhn-poker", "davos", "deep-state", "global-mogul", "corporate-times")


def configurations(name):
    """(modules, players) of every combination the ruleset allows."""
    import interpreter

    rs = interpreter.load(name, check=False)
    combos = rs.combinations or [{"modules": [], "players": list(rs.players)}]
    for combo in combos:
        modules = sorted(combo.get("modules") or [])
        for players in combo.get("players") or rs.players:
            yield modules, int(players)


def _digest(payload) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":"),
                                     default=repr).encode()).hexdigest()[:12]


def play_digests(ruleset, players, seed, max_steps=MAX_STEPS) -> list:
    """The running digest after set-up and after every step of one seeded random game."""
    state = ruleset.new_game(players, seed=seed)
    chooser = random.Random(seed * 7919 + players)
    running = _digest(["setup", state.vars, state.log, state.current_players, state.phase])
    out = [running]
    seen_log = len(state.log)
    for _ in range(max_steps):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        if not legal:
            break
        labels = [action.label for action in legal]
        choice = chooser.randrange(len(legal))
        outcome = state.apply(legal[choice])
        log = state.log
        new_lines = log[seen_log:] if len(log) >= seen_log else list(log)
        seen_log = len(log)
        running = _digest([running, labels, choice, bool(outcome), outcome.code, state.vars, new_lines,
                           state.current_players, state.phase, state.is_terminal])
        out.append(running)
        if not outcome:
            break
    return out


def record(names) -> dict:
    import interpreter

    data = {}
    if os.path.exists(GOLDEN):
        with open(GOLDEN, encoding="utf-8") as fh:
            data = json.load(fh)
    for name in names:
        entries = {}
        for modules, players in configurations(name):
            ruleset = interpreter.load(name, modules=modules, check=False)
            key = f"{'+'.join(modules) or 'base'}/{players}"
            entries[key] = {"rules": ruleset.digest,
                            "games": {str(seed): play_digests(ruleset, players, seed) for seed in SEEDS}}
        data[name] = entries
    with open(GOLDEN, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=0, sort_keys=True)
        fh.write("\n")
    return data


def _cases():
    if not os.path.exists(GOLDEN):
        return []
    with open(GOLDEN, encoding="utf-8") as fh:
        data = json.load(fh)
    return [(name, key) for name in RULESETS for key in sorted(data.get(name, {}))]


@pytest.mark.parametrize("name,key", _cases())
def test_seeded_games_unchanged(name, key):
    import interpreter

    with open(GOLDEN, encoding="utf-8") as fh:
        entry = json.load(fh)[name][key]
    label, players = key.rsplit("/", 1)
    modules = [] if label == "base" else label.split("+")
    ruleset = interpreter.load(name, modules=modules, check=False)
    for seed, expected in entry["games"].items():
        got = play_digests(ruleset, int(players), int(seed))
        if got != expected:
            first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
            differs = (f"{name} [{label}] {players} players seed {seed}: the game differs from step {first} "
                       f"(golden {len(expected) - 1} steps, now {len(got) - 1})")
            if ruleset.digest != entry["rules"]:  # a rule change may change the games: record them again
                pytest.skip(f"its rule files changed since the golden data was recorded, and {differs}")
            pytest.fail(differs)


def test_golden_covers_every_bundled_ruleset():
    with open(GOLDEN, encoding="utf-8") as fh:
        data = json.load(fh)
    for name in RULESETS:
        assert data.get(name), f"no golden seeded games for {name}"


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--regenerate":
        sys.path.insert(0, os.path.dirname(HERE))
        record(sys.argv[2:] or RULESETS)
        print(f"wrote {GOLDEN}")
    else:
        print(__doc__)
