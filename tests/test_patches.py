"""Variants as patches: path-addressed changes, named assertions, modules declared once, and
one test of which module combinations exist (validate and simulate agree)."""
import io
import os

import pytest

import interpreter
from interpreter.cli import run
from interpreter.errors import RulebookError
from interpreter.play import play_game

GAME = """\
game: {name: p, players: [1, 2], start: count}
settings:
  rounds: {value: 3, min: 1, max: 9, source: "made up"}
vars: {n: {value: 0}, bonus: {value: 0}}
phases:
  count:
    kind: auto
    effects: ["n += 1"]
    next: [{to: count, if: "n < rounds"}, {to: done}]
  done: {kind: end}
modules:
  quick: {file: quick.yaml}
  extra: {file: extra.yaml}
  odd: {file: odd.yaml, excludes: [quick]}
combinations:
  - {modules: [], players: [1, 2]}
  - {modules: [odd], players: [2]}
assertions:
  - {id: length, expect: "n == rounds", when: end, message: "the game lasts its rounds"}
  - {expect: "true", message: "unnamed"}
"""


def _write(folder, files):
    for name, text in files.items():
        (folder / name).write_text(text)
    return str(folder)


@pytest.fixture
def game(tmp_path):
    return _write(tmp_path, {
        "game.yaml": GAME,
        "quick.yaml": "patch:\n  settings.rounds.value: 1\n",
        "extra.yaml": "patch:\n  phases.count.next.0.if: 'n < rounds + 1'\n  assertions.length: null\n",
        "odd.yaml": "patch:\n  assertions.length: {id: length, expect: 'n == 3', when: end}\n",
    })


def _end_value(rs, players=1):
    result = play_game(rs, players, 0, ["random"])
    assert result.error is None, result.error
    return result.final_vars["n"]


def test_a_patch_changes_one_key(game):
    assert _end_value(interpreter.load(game)) == 3
    assert _end_value(interpreter.load(game, ["quick"])) == 1
    assert _end_value(interpreter.load(game, ["extra"])) == 4  # the assertion it removed would fail
    assert _end_value(interpreter.load(game)) == 3  # the files' trees were not changed


def test_a_patch_keeps_positions(game):
    rs = interpreter.load(game, ["extra"])
    phase = rs.tree["phases"]["count"]
    assert phase["next"][0]["if"].pos.file.endswith("extra.yaml")
    assert [a[2] for a in rs.assertions] == ["unnamed"]


def test_replace_a_named_assertion(game):
    rs = interpreter.load(game, ["odd"])
    assert len(rs.assertions) == 2 and "n == 3" in str(rs.tree["assertions"][0]["expect"])


@pytest.mark.parametrize("patch, message, hint", [
    ("phases.cuont.next: []", "'phases.cuont' does not exist", "did you mean 'count'"),
    ("phases.count.next.5.if: 'true'", "numbered 0 to 1", None),
    ("assertions.lenght: null", "no assertion has id 'lenght'", "did you mean 'length'"),
    ("setings.rounds.value: 2", "no section 'setings'", "did you mean 'settings'"),
])
def test_a_bad_path_is_an_error_at_the_patch(tmp_path, patch, message, hint):
    folder = _write(tmp_path, {"game.yaml": GAME, "quick.yaml": f"patch:\n  {patch}\n",
                               "extra.yaml": "{}\n", "odd.yaml": "{}\n"})
    with pytest.raises(RulebookError) as e:
        interpreter.load(folder, ["quick"])
    d = e.value.diagnostics[0]
    assert message in d.message + " " + (d.hint or "") and d.pos.file.endswith("quick.yaml") and d.pos.line == 2
    if hint:
        assert hint in d.hint


def test_two_modules_patching_one_path_differently_conflict(tmp_path):
    folder = _write(tmp_path, {"game.yaml": GAME, "quick.yaml": "patch: {settings.rounds.value: 1}\n",
                               "extra.yaml": "patch: {settings.rounds.value: 2}\n", "odd.yaml": "{}\n"})
    with pytest.raises(RulebookError, match="both patch settings.rounds.value differently"):
        interpreter.load(folder, ["quick", "extra"])


def test_patch_only_in_a_module(tmp_path):
    folder = _write(tmp_path, {"game.yaml": GAME + "patch: {settings.rounds.value: 1}\n",
                               "quick.yaml": "{}\n", "extra.yaml": "{}\n", "odd.yaml": "{}\n"})
    with pytest.raises(RulebookError, match="only in a module file"):
        interpreter.load(folder)


def test_modules_declared_once_join_every_combination(game):
    rs = interpreter.load(game)
    combos = {"+".join(c["modules"]): c["players"] for c in rs.combinations}
    # quick and extra are in no listed combination: they join both; quick excludes odd
    assert combos == {"": [1, 2], "extra": [1, 2], "quick": [1, 2], "extra+quick": [1, 2],
                      "odd": [2], "extra+odd": [2]}


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    return run(list(argv), out, err), out.getvalue(), err.getvalue()


def test_validate_and_simulate_agree_on_combinations(game):
    # odd is allowed for 2 players only, and never with quick (excludes)
    for command in (["validate", game], ["simulate", game, "--games", "1", "--players", "2"]):
        code, out, err = _cli(*command, "-m", "odd")
        assert code == 0, err
        code, out, err = _cli(*command, "-m", "odd", "-m", "quick")
        assert code == 1 and "excludes" in err
    davos = interpreter.load("davos")
    # a combination nobody allows: teams with dissidents are excluded at composition for both
    for command in (["validate", "davos"], ["simulate", "davos", "--games", "1"]):
        code, _, err = _cli(*command, "-m", "teams", "-m", "dissidents")
        assert code == 1 and "excludes" in err
    assert len(davos.combinations) == 18  # 9 listed, each with and without the short house rule


def test_validate_refuses_what_simulate_refuses(tmp_path):
    folder = _write(tmp_path, {"game.yaml": GAME.replace("  odd: {file: odd.yaml, excludes: [quick]}",
                                                         "  odd: {file: odd.yaml}"),
                               "quick.yaml": "{}\n", "extra.yaml": "{}\n", "odd.yaml": "{}\n"})
    # odd is listed (alone); quick is free; quick+odd is derived; but listing odd+extra+... is fine.
    rs = interpreter.load(folder)
    assert ["odd", "quick"] in [c["modules"] for c in rs.combinations]
    listed_only = GAME.replace("combinations:\n", "combinations:\n  - {modules: [quick, extra], players: [1]}\n")
    folder2 = tmp_path / "two"
    folder2.mkdir()
    _write(folder2, {"game.yaml": listed_only, "quick.yaml": "{}\n", "extra.yaml": "{}\n", "odd.yaml": "{}\n"})
    for command in (["validate", str(folder2)], ["simulate", str(folder2), "--games", "1"]):
        code, _, err = _cli(*command, "-m", "quick")  # listed only together with extra
        assert code == 1 and "is not one the game allows" in err, (command, err)


def test_davos_short_game_is_small_and_joins_every_combination():
    path = os.path.join(os.path.dirname(__file__), "..", "rulesets", "davos", "modules", "short.yaml")
    assert len(open(path).read().splitlines()) <= 5
    davos = interpreter.load("davos")
    joined = [c for c in davos.combinations if "short" in c["modules"]]
    assert len(joined) == 9
    for combo in joined:
        rs = interpreter.load("davos", combo["modules"])
        result = play_game(rs, combo["players"][0], 1, ["random"])
        assert result.error is None, (combo, result.error)
        assert result.final_vars["year"] == 2


def test_a_patch_changes_one_field_of_one_card(tmp_path):
    folder = _write(tmp_path, {
        "game.yaml": GAME + "components:\n  bill:\n    drill: {home: 3, other: 2}\n",
        "quick.yaml": "patch:\n  components.bill.drill.home: 4\n", "extra.yaml": "{}\n", "odd.yaml": "{}\n"})
    assert interpreter.load(folder, ["quick"]).entities["drill"]["home"] == 4
    assert interpreter.load(folder).entities["drill"] == {"id": "drill", "type": "bill", "home": 3, "other": 2}
