"""`rulebook diff OLD NEW`: the semantic diff of two versions of the rules, git revisions and
module combinations as sides, and the balance comparison of --simulate."""
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile

import pytest

from interpreter import load
from interpreter.cli import run
from interpreter.compose import bundled_rulesets
from interpreter.rulediff import DiffError
from interpreter.rulediff.balance import difference_interval, wilson
from interpreter.rulediff.semantic import diff_rulesets
from interpreter.rulediff.sides import _extract, split_revision

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO(""))
    return code, out.getvalue(), err.getvalue()


def edited_copy(tmp_path, name, *replacements):
    """A copy of a bundled ruleset with each (old, new) text replaced once in game.yaml."""
    folder = tmp_path / name
    shutil.copytree(bundled_rulesets()[name], folder)
    game = folder / "game.yaml"
    text = game.read_text(encoding="utf-8")
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    game.write_text(text, encoding="utf-8")
    return folder


def line_of(folder, text):
    lines = (folder / "game.yaml").read_text(encoding="utf-8").splitlines()
    return next(i + 1 for i, line in enumerate(lines) if text in line)


# ------------------------------------------------------------------------------ semantic diff
@pytest.mark.parametrize("name", sorted(bundled_rulesets()))
def test_a_ruleset_against_itself_has_no_differences(name):
    assert diff_rulesets(load(name), load(name)) == []


def test_the_command_says_so_and_exits_0():
    code, out, err = cli("diff", "kuhn-poker", "kuhn-poker", "--exit-code")
    assert code == 0, err
    assert out.splitlines() == ["--- kuhn-poker [base]", "+++ kuhn-poker [base]", "no differences in the rules"]


def test_one_field_one_expression_one_phase_changed(tmp_path):
    new = edited_copy(tmp_path, "kuhn-poker",
                      ("K: {rank: 3,", "K: {rank: 4,"),
                      ('requires: {expr: "not facing_bet", reason: "only one bet per hand"',
                       'requires: {expr: "not facing_bet and pot < 5", reason: "only one bet per hand"'),
                      ('    end: "done"', '    end: "done or pot > 4"'))
    changes = diff_rulesets(load("kuhn-poker"), load(str(new)))
    assert [(c.section, c.op, c.subject, c.detail) for c in changes] == [
        ("components", "~", "card K", "rank 3 → 4"),
        ("actions", "~", "action bet", 'requires.expr "not facing_bet" → "not facing_bet and pot < 5"'),
        ("phases", "~", "phase betting", 'end done → "done or pot > 4"'),
    ]
    game = os.path.join(str(new), "game.yaml")
    assert [c.where.rsplit(":", 1)[1] for c in changes] == [
        str(line_of(new, "K: {rank: 4")), str(line_of(new, "pot < 5")), str(line_of(new, "pot > 4"))]
    assert all(os.path.abspath(c.where.rsplit(":", 1)[0]) == game for c in changes)
    code, out, err = cli("diff", "kuhn-poker", str(new), "--exit-code")
    assert code == 1, err  # like git diff --exit-code
    assert "  ~ card K: rank 3 → 4    " in out and out.rstrip().endswith("3 changes: 0 added, 0 removed, 3 changed")
    code, _, _ = cli("diff", "kuhn-poker", str(new))
    assert code == 0


def test_an_effect_change_shows_the_lines_that_changed(tmp_path):
    new = edited_copy(tmp_path, "kuhn-poker", ('"chips[w] += pot"', '"chips[w] += pot + 1"'))
    [change] = diff_rulesets(load("kuhn-poker"), load(str(new)))
    assert (change.subject, change.detail) == ("phase showdown", "effects changed")
    assert change.lines == ["-    chips[w] += pot", "+    chips[w] += pot + 1"]


def test_added_removed_and_spacing(tmp_path):
    new = edited_copy(tmp_path, "kuhn-poker",
                      ('    K: {rank: 3, source: "Kuhn 1950: a three-card deck"}',
                       '    K: {rank: 3, source: "Kuhn 1950: a three-card deck"}\n    A: {rank: 4}'),
                      ('facing_bet: "\'b\' in history"', 'facing_bet: "\'b\'   in   history"'),
                      ("  done: {value: false}\n", "  done: {value: false}\n  extra: {value: 1}\n"),
                      ('- {expect: "len(card) == 3", source: "Kuhn 1950"}', '- {expect: "len(card) == 4"}'),
                      ('  - {expect: "sum(chips) + pot == 0", when: setup, message: "chips are only moved"}\n', ""))
    changes = diff_rulesets(load("kuhn-poker"), load(str(new)))
    assert [(c.op, c.subject) for c in changes] == [  # and no change for the spacing inside facing_bet
        ("+", "card A"), ("+", "var extra"), ("+", "assertion “len(card) == 4”"),
        ("-", "assertion “chips are only moved”"), ("-", "assertion “len(card) == 3”")]


def test_a_module_combination_as_the_new_side():
    code, out, err = cli("diff", "davos", "davos", "-m", "big")
    assert code == 0, err
    assert out.startswith("--- davos [base]\n+++ davos [mean+big]\n")
    assert "  + action buy_control: \"buy CONTROL {card.name}\"    rulesets/davos/modules/big.yaml:" in out
    assert "  ~ phase turns: next bills → control    rulesets/davos/modules/big.yaml:" in out
    assert "  ~ define games: expr \"['base']\" → \"['base', 'mean']\"    rulesets/davos/modules/mean.yaml:" in out
    code, out, err = cli("diff", "davos", "davos", "--old-module", "mean", "-m", "mean")
    assert code == 0 and "no differences in the rules" in out


def test_json_output(tmp_path):
    new = edited_copy(tmp_path, "kuhn-poker", ("K: {rank: 3,", "K: {rank: 4,"))
    code, out, err = cli("diff", "kuhn-poker", str(new), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["differ"] is True and report["counts"] == {"added": 0, "removed": 0, "changed": 1}
    assert report["changes"][0]["subject"] == "card K" and report["simulation"] is None


# ------------------------------------------------------------------------------ git revisions
def _in_git_checkout() -> bool:
    if shutil.which("git") is None:
        return False
    done = subprocess.run(["git", "-C", REPO, "rev-parse", "--verify", "--quiet", "HEAD"], capture_output=True)
    tracked = subprocess.run(["git", "-C", REPO, "ls-files", "--error-unmatch", "rulesets/tictactoe/game.yaml"],
                             capture_output=True)
    return done.returncode == 0 and tracked.returncode == 0


def _diff_folders():
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("rulebook-diff-")}


@pytest.mark.skipif(not _in_git_checkout(), reason="not in a git checkout")
def test_a_git_revision_as_a_side(tmp_path):
    before = _diff_folders()
    head = subprocess.run(["git", "-C", REPO, "show", "HEAD:rulesets/tictactoe/game.yaml"],
                          capture_output=True, check=True).stdout.decode()
    current = open(os.path.join(REPO, "rulesets/tictactoe/game.yaml"), encoding="utf-8").read()
    code, out, err = cli("diff", "tictactoe@HEAD", "tictactoe@HEAD")
    assert code == 0, err
    assert out.splitlines() == ["--- tictactoe@HEAD [base]", "+++ tictactoe@HEAD [base]", "no differences in the rules"]
    code, out, err = cli("diff", "tictactoe@HEAD", "tictactoe")
    assert code == 0, err
    assert ("no differences in the rules" in out) == (head == current)
    assert _diff_folders() == before  # the exported folders are removed


@pytest.mark.skipif(not _in_git_checkout(), reason="not in a git checkout")
def test_a_position_on_a_revision_names_it(tmp_path):
    old = edited_copy(tmp_path, "tictactoe", ('marks: ["X", "O"]', 'marks: ["O", "X"]'))
    code, out, err = cli("diff", str(old), "tictactoe@HEAD")
    assert code == 0, err
    assert "  ~ constant marks: [O, X] → [X, O]    tictactoe@HEAD:rulesets/tictactoe/game.yaml:" in out


def test_bad_revisions_are_usage_errors():
    code, _, err = cli("diff", "tictactoe@--output=/tmp/x", "tictactoe")
    assert code == 2 and "is not a git revision" in err
    if _in_git_checkout():
        code, _, err = cli("diff", "tictactoe@no-such-revision-here", "tictactoe")
        assert code == 2 and "unknown git revision 'no-such-revision-here'" in err


def test_split_revision():
    assert split_revision("davos") == ("davos", None)
    assert split_revision("davos@HEAD~3") == ("davos", "HEAD~3")
    assert split_revision("rulesets/davos@main") == ("rulesets/davos", "main")
    with pytest.raises(DiffError):
        split_revision("davos@")


def _tar(members) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def _file(name, data=b"x: 1\n"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


@pytest.mark.parametrize("bad", ["../escape.yaml", "/abs/escape.yaml", "a/../../escape.yaml"])
def test_an_archive_cannot_write_outside_its_folder(tmp_path, bad):
    target = tmp_path / "inside"
    target.mkdir()
    with pytest.raises(DiffError, match="unsafe path"):
        _extract(_tar([_file("ok/game.yaml"), _file(bad)]), str(target))
    assert not (tmp_path / "escape.yaml").exists()


def test_an_archive_link_is_skipped(tmp_path):
    link = tarfile.TarInfo("r/link.yaml")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    _extract(_tar([_file("r/game.yaml"), (link, None)]), str(tmp_path))
    assert (tmp_path / "r" / "game.yaml").read_bytes() == b"x: 1\n"
    assert not os.path.lexists(tmp_path / "r" / "link.yaml")


# ------------------------------------------------------------------------------ balance
def test_wilson_and_newcombe_intervals_match_published_values():
    low, high = wilson(81, 263)  # Newcombe (1998), single proportion
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 4) == 0.2775
    diff, low, high = difference_interval(48, 80, 56, 70)  # Newcombe (1998), 56/70 vs 48/80
    assert (round(diff, 4), round(low, 4), round(high, 4)) == (0.2, 0.0524, 0.3339)


def test_simulate_prints_win_rates_with_intervals(tmp_path):
    new = edited_copy(tmp_path, "kuhn-poker", ('"chips[w] += pot"', '"chips[w] += pot + 1"'))
    code, out, err = cli("diff", "kuhn-poker", str(new), "--simulate", "12", "--seed", "5")
    assert code == 1, err  # the changed game is no longer zero-sum: its end assertion fails
    lines = out.splitlines()
    assert any(line.startswith("balance: 12 games per side, seeds 5-16, 2 players, agents random") for line in lines)
    seat = next(line for line in lines if line.startswith("seat 0 wins"))
    assert seat.count("[") == 3 and "%" in seat and " pts [" in seat
    assert any(line.startswith("game length") and "±" in line for line in lines)
    failed = re.search(r"new error ×(\d+): end assertion failed: a zero-sum game \(\S+game.yaml:\d+:\d+\)", out)
    assert failed and 1 <= int(failed.group(1)) <= 12
    assert "old error" not in out


def test_simulate_json_has_the_same_figures():
    code, out, err = cli("diff", "tictactoe", "tictactoe", "--simulate", "6", "--json")
    assert code == 0, err
    balance = json.loads(out)["simulation"]
    assert balance["games"] == 6 and balance["players"] == 2 and balance["seeds"] == [0, 5]
    assert balance["old"] == balance["new"]  # the same seeds on the same rules: the same games
    for side in (balance["old"], balance["new"]):
        assert side["completed"] + side["errors"] == 6
        for rate in side["win_rate_by_seat"]:
            low, high = rate["interval95"]
            assert low <= rate["rate"] <= high
    assert all(d["difference"] == 0 for d in balance["win_rate_difference_by_seat"])


def test_simulate_needs_a_player_count_both_sides_allow():
    code, _, err = cli("diff", "tictactoe", "kuhn-poker", "--simulate", "2", "--players", "3")
    assert code == 2 and "--players 3" in err
    code, _, err = cli("diff", "tictactoe", "tictactoe", "--simulate", "0")
    assert code == 2


def test_a_side_with_errors_is_reported_like_validate(tmp_path):
    broken = edited_copy(tmp_path, "kuhn-poker", ('expr: "facing_bet", reason: "there is no bet to call"',
                                                  'expr: "facing_bett", reason: "there is no bet to call"'))
    code, out, err = cli("diff", "kuhn-poker", str(broken))
    assert code == 1 and out == ""
    assert f"{os.path.join('kuhn-poker', 'game.yaml')}:{line_of(broken, 'facing_bett')}:" in err  # shown relative to the working directory when shorter
    assert "did you mean 'facing_bet'?" in err


def test_a_team_win_counts_for_each_player_of_the_team():
    code, out, err = cli("diff", "davos", "davos", "-m", "teams", "--old-module", "teams", "--simulate", "4", "--json")
    assert code == 0, err
    side = json.loads(out)["simulation"]["new"]
    wins = side["wins_by_seat"]
    assert len(wins) == 4 and wins[0] == wins[2] and wins[1] == wins[3]  # teams sit across
    assert wins[0] + wins[1] + side["draws"] == side["completed"] == 4
