"""`rulebook analyze`: statistics against known values, records in SQLite, resume after a kill,
coverage of planted dead rules, variants, restricted play, the HTML report in headless
Chromium, and the Ray backend against --jobs 1."""
import io
import json
import math
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib

import pytest

from interpreter.analyze.stats import chi2_equal_rates, chi2_sf, games_for_width, newcombe_diff, wilson
from interpreter.cli import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO())
    return code, out.getvalue(), err.getvalue()


def analyze_json(*argv):
    code, out, err = cli("analyze", *argv, "--json", "--quiet")
    assert code == 0, err
    return json.loads(out)


def stored(db, *columns):
    with sqlite3.connect(db) as con:
        return con.execute(f"SELECT {', '.join(columns)} FROM games ORDER BY run_id, game_index").fetchall()


# ----------------------------------------------------------------------------- statistics
def test_wilson_known_values():
    low, high = wilson(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson(0, 10)
    assert low == 0 and round(high, 4) == 0.2775
    low, high = wilson(562, 2000)  # the 28.1 % [26.2, 30.1]
    assert (round(100 * low, 1), round(100 * high, 1)) == (26.2, 30.1)


def test_chi2_survival_known_values():
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(7.814727903251178, 3) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(18.307038053275146, 10) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(2.0, 2) == pytest.approx(math.exp(-1), rel=1e-12)
    assert chi2_sf(11.3, 3) == pytest.approx(0.010213, rel=1e-3)  # the p ≈ 0.01
    assert chi2_sf(100.0, 3) == pytest.approx(1.5739e-21, rel=1e-3)
    assert chi2_sf(0.0, 4) == 1.0


def test_chi2_equal_rates_and_newcombe():
    test = chi2_equal_rates([30, 20], [100, 100])
    # 2x2 table: won 30/20, lost 70/80 -> chi2 = 2.6667 without continuity correction
    assert test["chi2"] == pytest.approx(2.6667, rel=1e-4) and test["dof"] == 1
    assert test["p_value"] == pytest.approx(0.10247, rel=1e-3)
    diff, low, high = newcombe_diff(48, 80, 56, 70)  # Newcombe 1998, example (method 10)
    assert (round(diff, 4), round(low, 4), round(high, 4)) == (0.2, 0.0524, 0.3339)
    assert games_for_width(0.25, 0.04) == 1801


# ----------------------------------------------------------------------------- runs and records
def test_analyze_json_records_and_from_db(tmp_path):
    db = str(tmp_path / "r.sqlite")
    report = analyze_json("tictactoe", "--games", "30", "--db", db)
    assert report["games"] == 30 and report["completed"] == 30
    position = report["by_position"]
    assert set(position["rates"]) == {"0", "1"} and 0 <= position["p_value"] <= 1 and "chi2" in position
    first = position["rates"]["0"]
    assert first["ci"][0] <= first["rate"] <= first["ci"][1]
    # tic-tac-toe: the start player is the one who moves first, seat 0
    rows = stored(db, "seed", "digest", "start_order", "agents", "winners", "record")
    assert [r[0] for r in rows] == list(range(30))
    assert {r[1] for r in rows} == {report["digest"]}
    assert all(json.loads(r[2]) == [0, 1] for r in rows)
    record = json.loads(rows[0][5])
    assert record["actions"]["place"] and record["final_vars"]["board"] and record["branching"][0] == 9
    again = analyze_json("tictactoe", "--db", db, "--from-db")
    assert again["by_position"] == position and again["not_replayed"] is True
    assert len(stored(db, "seed")) == 30


def test_kill_and_resume_loses_and_duplicates_nothing(tmp_path):
    db = str(tmp_path / "kill.sqlite")
    argv = [sys.executable, "-m", "interpreter", "analyze", "davos", "--players", "4", "--games", "150",
            "--db", db, "--quiet", "--json"]
    env = dict(os.environ, PYTHONPATH=ROOT, RULEBOOK_CACHE="0")
    proc = subprocess.Popen(argv, cwd=str(tmp_path), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(db) and _count(db) >= 10:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    kept = _count(db)
    assert 10 <= kept < 150
    before = {row[0]: row[1] for row in stored(db, "game_index", "record")}
    done = subprocess.run(argv + ["--resume"], cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = stored(db, "game_index", "record")
    assert [r[0] for r in rows] == list(range(150))  # none lost, none twice
    assert all(before[index] == record for index, record in rows if index in before)  # finished games kept
    # a resumed game is the game an uninterrupted run plays
    import interpreter
    from interpreter.analyze.runner import RunConfig, play_recorded_game

    rs = interpreter.load("davos")
    last = json.loads(rows[-1][1])
    assert play_recorded_game(rs, RunConfig("davos", [], 4, ["random"]), 149) == last


def _count(db):
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_resume_refuses_other_rules(tmp_path):
    folder = tmp_path / "ttt"
    shutil.copytree(os.path.join(ROOT, "rulesets", "tictactoe"), folder)
    db = str(tmp_path / "r.sqlite")
    assert cli("analyze", str(folder), "--games", "5", "--db", db, "--quiet")[0] == 0
    game = folder / "game.yaml"
    game.write_text(game.read_text().replace("traditional rules", "traditional rules, edited"))
    code, out, err = cli("analyze", str(folder), "--games", "8", "--db", db, "--quiet", "--resume")
    assert code == 1 and "rules changed" in err and "digest" in err


def test_failing_games_are_counted_not_lost(tmp_path):
    folder = tmp_path / "ttt"
    shutil.copytree(os.path.join(ROOT, "rulesets", "tictactoe"), folder)
    game = folder / "game.yaml"
    game.write_text(game.read_text().replace("      - board[cell] = marks[player]\n",
                                              "      - board[cell] = marks[player]\n"
                                              "      - if: \"cell == 4\"\n        then: [\"winner = board[99]\"]\n"))
    db = str(tmp_path / "e.sqlite")
    report = analyze_json(str(folder), "--games", "20", "--db", db)
    assert report["errors"] > 0 and report["completed"] + report["errors"] == 20
    assert sum(report["errors_by_kind"].values()) == report["errors"]
    assert len(stored(db, "seed")) == 20 and all(row[0] for row in stored(db, "error") if row[0] is not None)


# ----------------------------------------------------------------------------- coverage
PLANTED = """
components:
  goal:
    goal_dead: {needs: 10}
    goal_live: {needs: 1}
"""


def test_coverage_lists_planted_dead_action_and_card(tmp_path):
    folder = tmp_path / "ttt"
    shutil.copytree(os.path.join(ROOT, "rulesets", "tictactoe"), folder)
    game = folder / "game.yaml"
    text = game.read_text()
    text = text.replace("vars:\n", "vars:\n  goals_open:\n    value: [goal_dead, goal_live]\n"
                                   "  goals_won:\n    per_player: true\n    value: []\n", 1)
    text = text.replace("actions:\n", "actions:\n  claim:\n    params:\n      g: \"[x for x in goals_open]\"\n"
                                      "    requires: {expr: \"count(board, 'X') >= g.needs\", reason: not yet}\n"
                                      "    effects:\n      - goals_open = [x for x in goals_open if x != g]\n"
                                      "      - goals_won[player] = goals_won[player] + [g]\n"
                                      "  resign:\n    requires: {expr: \"len(board) > 9\", reason: never}\n"
                                      "    effects: [\"winner = 1 - player\"]\n", 1)
    text = text.replace("actions: [place]", "actions: [place, claim, resign]")
    game.write_text(text + PLANTED)
    report = analyze_json(str(folder), "--games", "40", "--db", str(tmp_path / "c.sqlite"))
    assert report["errors"] == 0
    coverage = report["coverage"]
    never_legal = {a["action"]: a["where"] for a in coverage["actions_never_legal"]}
    lines = game.read_text().splitlines()
    assert set(never_legal) == {"resign"}
    path, line = never_legal["resign"].rsplit(":", 1)
    assert path.endswith("game.yaml") and lines[int(line) - 1].strip() == "resign:"
    dead = {c["component"]: c for c in coverage["components_never_moved"]}
    assert set(dead) == {"goal_dead"} and dead["goal_dead"]["zone"] == "goals_open"
    path, line = dead["goal_dead"]["where"].rsplit(":", 1)
    assert lines[int(line) - 1].strip().startswith("goal_dead:")
    never_claimed = {c["component"]: c["where"] for c in coverage["components_never_chosen"]}
    assert set(never_claimed) == {"goal_dead"} and never_claimed["goal_dead"] == dead["goal_dead"]["where"]
    assert coverage["phases_never_entered"] == []
    assert coverage["not_measured"] == [] and coverage["rule_points"]["total"] > 0
    held = {row["name"]: row for row in report["influence"]["cards_held"]}
    assert held["goal_live"]["player_games"] > 0
    code, out, _ = cli("analyze", str(folder), "--games", "40", "--db", str(tmp_path / "c.sqlite"), "--from-db")
    assert code == 0 and "action never legal: resign (" in out and "goal_dead in goals_open (" in out


# ----------------------------------------------------------------------------- variants
def test_set_compare_sweep_and_restrict(tmp_path):
    db = str(tmp_path / "v.sqlite")
    report = analyze_json("kuhn-poker", "--games", "30", "--db", db, "--set", "pot=4", "--compare", "pot=0",
                          "--sweep", "pot=0,10", "--restrict", "bet")
    assert report["overrides"] == {"pot": 4}
    with sqlite3.connect(db) as con:
        overrides = {row[0] for row in con.execute("SELECT overrides FROM games")}
    assert overrides == {'{"pot": 4}', '{"pot": 0}', '{"pot": 10}'}
    comparison = report["compare"][0]
    assert comparison["variant"] == "pot=0" and comparison["games"] == 30
    assert set(comparison["metrics"]) >= {"win rate, position 0", "mean steps", "draw rate"}
    assert report["sweep"]["values"] == [0, 10] and len(report["sweep"]["series"]["mean steps"]) == 2
    restricted = report["restricted_play"]
    assert restricted["games"] == 30 and restricted["ci"][0] <= restricted["difference"] <= restricted["ci"][1]
    rows = [json.loads(r[0]) for r in stored(db, "record")]
    never_bets = [r for r in rows if r.get("restricted_seat") is not None]
    assert never_bets and all((r["actions"].get("bet") or [0, 0])[r["restricted_seat"]] == 0
                              or r["restricted_forced"] for r in never_bets)


def test_set_overrides_a_var_and_a_constant_without_touching_the_files():
    import interpreter
    from interpreter.analyze.variants import apply_overrides

    kuhn = interpreter.load("kuhn-poker")
    normal = kuhn.new_game(2, seed=1).vars["pot"]
    assert apply_overrides(kuhn, {"pot": 4}).new_game(2, seed=1).vars["pot"] == normal + 4
    assert kuhn.new_game(2, seed=1).vars["pot"] == normal  # the loaded ruleset is unchanged
    ttt = interpreter.load("tictactoe")
    other = apply_overrides(ttt, {"marks": ["A", "B"]})
    state = other.new_game(2, seed=0)
    state.apply(state.legal_actions()[0])
    # the variant's digest is the rules' digest with the values added (what its records store)
    assert "A" in state.vars["board"] and other.digest != ttt.digest
    state = ttt.new_game(2, seed=0)
    state.apply(state.legal_actions()[0])
    assert "X" in state.vars["board"]


def test_usage_errors():
    assert cli("analyze", "tictactoe", "--set", "nothing_like_it=3", "--db", ":memory:")[0] == 2
    assert cli("analyze", "tictactoe", "--agents", "human", "--db", ":memory:")[0] == 2
    assert cli("analyze", "tictactoe", "--agents", "mcts:time=x", "--db", ":memory:")[0] == 2
    assert cli("analyze", "tictactoe", "--jobs", "0", "--db", ":memory:")[0] == 2
    code, _, err = cli("analyze", "tictactoe", "--resume", "--from-db")
    assert code == 2 and "choose one" in err


def test_timed_mcts_and_jobs(tmp_path):
    from interpreter.analyze.agents import TimedMCTSAgent, build_agent

    assert isinstance(build_agent("mcts:time=0.01", 1), TimedMCTSAgent)
    report = analyze_json("tictactoe", "--games", "4", "--agents", "mcts:time=0.005,random", "--jobs", "2",
                          "--db", str(tmp_path / "m.sqlite"))
    assert report["completed"] == 4 and report["by_agent"]["rates"]["random"]["games"] == 4
    one = analyze_json("kuhn-poker", "--games", "12", "--jobs", "1", "--db", str(tmp_path / "a.sqlite"))
    two = analyze_json("kuhn-poker", "--games", "12", "--jobs", "auto", "--db", str(tmp_path / "b.sqlite"))
    assert one["by_position"] == two["by_position"]
    assert stored(str(tmp_path / "a.sqlite"), "record") == stored(str(tmp_path / "b.sqlite"), "record")


def test_rotate_reports_by_agent(tmp_path):
    report = analyze_json("tictactoe", "--games", "10", "--agents", "greedy,random", "--rotate",
                          "--db", str(tmp_path / "r.sqlite"))
    assert set(report["by_agent"]["rates"]) == {"greedy", "random"}
    assert report["by_agent"]["rates"]["greedy"]["games"] == 10


def test_start_order_from_a_named_var(tmp_path):
    import interpreter

    db = str(tmp_path / "s.sqlite")
    report = analyze_json("davos", "--players", "4", "--games", "3", "--start-var", "start_seat", "--db", db)
    assert report["start_order"] == "from the var start_seat"
    davos = interpreter.load("davos")
    for seed, order in stored(db, "seed", "start_order"):
        start = davos.new_game(4, seed=seed).vars["start_seat"]
        assert json.loads(order) == [(start + k) % 4 for k in range(4)]


def test_progress_on_stderr(tmp_path):
    code, out, err = cli("analyze", "tictactoe", "--games", "3", "--db", str(tmp_path / "p.sqlite"), "--json")
    assert code == 0 and "3/3 games" in err and "ETA" in err and json.loads(out)["games"] == 3


# ----------------------------------------------------------------------------- HTML in Chromium
def _png_colours(path) -> int:
    """Distinct RGB(A) colours of a PNG (8-bit, non-interlaced), with zlib only."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
            channels = {2: 3, 6: 4}[body[9]]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    for row in range(height):
        start = row * (stride + 1)
        line = _unfilter(raw[start], bytearray(raw[start + 1:start + 1 + stride]), previous, channels)
        if row % 8 == 0:
            colours.update(bytes(line[i:i + 3]) for i in range(0, stride, channels * 4))
        previous = line
    return len(colours)


def _unfilter(kind, line, previous, bpp):
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = previous[i]
        corner = previous[i - bpp] if i >= bpp else 0
        if kind == 1:
            line[i] = (line[i] + left) & 255
        elif kind == 2:
            line[i] = (line[i] + up) & 255
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 255
        elif kind == 4:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
            line[i] = (line[i] + predictor) & 255
    return line


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_html_report_renders_in_headless_chromium(tmp_path):
    pytest.importorskip("matplotlib")
    html = tmp_path / "report.html"
    code, out, err = cli("analyze", "davos", "--players", "4", "--games", "40", "--db", str(tmp_path / "h.sqlite"),
                         "--html", str(html), "--sweep", "year=1,2", "--quiet")
    assert code == 0, err
    text = html.read_text()
    assert text.count("<svg") >= 5
    for fetch in ("<script", "src=", 'href="http', "url(http", "@import"):
        assert fetch not in text  # nothing to load: the file is all there is
    shot = tmp_path / "shot.png"
    profile = tempfile.mkdtemp(prefix="rulebook-chromium-")
    try:
        done = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync", "--no-first-run",
                               f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                               f"--screenshot={shot}", "--window-size=1200,2000", html.as_uri()],
                              capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert shot.exists(), done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    assert _png_colours(str(shot)) > 20  # plots in colour, not a blank page


# ----------------------------------------------------------------------------- Ray
def test_ray_backend_matches_jobs_1(tmp_path):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": ROOT, "RULEBOOK_CACHE": "0"}})
    try:
        analyze_json("kuhn-poker", "--games", "20", "--backend", "ray", "--db", str(tmp_path / "ray.sqlite"))
    finally:
        ray.shutdown()
    analyze_json("kuhn-poker", "--games", "20", "--jobs", "1", "--db", str(tmp_path / "one.sqlite"))
    assert stored(str(tmp_path / "ray.sqlite"), "record") == stored(str(tmp_path / "one.sqlite"), "record")
