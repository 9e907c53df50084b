"""Scenario setup, steps and expectations can call the ruleset's named expressions."""
import os

from interpreter.scenario import run_scenarios

HERE = os.path.dirname(os.path.abspath(__file__))


def test_scenario_expectations_call_defines():
    results = run_scenarios(os.path.join(HERE, "rulesets", "scenario_defines"))
    assert [r.ok for r in results] == [True], [m for r in results for m in r.messages]
