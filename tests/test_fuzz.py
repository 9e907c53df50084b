"""Seeded fuzzing (issue 16): mutated rule files, scenario files, replays and saved states go
through the command line's `run()` (validate, check, replay) or `State.from_json`, and must
end with exit code 0, 1 or 2 — never an uncaught exception, never a hang.

Every case is bounded (an alarm stops one that runs past CASE_SECONDS) and the whole file is
sized to take some 20-40 s; the seed is fixed, so a failure is reproduced by rerunning. A case
that fails prints its mutation, so it can be turned into a golden test."""
from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal

import pytest

from interpreter.cli import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 16
CASE_SECONDS = 20

pytestmark = pytest.mark.fuzz


class _Hang(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Hang()


def _run(argv, stdin_text=""):
    """(exit code, None) or (None, what went wrong) for one command, bounded in time."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(CASE_SECONDS)
    try:
        code = run(list(argv), out, err, io.StringIO(stdin_text))
    except _Hang:
        return None, f"no answer within {CASE_SECONDS} s"
    except RecursionError:
        return None, "RecursionError"
    except Exception as e:  # noqa: BLE001 - the finding itself
        return None, f"{type(e).__name__}: {e} [{_raised_in(e)}]"[:300]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if code not in (0, 1, 2):
        return None, f"exit code {code}"
    if "Traceback" in err.getvalue():
        return None, "a traceback on stderr"
    return code, None


def _raised_in(error) -> str:
    """The interpreter module (path under interpreter/) whose code raised `error`."""
    import traceback

    frames = [f.filename for f in traceback.extract_tb(error.__traceback__)]
    ours = [f for f in frames if os.sep + "interpreter" + os.sep in f]
    return os.path.relpath(ours[-1], ROOT) if ours else "?"


def _report(findings, total):
    """Fail on any finding, wherever it was raised: the loading path, the scenario runner and
    the saved state refuse bad input with a reason (they were expected failures until then)."""
    assert not findings, f"{len(findings)} of {total} cases failed:\n" + "\n".join(findings[:15])


# ------------------------------------------------------------------ mutations
TOKENS = ["", "0", "-1", "1e400", "999999999999999999999", "null", "true", "[]", "{}", "'x'", "\"",
          "[[[[", "&a x", "*a", "!!python/object:os.system", "{{", "}", "range(100000)", "players",
          "~", "- ", ": ", "#", "\t", "\\u0000", "é", "../../etc/passwd"]


def _mutate_text(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    kind = rng.randrange(7)
    if kind == 0 and text:  # flip one byte
        data = bytearray(text.encode("utf-8"))
        i = rng.randrange(len(data))
        data[i] = rng.randrange(256)
        return data.decode("utf-8", errors="replace")
    if kind == 1 and len(lines) > 1:  # drop a line
        del lines[rng.randrange(len(lines))]
    elif kind == 2:  # duplicate a line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif kind == 3:  # replace a value after a colon
        i = rng.randrange(len(lines))
        head, sep, _ = lines[i].partition(": ")
        lines[i] = head + (sep or ": ") + rng.choice(TOKENS)
    elif kind == 4:  # rename a key
        i = rng.randrange(len(lines))
        head, sep, tail = lines[i].partition(":")
        if sep:
            lines[i] = head[:-1] + rng.choice("xyz_") + sep + tail if head else lines[i]
    elif kind == 5:  # insert a token somewhere
        i = rng.randrange(len(lines))
        at = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:at] + rng.choice(TOKENS) + lines[i][at:]
    else:  # truncate
        return text[: rng.randrange(len(text) + 1)]
    return "\n".join(lines)


def _mutate_json(value, rng: random.Random, depth=0):
    """One change somewhere inside a JSON value."""
    if isinstance(value, dict) and value and depth < 6 and rng.random() < 0.8:
        key = rng.choice(list(value))
        copy = dict(value)
        if rng.random() < 0.15:
            del copy[key]
        else:
            copy[key] = _mutate_json(value[key], rng, depth + 1)
        return copy
    if isinstance(value, list) and value and depth < 6 and rng.random() < 0.8:
        i = rng.randrange(len(value))
        copy = list(value)
        copy[i] = _mutate_json(value[i], rng, depth + 1)
        return copy
    return rng.choice([None, True, -1, 0, 7, 10 ** 30, 1.5, float("1e308"), "", "x", "\ud800", [], {},
                       [[[[[]]]]], {"a": 1}, "players", 2 ** 63])


def _copy_ruleset(name, tmp_path):
    target = tmp_path / name
    shutil.copytree(os.path.join(ROOT, "rulesets", name), target)
    return target


def _rule_files(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder)
                  for f in fs if f.endswith(".yaml") and "examples" not in d)


# ------------------------------------------------------------------ the cases
@pytest.mark.parametrize("name, cases", [("tictactoe", 90), ("kuhn-poker", 90), ("davos", 40)])
def test_mutated_rule_files_validate_or_fail_cleanly(name, cases, tmp_path):
    rng = random.Random(f"{SEED}-rules-{name}")
    folder = _copy_ruleset(name, tmp_path)
    files = _rule_files(folder)
    originals = {f: (folder / f).read_text(encoding="utf-8") for f in files}
    findings = []
    for case in range(cases):
        chosen = rng.choice(files)
        mutated = _mutate_text(originals[chosen], rng)
        (folder / chosen).write_text(mutated, encoding="utf-8", errors="surrogateescape")
        code, problem = _run(["validate", str(folder), "--all-combinations"])
        if problem:
            findings.append(f"case {case}: {chosen}: {problem}")
        (folder / chosen).write_text(originals[chosen], encoding="utf-8")
    _report(findings, cases)


@pytest.mark.parametrize("name, cases", [("tictactoe", 40), ("kuhn-poker", 60)])
def test_mutated_scenario_files_check_or_fail_cleanly(name, cases, tmp_path):
    rng = random.Random(f"{SEED}-scenarios-{name}")
    folder = _copy_ruleset(name, tmp_path)
    examples = sorted((folder / "examples").glob("*.yaml"))
    originals = {p: p.read_text(encoding="utf-8") for p in examples}
    findings = []
    for case in range(cases):
        chosen = rng.choice(examples)
        mutated = _mutate_text(originals[chosen], rng)
        chosen.write_text(mutated, encoding="utf-8", errors="surrogateescape")
        code, problem = _run(["check", str(folder)])
        if problem:
            findings.append(f"case {case}: {chosen.name}: {problem}\n{mutated[:400]}")
        chosen.write_text(originals[chosen], encoding="utf-8")
    _report(findings, cases)


def _recorded_replay(name, tmp_path, seed):
    """A replay written by `rulebook play` between two random agents."""
    save = tmp_path / f"{name}-{seed}.json"
    code, problem = _run(["play", name, "--agents", "random,random", "--seed", str(seed), "--save", str(save)])
    assert code == 0, problem
    return json.loads(save.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name, cases", [("tictactoe", 60), ("kuhn-poker", 60)])
def test_mutated_replays_replay_or_fail_cleanly(name, cases, tmp_path):
    rng = random.Random(f"{SEED}-replays-{name}")
    replays = [_recorded_replay(name, tmp_path, seed) for seed in range(3)]
    findings = []
    path = tmp_path / "mutated.replay.json"
    for case in range(cases):
        mutated = _mutate_json(rng.choice(replays), rng)
        text = json.dumps(mutated) if rng.random() < 0.8 else _mutate_text(json.dumps(mutated), rng)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        code, problem = _run(["replay", str(path)])
        if problem:
            findings.append(f"case {case}: {problem}\n{text[:300]}")
    _report(findings, cases)


@pytest.mark.parametrize("name, cases", [("tictactoe", 60), ("kuhn-poker", 60)])
def test_mutated_saved_states_load_or_are_refused(name, cases):
    """`State.from_json` of a tampered save either gives a state that answers the public
    queries (each player's observation included), or refuses with the project's errors:
    SaveError (the save), RulebookError, RuleRuntimeError (a rule failing on its values)."""
    import interpreter
    from interpreter.errors import RulebookError, RuleRuntimeError
    from interpreter.state import SaveError

    rng = random.Random(f"{SEED}-saves-{name}")
    rs = interpreter.load(name)
    saves = []
    for seed in range(3):
        state = rs.new_game(rs.players[0], seed=seed)
        for _ in range(rng.randrange(1, 5)):
            if state.is_terminal:
                break
            state.apply(rng.choice(state.legal_actions()))
        saves.append(json.loads(state.to_json()))
    findings = []
    for case in range(cases):
        text = json.dumps(_mutate_json(rng.choice(saves), rng))
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(CASE_SECONDS)
        try:
            state = type(state).from_json(rs, text)
            if not state.is_terminal:
                for action in state.legal_actions()[:3]:
                    state.copy().apply(action)
            state.hash()
            state.to_json()
            for player in range(state.num_players):
                state.observe(player)
        except (SaveError, RulebookError, RuleRuntimeError):
            pass
        except Exception as e:  # noqa: BLE001 - the finding itself
            findings.append(f"case {case}: {type(e).__name__}: {e} [{_raised_in(e)}]"[:200] + f"\n{text[:300]}")
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    _report(findings, cases)
