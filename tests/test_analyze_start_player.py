"""`game.start_player`: a ruleset names the var holding its start player, and analyze counts
turn positions from it (tests/rulesets/start_player: seat 0 always decides first, the start
player is drawn at set-up, so the order of first moves would be wrong)."""
import io
import json
import os
import sqlite3

import interpreter
from interpreter.cli import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "tests", "rulesets", "start_player")


def analyze(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(["analyze", *argv, "--quiet", "--json"], out, err, io.StringIO())
    return code, out.getvalue(), err.getvalue()


def test_declared_start_player_gives_the_start_order(tmp_path):
    db = str(tmp_path / "s.sqlite")
    code, out, err = analyze(RULES, "--players", "3", "--games", "12", "--db", db)
    assert code == 0, err
    assert json.loads(out)["start_order"] == "from the var first"
    rs = interpreter.load(RULES)
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT seed, start_order FROM games ORDER BY game_index").fetchall()
    starts = set()
    for seed, order in rows:
        first = rs.new_game(3, seed=seed).vars["first"]
        assert json.loads(order) == [first, (first + 1) % 3, (first + 2) % 3]
        starts.add(first)
    assert len(starts) > 1  # not always seat 0, which always moves first


def test_a_start_player_that_is_no_var_is_refused(tmp_path):
    folder = tmp_path / "sp"
    folder.mkdir()
    text = open(os.path.join(RULES, "game.yaml")).read().replace("start_player: first", "start_player: frist")
    (folder / "game.yaml").write_text(text)
    code, _, err = analyze(str(folder), "--games", "2", "--db", str(tmp_path / "x.sqlite"))
    assert code == 2 and "game.start_player (sp/game.yaml:" in err and "'frist' is not a top-level var" in err
    code, _, err = analyze(RULES, "--games", "2", "--start-var", "pos", "--db", str(tmp_path / "y.sqlite"))
    assert code == 2 and "--start-var: 'pos'" in err
