"""Conformance of every bundled ruleset (rulesets/) under every allowed module combination and
player count, and of every engine test ruleset (tests/rulesets/), through the public tool
`interpreter.conformance.check_conformance` (also `rulebook check --conformance NAME`):
seeded random games must never crash, never stall, end within their bound, hide what they
declare hidden, survive copies and JSON round-trips, refuse illegal moves without a change,
and replay identically.

The default run plays a fixed number of seeded games per case (big games: 2 or 3);
`pytest --runslow` plays 200. The second half shows that each invariant can fail: an engine
broken on purpose (monkeypatched) is caught, with its counter-example."""
import io
import os

import pytest

import interpreter
from interpreter.cli import run
from interpreter.compose import bundled_rulesets
from interpreter.conformance import INVARIANTS, check_conformance

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_RULESETS = os.path.join(HERE, "rulesets")
# big games: a few each (they are long); Deep State's and Global Mogul's games are the longest
# (up to 40 s a case for 3 games on this machine): 2 each keeps CI well under 15 minutes
FAST_GAMES = {"tictactoe": 20, "kuhn-poker": 20, "deep-state": 2, "global-mogul": 2}
FAST_DEFAULT = 3
SLOW_GAMES = 200
FIRST_SEED = 1000


def _cases():
    """(ruleset name, modules, players) for every allowed combination; a ruleset that does not
    load gives one case that reports the error. The first case of each ruleset checks every
    state of its first game; the others every few steps (see check_conformance)."""
    out = []
    for name, path in bundled_rulesets().items():
        try:
            rs = interpreter.load(path)
        except Exception:  # reported by the test, not hidden
            out.append(pytest.param(name, None, None, id=f"{name}-LOAD-ERROR"))
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


def _first_case(name, mods, n) -> bool:
    return next(c.values for c in CASES if c.values[0] == name) == (name, mods, n)


def _run(name, mods, n, games):
    if mods is None:
        interpreter.load(bundled_rulesets()[name])  # raises the ruleset's own error
        return
    full = 1 if _first_case(name, mods, n) or name in FAST_GAMES else 0
    report = check_conformance(_load(name, mods), players=n, games=games, seed=FIRST_SEED, full_games=full)
    assert report.ok, "\n".join(report.lines())
    assert all(r.checks > 0 for r in report.results), "\n".join(report.lines())


@pytest.mark.parametrize("name,mods,n", CASES)
def test_conformance(name, mods, n):
    _run(name, mods, n, FAST_GAMES.get(name, FAST_DEFAULT))


@pytest.mark.slow
@pytest.mark.parametrize("name,mods,n", CASES)
def test_conformance_heavy(name, mods, n):
    _run(name, mods, n, SLOW_GAMES)


@pytest.mark.parametrize("name", sorted(os.listdir(TEST_RULESETS)))
def test_conformance_of_the_engine_test_rulesets(name):
    report = check_conformance(os.path.join(TEST_RULESETS, name), games=5, seed=FIRST_SEED)
    assert report.ok, "\n".join(report.lines())


def test_reference_rulesets_are_bundled():
    names = set(bundled_rulesets())
    assert {"tictactoe", "kuhn-poker"} <= names


# ----------------------------------------------------------------------------- the tool itself
def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO())
    return code, out.getvalue(), err.getvalue()


def test_the_command_prints_one_line_per_invariant():
    code, out, err = cli("check", "--conformance", "kuhn-poker", "--games", "4")
    lines = out.splitlines()
    assert code == 0, out + err
    assert lines[0].startswith("conformance kuhn-poker [base], players 2, 4 game(s) each from seed 0, rules ")
    assert [line.split()[1] for line in lines[1:-1]] == [inv.name for inv in INVARIANTS]
    assert all(line.startswith("pass  ") and line.endswith(" checks") for line in lines[1:-1])
    assert lines[-1] == f"{len(INVARIANTS)} passed, 0 failed"


def test_a_ruleset_that_fails_at_run_time_fails_with_its_first_counterexample():
    code, out, _ = cli("check", "--conformance", os.path.join(HERE, "failing_rulesets", "flaky"), "--games", "5")
    failed = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert code == 1 and out.splitlines()[-1] == f"{len(INVARIANTS) - 2} passed, 2 failed"
    assert failed[0].split()[1] == "chosen_action_applies"
    # the rule error names the rule's file:line (engine: every failing effect is located)
    assert "2 players, seed 1, step 0: legal action 'roll' refused: rule_error: " in failed[0]
    assert failed[0].endswith("flaky/game.yaml:20:9: division by zero"), failed[0]
    assert failed[1].split()[1] == "legal_actions_apply"


def test_usage_errors_of_the_command():
    assert cli("check", "--conformance", "tictactoe", "--players", "3")[0] == 2
    assert cli("check", "--conformance", "tictactoe", "--games", "0")[0] == 2


def _broken(monkeypatch, method, replacement):
    state_type = type(interpreter.load("tictactoe").new_game(2))
    monkeypatch.setattr(state_type, method, replacement)
    return state_type


def _failures(name, games=3):
    report = check_conformance(name, games=games)
    return {r.name: r.counterexample for r in report.failed}


def test_a_leaking_observation_is_caught(monkeypatch):
    state_type = type(interpreter.load("kuhn-poker").new_game(2))
    honest = state_type.observe

    def leaky(self, player):
        view = honest(self, player)
        view["vars"] = dict(self.vars)
        return view
    monkeypatch.setattr(state_type, "observe", leaky)
    failures = _failures("kuhn-poker")
    assert "sees" in failures["observation_hides"].message and failures["observation_hides"].seed == 0


def test_a_copy_that_shares_the_state_is_caught(monkeypatch):
    _broken(monkeypatch, "copy", lambda self: self)
    assert "changed the original" in _failures("tictactoe")["copy_is_independent"].message


def test_an_unstable_hash_is_caught(monkeypatch):
    import itertools
    counter = itertools.count()
    _broken(monkeypatch, "hash", lambda self: str(next(counter)))
    failures = _failures("tictactoe")
    assert {"hash_is_stable", "json_round_trip", "replay_is_identical"} <= set(failures)


def test_an_accepted_illegal_move_is_caught(monkeypatch):
    fresh = interpreter.load("tictactoe").new_game(2)
    accepted = fresh.apply(fresh.legal_actions()[0])
    state_type = type(fresh)
    honest = state_type.apply
    monkeypatch.setattr(state_type, "apply",
                        lambda self, action: accepted if action.name == "__no_such_action__" else honest(self, action))
    assert "was accepted" in _failures("tictactoe")["refusals_leave_state_unchanged"].message


def test_wrong_winners_are_caught(monkeypatch):
    _broken(monkeypatch, "winners", lambda self: [])
    assert "empty" in _failures("tictactoe")["winners_well_formed"].message


def test_an_invariant_that_raises_is_reported_against_that_invariant(monkeypatch):
    def broken_json(self):
        raise TypeError("not JSON")
    _broken(monkeypatch, "to_json", broken_json)
    failures = _failures("tictactoe")
    assert failures["json_round_trip"].message == "checking it raised TypeError: not JSON"
    assert "no_crash" not in failures


def test_labels_that_depend_on_a_secret_are_caught(monkeypatch):
    """information_set: Kuhn poker states that look the same to the player to act (the
    opponent's card differs) must offer the same labels; a label that shows the card is caught."""
    state_type = type(interpreter.load("kuhn-poker").new_game(2))
    honest = state_type.legal_actions

    def telling(self, player=None):
        actions = honest(self, player)
        secret = self.to_json()  # differs with the hidden cards
        return [type(a)(a.name, a.kwargs, a.player, label=f"{a.label} {hash(secret) % 97}") for a in actions]
    monkeypatch.setattr(state_type, "legal_actions", telling)
    report = check_conformance("kuhn-poker", games=20)
    failure = next(r.counterexample for r in report.results if r.name == "information_set")
    assert failure is not None and "sees the same as at seed" in failure.message


SECRET_NOTE = os.path.join(TEST_RULESETS, "secret_note")


def test_the_log_invariant_meets_private_lines_in_the_test_ruleset():
    """secret_note writes a line for each writer only: the invariant has private lines to check."""
    state = interpreter.load(SECRET_NOTE).new_game(2, seed=1)
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
    private = [line for line in state.plain()["log"] if isinstance(line, dict)]
    assert {tuple(line["to"]) for line in private} == {(0,), (1,)}
    assert check_conformance(SECRET_NOTE, games=3).ok


def test_a_log_that_shows_another_players_private_line_is_caught(monkeypatch):
    state_type = type(interpreter.load(SECRET_NOTE).new_game(2))
    monkeypatch.setattr(state_type, "log_for", lambda self, player: [
        line if isinstance(line, str) else line["text"] for line in self.plain()["log"]])
    failure = _failures(SECRET_NOTE)["log_for_hides"]
    assert "shows the private line 'player " in failure.message and "written for [" in failure.message


def test_a_log_that_hides_a_players_own_line_is_caught(monkeypatch):
    state_type = type(interpreter.load(SECRET_NOTE).new_game(2))
    monkeypatch.setattr(state_type, "log_for", lambda self, player: self.log)
    assert "its own private line" in _failures(SECRET_NOTE)["log_for_hides"].message


def test_a_log_for_that_differs_from_a_public_log_is_caught(monkeypatch):
    state_type = type(interpreter.load("tictactoe").new_game(2))
    monkeypatch.setattr(state_type, "log_for", lambda self, player: self.log[:-1] + ["(changed)"] if self.log else [])
    assert "reads '(changed)'" in _failures("tictactoe")["log_for_hides"].message
