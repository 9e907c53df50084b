"""The per-user cache changes nothing that is reported: a second validation (from the cache)
says exactly what the first said, and an edited file is validated again."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _validate(path, cache):
    env = dict(os.environ, RULEBOOK_CACHE_DIR=str(cache), PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "interpreter", "validate", str(path)], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=120)
    return r.returncode, r.stdout, r.stderr


def test_cached_validation_reports_the_same(tmp_path):
    game = tmp_path / "g"
    shutil.copytree(os.path.join(ROOT, "tests", "golden", "unknown_name"), game)
    cache = tmp_path / "cache"
    first = _validate(game, cache)
    assert first[0] == 1 and "unknown name" in first[2]
    assert any(cache.iterdir()), "the first run left a cache"
    assert _validate(game, cache) == first
    ok = _validate(os.path.join(ROOT, "rulesets", "tictactoe"), cache)
    assert ok[0] == 0 and _validate(os.path.join(ROOT, "rulesets", "tictactoe"), cache) == ok


def test_an_edited_file_is_checked_again(tmp_path):
    game = tmp_path / "g"
    shutil.copytree(os.path.join(ROOT, "rulesets", "tictactoe"), game)
    cache = tmp_path / "cache"
    assert _validate(game, cache)[0] == 0
    text = (game / "game.yaml").read_text()
    (game / "game.yaml").write_text(text.replace("board[cell] = marks[player]", "board[cel] = marks[player]"))
    code, out, err = _validate(game, cache)
    assert code == 1 and "did you mean 'cell'?" in err
