# Set-up and everyday commands. Each target makes the virtual environment it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test bench venv clean

$(BIN)/rulebook: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/rulebook

venv: $(BIN)/rulebook

# The main job on a bundled ruleset: validate every module combination of Davos, then
# simulate 20 seeded four-player games with random agents.
demo: venv
	$(BIN)/rulebook validate davos --all-combinations
	$(BIN)/rulebook simulate davos --players 4 --games 20 --seed 1

test: venv
	$(BIN)/python -m pytest

bench: venv
	$(BIN)/python tools/bench/expr.py
	$(BIN)/python tools/bench/engine.py
	$(BIN)/python tools/bench/startup.py
	$(BIN)/python tools/bench/jobs.py

clean:
	rm -rf $(VENV) build *.egg-info
