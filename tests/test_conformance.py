"""Conformance of every bundled ruleset (rulesets/) under every allowed module combination and
player count: seeded random games must never crash, never stall, end within their bound, hide
what they declare hidden, survive a JSON round-trip and replay identically.

The default run plays up to 20 games per case within a small time budget per case (big games
play fewer, at least 3); `pytest --runslow` runs the heavier version."""
import json
import os
import random

import pytest

import interpreter
from interpreter.compose import bundled_rulesets
from interpreter.state import State

# the default run shares about 20 s between all cases; each plays at least 3 games
# a fixed number of seeded games per case, so a run always checks the same games
FAST = dict(games=None)
SLOW = dict(games=200)
FAST_GAMES = {"tictactoe": 20, "kuhn-poker": 20}  # big games: a few each (they are long)
FAST_DEFAULT = 3


def _cases():
    """(ruleset name, modules, players) for every allowed combination; a ruleset that does not
    load gives one case that reports the error."""
    out = []
    for name, path in bundled_rulesets().items():
        try:
            rs = interpreter.load(path)
        except Exception as e:  # reported by the test, not hidden
            out.append(pytest.param(name, None, None, id=f"{name}-LOAD-ERROR", marks=()))
            continue
        combos = rs.combinations or [{"modules": [], "players": list(rs.players)}]
        for c in combos:
            mods = tuple(sorted(c.get("modules") or []))
            for n in c["players"]:
                out.append(pytest.param(name, mods, n, id=f"{name}-{'+'.join(mods) or 'base'}-{n}p"))
    return out


CASES = _cases()
_RS: dict = {}


def _load(name, mods):
    key = (name, mods)
    if key not in _RS:
        _RS[key] = interpreter.load(bundled_rulesets()[name], modules=mods)
    return _RS[key]


def _only_sizes(view) -> bool:
    if not isinstance(view, dict):
        return False
    if set(view) == {"hidden"}:
        return True
    return all(_only_sizes(v) for v in view.values())


def _check_observation(rs, st):
    n = st.num_players
    for p in range(n):
        view = st.observe(p)
        vs = view["vars"]
        for name, decl in rs.vars.items():
            if decl.visibility == "hidden":
                assert isinstance(vs[name], dict) and set(vs[name]) == {"hidden"}, \
                    f"player {p} sees the contents of hidden var '{name}'"
            elif decl.visibility == "count":  # sizes only (a map of lists keeps its keys)
                assert _only_sizes(vs[name]), f"player {p} sees the contents of count var '{name}'"
            elif decl.visibility == "owner":
                for q in range(n):
                    if q != p:
                        assert isinstance(vs[name][q], dict) and set(vs[name][q]) == {"hidden"}, \
                            f"player {p} sees player {q}'s '{name}'"
                    else:
                        assert vs[name][q] == st.vars[name][q]
        pend = st.pending
        if pend is not None and pend["player"] != p:
            assert view["pending"]["options"] == {"hidden": len(pend["options"])}


def _play(rs, n, seed, check_every, resume=True):
    st = rs.new_game(players=n, seed=seed)
    rng = random.Random(seed)
    actions = []
    bound = rs.max_steps
    while not st.is_terminal:
        legal = st.legal_actions()
        assert legal, f"no legal action in phase '{st.phase}' at step {st.steps} (seed {seed})"
        cur = st.current_players
        assert cur and legal[0].player in cur, f"legal actions for {legal[0].player}, current {cur}"
        if st.steps % check_every == 0:
            _check_observation(rs, st)
            copy = State.from_json(rs, st.to_json())
            assert copy.hash() == st.hash(), "JSON round-trip changed the state"
        a = rng.choice(legal)
        out = st.apply(a)
        assert out, f"legal action {a.label} refused: {out.code}: {out.reason} (seed {seed}, step {st.steps})"
        actions.append(a)
        assert st.steps <= bound, f"the game exceeded its bound of {bound} steps (seed {seed})"
    assert st.current_players == [] and st.legal_actions() == []
    _check_observation(rs, st)
    assert State.from_json(rs, st.to_json()).hash() == st.hash()
    st.scores()
    assert st.winners() is not None
    # replay: the same actions from the same seed give the same state
    again = rs.new_game(players=n, seed=seed)
    for a in actions:
        assert again.apply(a)
    assert again.is_terminal and again.hash() == st.hash(), f"replay differs (seed {seed})"
    # a game resumed from JSON in the middle goes on exactly as the original
    if resume and len(actions) > 1:
        mid = rs.new_game(players=n, seed=seed)
        for a in actions[: len(actions) // 2]:
            assert mid.apply(a)
        resumed = State.from_json(rs, mid.to_json())
        for a in actions[len(actions) // 2:]:
            assert resumed.apply(a)
        assert resumed.hash() == st.hash(), f"resumed game differs (seed {seed})"
    return len(actions)


def _run(name, mods, n, games):
    if mods is None:
        interpreter.load(bundled_rulesets()[name])  # raises the ruleset's own error
        return
    rs = _load(name, mods)
    if games is None:
        games = FAST_GAMES.get(name, FAST_DEFAULT)
    for i, seed in enumerate(range(1000, 1000 + games)):
        _play(rs, n, seed, check_every=1 if i == 0 else 7, resume=i == 0)


@pytest.mark.parametrize("name,mods,n", CASES)
def test_conformance(name, mods, n):
    _run(name, mods, n, **FAST)


@pytest.mark.slow
@pytest.mark.parametrize("name,mods,n", CASES)
def test_conformance_heavy(name, mods, n):
    _run(name, mods, n, **SLOW)


def test_reference_rulesets_are_bundled():
    names = set(bundled_rulesets())
    assert {"tictactoe", "kuhn-poker"} <= names
