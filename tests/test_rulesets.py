"""Every bundled ruleset: its rule files name the schema for editors, it validates with all
its module combinations, and its worked examples pass."""
import glob
import io
import os

import pytest

from interpreter.cli import run
from interpreter.compose import bundled_rulesets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULE_FILES = [f for f in glob.glob(os.path.join(ROOT, "rulesets", "**", "*.yaml"), recursive=True)
              + glob.glob(os.path.join(ROOT, "tests", "rulesets", "**", "*.yaml"), recursive=True)
              if os.sep + "examples" + os.sep not in f]


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_rule_file_names_the_schema(path):
    first = open(path, encoding="utf-8").readline().strip()
    assert first.startswith("# yaml-language-server: $schema="), f"{path} does not start with the schema line"
    target = os.path.normpath(os.path.join(os.path.dirname(path), first.split("=", 1)[1]))
    assert os.path.isfile(target), f"{path}: schema path {target} does not exist"


@pytest.mark.parametrize("name", sorted(bundled_rulesets()))
def test_bundled_ruleset_validates_all_combinations(name):
    out, err = io.StringIO(), io.StringIO()
    code = run(["validate", name, "--all-combinations"], out, err)
    assert code == 0, err.getvalue()


@pytest.mark.parametrize("name", sorted(n for n, p in bundled_rulesets().items()
                                        if glob.glob(os.path.join(p, "examples", "*.yaml"))))
def test_bundled_ruleset_examples_pass(name):
    out, err = io.StringIO(), io.StringIO()
    code = run(["check", name], out, err)
    last = out.getvalue().strip().splitlines()[-1]
    assert code == 0 and last.endswith(" 0 failed"), out.getvalue()
