"""The file and tampered-input gaps of docs/security.md, closed: scenario files only from inside
the ruleset folder, a replay read as a regular file within the size limit, wrongly shaped
scenario steps and tampered saves refused with a reason (never a Python exception), the
caller's data unchanged."""
from __future__ import annotations

import copy
import io
import json
import os
import shutil

import pytest

import interpreter
from interpreter.cli import run
from interpreter.compose import bundled_rulesets
from interpreter.errors import RulebookError, RuleRuntimeError
from interpreter.scenario import run_scenarios
from interpreter.state import SaveError, State

HERE = os.path.dirname(os.path.abspath(__file__))
DICE = os.path.join(HERE, "rulesets", "dice")


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ scenario files
def test_check_names_a_scenario_file_linked_out_of_the_folder_and_runs_the_others(tmp_path):
    folder = tmp_path / "kuhn-poker"
    shutil.copytree(bundled_rulesets()["kuhn-poker"], folder)
    outside = tmp_path / "outside.yaml"
    outside.write_text("- name: SECRET-OUTSIDE\n  steps: []\n", encoding="utf-8")
    os.symlink(outside, folder / "examples" / "linked.yaml")
    code, out, err = _cli("check", str(folder))
    assert code == 1 and "Traceback" not in out + err
    refused = [line for line in out.splitlines() if "linked.yaml" in line]
    assert refused and "FAIL" in refused[0]
    assert "scenario file 'examples/linked.yaml' leaves the ruleset folder" in out
    assert "SECRET-OUTSIDE" not in out
    assert "2 passed, 1 failed" in out  # the ruleset's own two scenarios still run


def test_an_examples_folder_linked_out_of_the_ruleset_is_not_read(tmp_path):
    folder = tmp_path / "dice"
    shutil.copytree(DICE, folder)
    outside = tmp_path / "elsewhere"
    shutil.move(str(folder / "examples"), outside)
    os.symlink(outside, folder / "examples")
    results = run_scenarios(str(folder))
    assert results and not any(result.ok for result in results)
    assert all("leaves the ruleset folder" in " ".join(result.messages) for result in results)


# ------------------------------------------------------------------ replays
@pytest.mark.parametrize("kind", ["device", "folder", "missing"])
def test_a_replay_that_is_not_a_regular_file_is_an_error_line(tmp_path, kind):
    path = {"device": "/dev/zero", "folder": str(tmp_path), "missing": str(tmp_path / "none.json")}[kind]
    code, out, err = _cli("replay", path)
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"rulebook: error: cannot read replay {path}: ")


def test_a_replay_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.replay.json"
    with open(path, "wb") as stream:
        stream.truncate(4 * 1024 ** 3)  # sparse: 4 GB that take no room
    code, out, err = _cli("replay", str(path))
    assert code == 1 and "the limit is" in err and "Traceback" not in err


# ------------------------------------------------------------------ scenario steps of the wrong shape
def test_a_scenario_step_of_the_wrong_shape_fails_at_its_place(tmp_path):
    """(The shapes and their reasons: tests/test_scenario_shapes.py.)"""
    folder = tmp_path / "dice"
    shutil.copytree(DICE, folder)
    (folder / "examples" / "roll.yaml").write_text("name: x\nsteps:\n  - roll\n  - {refused: }\n",
                                                   encoding="utf-8")
    results = run_scenarios(str(folder))
    assert len(results) == 1 and not results[0].ok
    assert "roll.yaml:4:5: a step is a label or a mapping, not None" in results[0].messages[0]


# ------------------------------------------------------------------ tampered saves
def _save(name, until, seed=1, chance="seeded"):
    """A save of `name` at the first point where `until(state)` holds (first legal moves)."""
    rules = interpreter.load(name)
    state = rules.new_game(rules.players[0], seed=seed, chance=chance)
    for _ in range(40):
        if until(state):
            return rules, json.loads(state.to_json())
        state.apply(state.legal_actions()[0])
    raise AssertionError(f"{name} never reached the wanted point")


def _decision_of_one(state):
    return state.d["pending"] is not None and "players" not in state.d["pending"]


SAVES = {  # a save at a decision of one player (with labels), of several at once, at a chance node
    "decision": lambda: _save(os.path.join(HERE, "rulesets", "choice_labels"), _decision_of_one),
    "together": lambda: _save(os.path.join(HERE, "rulesets", "draft"), lambda state: state.is_simultaneous()),
    "chance": lambda: _save("kuhn-poker", lambda state: state.is_chance(), chance="manual"),
}


def _edited(data, path, value=None, delete=False):
    data = copy.deepcopy(data)
    node = data
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


PINNED = [  # (save, path, value or "delete", what the refusal says): each raised KeyError / TypeError in use
    ("decision", ("state", "pending"), "delete", "'pending' is missing"),
    ("chance", ("state", "chance"), "delete", "'chance' is missing"),
    ("chance", ("state", "rng"), "delete", "'rng' is missing"),
    ("chance", ("state", "pending"), 5, "'pending' is neither null nor a mapping"),
    ("together", ("state", "chance"), True, "'chance' is neither null nor a mapping"),
    ("together", ("state", "chance"), {}, "the chance node has no outcomes"),
    ("together", ("state", "pending", "prompt"), "delete", "no prompt"),
    ("decision", ("state", "pending", "prompt"), "delete", "no prompt"),
    ("decision", ("state", "pending", "labels"), ["only one"], "labels are not one text per option"),
    ("decision", ("state", "pending", "labels"), {"a": 1}, "labels are not one text per option"),
    ("together", ("state", "pending", "choices", 0, "labels"), [], "one label per option"),
]


@pytest.mark.parametrize("which,path,value,message", PINNED)
def test_a_tampered_save_is_refused_with_the_reason(which, path, value, message):
    rules, data = SAVES[which]()
    tampered = _edited(data, path, None, delete=True) if value == "delete" else _edited(data, path, value)
    with pytest.raises(SaveError, match="damaged") as refused:
        State.from_json(rules, json.dumps(tampered))
    assert message in str(refused.value)


def _use(state):
    """Every public query a resumed game answers (the ones a tampered save broke)."""
    if state.is_chance():
        for outcome, _ in state.chance_outcomes()[:2]:
            state.copy().apply_chance(outcome)
    for action in state.legal_actions()[:3]:
        state.copy().apply(action)
    for player in range(state.num_players):
        state.observe(player)
    state.current_player, state.is_simultaneous(), state.hash(), state.to_json()


def _paths(data):
    """Every key of the saved state, of its pending decision and of its chance node."""
    state = data["state"]
    yield from (("state", key) for key in state)
    for part in ("pending", "chance"):
        if isinstance(state.get(part), dict):
            yield from (("state", part, key) for key in state[part])


VALUES = [None, True, -1, 7, "", "x", [], [0], {}, {"a": 1}]


@pytest.mark.parametrize("which", sorted(SAVES))
def test_every_single_change_to_a_save_is_refused_or_resumes_cleanly(which):
    """Each key of the state, the decision and the chance node deleted or set to each of
    VALUES: `from_json` refuses with SaveError, or the game it gives answers every query,
    failing at most with a rule error (its values are the rules' to check)."""
    rules, data = SAVES[which]()
    findings = []
    for path in _paths(data):
        for value in ["delete"] + VALUES:
            tampered = _edited(data, path, None, delete=True) if value == "delete" else _edited(data, path, value)
            try:
                _use(State.from_json(rules, json.dumps(tampered)))
            except (SaveError, RuleRuntimeError, RulebookError):
                pass
            except Exception as error:  # noqa: BLE001 - the finding itself
                findings.append(f"{'.'.join(map(str, path))} = {value!r}: {type(error).__name__}: {error}"[:200])
    assert not findings, "\n".join(findings)


def test_a_save_given_as_data_is_read_through_a_copy():
    rules, data = SAVES["together"]()
    given = copy.deepcopy(data)
    state = State.from_json(rules, given)
    assert given == data  # the log was popped from the caller's dict before
    state.apply(state.legal_actions()[0])
    assert given == data  # and the state shared its lists with it
    with pytest.raises(SaveError, match="not a saved state"):
        State.from_json(rules, dict(data, extra={1, 2}))
