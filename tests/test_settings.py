"""Settings: one place per number a designer tunes, `--set NAME=VALUE` and load(settings=...)."""
import io
import json

import pytest

import interpreter
from interpreter.cli import run
from interpreter.errors import RulebookError
from interpreter.play import play_game
from interpreter.settings import parse_assignments


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("modules", [[], ["mean", "big"]])
def test_years_2_gives_two_year_games_in_base_and_big(modules):
    rs = interpreter.load("davos", modules, settings={"years": 2})
    assert rs.settings["years"] == 2
    for seed in range(3):
        result = play_game(rs, 3, seed, ["random"])
        assert result.error is None, result.error
        assert result.final_vars["year"] == 2
    default = interpreter.load("davos", modules)
    assert play_game(default, 3, 0, ["random"]).final_vars["year"] == 3


def test_digest_includes_overrides():
    assert interpreter.load("davos", settings={"years": 2}).digest != interpreter.load("davos").digest
    assert interpreter.load("davos").digest == interpreter.load("davos", settings={}).digest


def test_unknown_setting_suggests_the_name():
    with pytest.raises(RulebookError) as e:
        interpreter.load("davos", settings={"yeras": 2})
    d = e.value.diagnostics[0]
    assert "no setting 'yeras'" in d.message and "years" in d.hint
    assert d.pos.file.endswith("game.yaml") and d.pos.line > 0


def test_out_of_bounds_and_wrong_kind_are_errors():
    with pytest.raises(RulebookError, match="outside its declared bounds 1 to 10"):
        interpreter.load("davos", settings={"years": 20})
    with pytest.raises(RulebookError, match="is a number"):
        interpreter.load("davos", settings={"years": "two"})


def test_parse_assignments_reads_yaml_scalars_safely():
    assert parse_assignments(["years=2", "rate=0.5", "on=true", "name=abc"]) == \
        {"years": 2, "rate": 0.5, "on": True, "name": "abc"}
    for bad in ["years", "=2", "years=[1, 2]", "years="]:
        with pytest.raises(ValueError):
            parse_assignments([bad])
    # a tag is never constructed: the value stays the text written
    assert parse_assignments(["x=!!python/object/apply:os.system [ls]"]) == {"x": "!!python/object/apply:os.system [ls]"}


@pytest.mark.parametrize("command", [
    ["validate", "davos"], ["simulate", "davos", "--games", "2"], ["graph", "davos"],
    ["perft", "davos", "--depth", "1"], ["check", "davos", "--only", "setup"],
    ["doc", "davos"], ["diff", "davos", "davos"],
])
def test_every_loading_command_takes_set(command):
    code, out, err = _cli(*command, "--set", "yeras=2")
    assert code == 1 and "did you mean 'years'" in out + err, (code, out, err)


def test_cli_set_years_simulates_two_years(tmp_path):
    per_game = tmp_path / "games.jsonl"
    code, out, err = _cli("simulate", "davos", "-m", "mean", "-m", "big", "--games", "4",
                          "--set", "years=2", "--per-game", str(per_game))
    assert code == 0, err
    games = [json.loads(line) for line in per_game.read_text().splitlines()]
    assert len(games) == 4 and all(g["error"] is None and g["final_vars"]["year"] == 2 for g in games)


def test_cli_bad_set_is_a_usage_error():
    code, _, err = _cli("validate", "davos", "--set", "years")
    assert code == 2 and "NAME=VALUE" in err


def test_setting_reads_like_a_constant_in_a_small_ruleset(tmp_path):
    (tmp_path / "game.yaml").write_text(
        "game: {name: t, players: [1], start: p}\n"
        "settings:\n  rounds: {value: 2, min: 1, max: 5, source: 'made up'}\n"
        "vars: {n: {value: 0}}\n"
        "phases:\n  p:\n    kind: auto\n    effects: ['n += 1']\n"
        "    next: [{to: p, if: 'n < rounds'}, {to: end}]\n"
        "  end: {kind: end}\n"
        "assertions:\n  - {id: length, expect: 'n == rounds', when: end}\n")
    for value in (1, 2, 5):
        rs = interpreter.load(str(tmp_path), settings={"rounds": value})
        result = play_game(rs, 1, 0, ["random"])
        assert result.error is None and result.final_vars["n"] == value


def test_spawned_workers_load_the_same_overrides():
    from interpreter.runs import simulate

    rs = interpreter.load("davos", settings={"years": 2})
    records, _ = simulate(rs, None, 2, 4, 0, ["random"], jobs=2, start_method="spawn")
    assert [(r["error"], r["final_vars"]["year"]) for r in records] == [(None, 2)] * 4
