"""Error and refusal texts never quote another player's secret (docs/security.md, "Errors and
refusals"): tests/rulesets/secret_errors with its module `failing`, where player 0 hides a gem
worth 7, 8 or 9 and player 1's moves fail on it (an effect, a `choose` whose declared max is the
worth) or on their own gem (a label: one reading player 0's is not rendered, engine/labels.py). What player
1 can read of each failure is the same whatever the worth, on both engines; the designer's text
(`Outcome.reason`) keeps the value."""
import ast
import io
import json
import os
import re

import pytest

import interpreter
from interpreter.cli import run
from interpreter.engine.values import Outcome, public_refusal
from interpreter.errors import RuleRuntimeError

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "rulesets", "secret_errors")
WORTHS = (7, 8, 9)
ENGINES = ("reference", "compiled")


def _guessing(worth: int, engine: str):
    """The game at player 1's turn, player 0's gem worth `worth` (player 1's worth 7)."""
    state = interpreter.load(FOLDER, modules=["failing"]).new_game(2, seed=1, engine=engine)
    assert state.apply(f"hide(worth={worth})") and state.apply("hide(worth=7)")
    assert state.current_players == [1]
    return state


def _read_by_player_1(worth: int, engine: str) -> dict:
    """Everything player 1 reads of the three failures, player 0's gem worth `worth`."""
    state = _guessing(worth, engine)
    labels = [action.label for action in state.legal_actions()]
    poked = state.apply("poke")
    overbid = state.apply("overbid")
    assert state.apply("bid")
    bid = state.apply({"action": "choose", "args": {"value": 12}, "player": 1})
    return {"labels": labels, "poke": (poked.code, poked.public_reason), "bid": (bid.code, bid.public_reason),
            "overbid": (overbid.code, overbid.public_reason)}


def _line(name: str, words: str) -> int:
    """The line of the ruleset's file `name` that holds `words`."""
    with open(os.path.join(FOLDER, name), encoding="utf-8") as handle:
        return next(number for number, line in enumerate(handle, 1) if words in line)


def _names_a_worth(text: str) -> bool:
    """Whether `text` names a worth (7, 8 or 9) outside the rule file places (file:line:col)."""
    return re.search(r"\b[789]\b", re.sub(r"\S+\.yaml:\d+:\d+", "", text)) is not None


@pytest.mark.parametrize("engine", ENGINES)
def test_what_a_player_reads_of_a_failure_does_not_depend_on_another_players_secret(engine):
    seen = [_read_by_player_1(worth, engine) for worth in WORTHS]
    assert seen[0] == seen[1] == seen[2], seen
    label = seen[0]["labels"][0]
    assert label.startswith("peek(word=ruby) (label error at ") and f"game.yaml:{_line('game.yaml', 'label:')}:" in label
    assert "no such key in a map (in 'stash[player][word]')" in label  # the place, the expression, the kind
    assert seen[0]["poke"][0] == "rule_error" and f"failing.yaml:{_line('modules/failing.yaml', 'ruby')}:" in seen[0]["poke"][1]
    assert "no such key in a map (in 'bid = stash[0]['ruby']')" in seen[0]["poke"][1]
    assert seen[0]["bid"][0] == "not_an_option" and "max: stash[0]['gem']" in seen[0]["bid"][1]
    assert seen[0]["overbid"][0] == "rule_error" and "max: stash[0]['gem']" in seen[0]["overbid"][1]
    texts = [label, seen[0]["poke"][1], seen[0]["bid"][1], seen[0]["overbid"][1]]
    assert not any(_names_a_worth(text) for text in texts)


def test_both_engines_give_the_same_texts():
    assert _read_by_player_1(8, "reference") == _read_by_player_1(8, "compiled")


@pytest.mark.parametrize("engine", ENGINES)
def test_the_designer_still_reads_the_values(engine):
    state = _guessing(8, engine)
    poked = state.apply("poke")
    assert "no key 'ruby' in {'gem': 8}" in poked.reason
    assert "(min: 0, max: 8), but the rules list it" in state.apply("overbid").reason
    assert state.apply("bid")
    bid = state.apply({"action": "choose", "args": {"value": 12}, "player": 1})
    assert "(min: 0, max: 8)" in bid.reason


def test_a_failing_label_in_the_history_reads_the_same_whatever_the_secret():
    histories = []
    for worth in WORTHS:
        state = _guessing(worth, "reference")
        (peek,) = [action for action in state.legal_actions() if action.name == "peek"]
        assert state.apply(peek)
        histories.append(state.information_state(1)["history"][-1])
    assert histories[0] == histories[1] == histories[2]
    assert "label error" in histories[0]["action"]["label"]


def test_the_web_table_refuses_with_the_public_reason():
    pytest.importorskip("starlette")
    from interpreter.web.table import Refused, Table

    record = {"id": "g", "seats": ["human", "human"], "delay": 0, "players": 2, "seed": 1,
              "token_hashes": ["", ""], "moves": []}
    table = Table(record, interpreter.load(FOLDER, modules=["failing"]))
    assert table.state.apply("hide(worth=8)") and table.state.apply("hide(worth=7)")
    (poke,) = [action for action in table.legal_for(1) if action.name == "poke"]
    with pytest.raises(Refused) as refused:
        table.apply(poke, store=None)
    assert "no such key in a map" in str(refused.value) and not _names_a_worth(str(refused.value))


def test_rulebook_play_tells_the_player_the_public_reason(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    code = run(["play", FOLDER, "--module", "failing", "--agents", "random,human", "--seed", "1", "--save", str(tmp_path / "g.json")],
               out, err, io.StringIO("0\n1\nq\n"))  # player 1 hides a gem worth 7, then pokes
    assert code == 0, err.getvalue()
    refused = [line for line in out.getvalue().splitlines() if "refused:" in line]
    assert refused and "no such key in a map (in 'bid = stash[0]['ruby']')" in refused[0]
    assert "{'gem'" not in out.getvalue()


def _quotes_a_value(message) -> bool:
    """Whether an f-string formats a value with fmt, _short or repr (an error message that may
    quote a hidden value)."""
    return isinstance(message, ast.JoinedStr) and any(
        isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Call)
        and getattr(part.value.func, "id", None) in ("fmt", "_short", "repr") for part in message.values)


def test_every_runtime_error_that_quotes_a_value_has_a_plain_text():
    """A RuleRuntimeError (or located_error) whose message formats a value says `plain` too."""
    root = os.path.join(os.path.dirname(HERE), "interpreter")
    missing = []
    for folder, _, files in os.walk(root):
        for name in (name for name in files if name.endswith(".py")):
            path = os.path.join(folder, name)
            for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
                if not isinstance(node, ast.Call) or getattr(node.func, "id", None) not in ("RuleRuntimeError", "located_error"):
                    continue
                plain = any(keyword.arg == "plain" for keyword in node.keywords) or len(node.args) >= 3
                if node.args and _quotes_a_value(node.args[0]) and not plain:
                    missing.append(f"{os.path.relpath(path, root)}:{node.lineno}")
    # declared_bounds (a bound that is not a number) is another branch's to change: a known gap
    # (docs/security.md, "Known gaps")
    assert [place for place in missing if not place.startswith("engine/declared.py:")] == []
    assert len(missing) <= 2


def test_the_shown_text_names_the_place_and_expression():
    error = RuleRuntimeError("no key 'x' in {'gem': 8}", plain="no such key in a map")
    error.expression = "stash[0]['x']"
    assert error.shown() == "no such key in a map (in 'stash[0]['x']')"
    assert str(error) == "no key 'x' in {'gem': 8}"


def test_rulebook_replay_for_a_player_shows_the_public_reason(tmp_path):
    moves = [{"action": "hide", "args": {"worth": 8}, "player": 0}, {"action": "hide", "args": {"worth": 7}, "player": 1},
             {"action": "poke", "args": {}, "player": 1}]
    path = tmp_path / "poked.json"
    path.write_text(json.dumps({"ruleset": FOLDER, "modules": ["failing"], "players": 2, "seed": 1, "actions": moves}))
    texts = {}
    for argv in ([], ["--player", "1"]):
        out, err = io.StringIO(), io.StringIO()
        run(["replay", str(path)] + argv, out, err, io.StringIO())
        texts[bool(argv)] = out.getvalue() + err.getvalue()
    assert "REFUSED" in texts[True] and "no such key in a map" in texts[True] and "{'gem'" not in texts[True]
    assert "no key 'ruby' in {'gem': 8}" in texts[False]  # the whole record: the designer's text


# `Outcome.public_reason` fails closed ------------------------------------------------------------
# the refusals whose public text formats a value: each quotes only what the caller gave
# (an answer, an id, an action, a number of moves to take back, a chance outcome)
QUOTING_THE_CALLERS_INPUT = {("engine/legal.py", "not_an_option"), ("engine/legal.py", "bad_parameter"),
                             ("engine/acting.py", "bad_action"), ("engine/acting.py", "nothing_to_undo"),
                             ("engine/acting.py", "not_an_outcome"), ("engine/acting.py", "unknown_action"),
                             ("engine/acting.py", "which_player"), ("compiled/game.py", "bad_action"),
                             ("compiled/undoing.py", "nothing_to_undo")}


def _formats_a_value(message) -> bool:
    """Whether a refusal's text (an f-string, maybe sliced or concatenated) formats a value
    with fmt, repr or `!r`."""
    return any(isinstance(part, ast.FormattedValue) and (part.conversion == ord("r") or (
        isinstance(part.value, ast.Call) and getattr(part.value.func, "id", None) in ("fmt", "_short", "repr")))
        for node in ast.walk(message) if isinstance(node, ast.JoinedStr) for part in node.values)


def test_a_refusal_that_does_not_say_its_text_is_public_shows_only_its_kind():
    outcome = Outcome(False, "rule_error", "no key 'ruby' in {'gem': 8}")
    assert outcome.public_reason == "rule_error" and outcome.reason == "no key 'ruby' in {'gem': 8}"
    assert public_refusal("game_over", "the game is over").public_reason == "the game is over"


def test_every_public_refusal_that_formats_a_value_quotes_the_callers_input():
    """`public_refusal` says its text quotes no value the rules evaluated: a text that formats a
    value is one of the known places, each quoting what the caller gave."""
    root = os.path.join(os.path.dirname(HERE), "interpreter")
    found = set()
    for folder, _, files in os.walk(root):
        for name in (name for name in files if name.endswith(".py")):
            path = os.path.join(folder, name)
            for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "public_refusal" \
                        and len(node.args) == 2 and _formats_a_value(node.args[1]):
                    found.add((os.path.relpath(path, root), getattr(node.args[0], "value", "?")))
    assert found == QUOTING_THE_CALLERS_INPUT


@pytest.mark.parametrize("engine", ENGINES)
def test_a_designers_fail_text_stays_public(engine):
    """A `fail:` reason is a literal text of the rules: the players read it as written."""
    rules = interpreter.load(os.path.join(HERE, "rulesets", "zone_alias"), settings={"change_mind": 1})
    state = rules.new_game(2, seed=1, engine=engine)
    refused = state.apply(next(action for action in state.legal_actions() if action.name == "give_up"))
    assert not refused and refused.code == "refused" and refused.public_reason == "changed my mind"
