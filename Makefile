# Set-up and everyday commands. Each target makes the virtual environment it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test bench venv bytecode clean

# PYTHONWARNINGS: setuptools warns on every editable install of a package that sits in the
# project root ("folders ... with the same name as your package"); this layout is on purpose.
$(BIN)/rulebook: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore::UserWarning $(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/rulebook

venv: $(BIN)/rulebook

# Bytecode for the package, as installing a wheel writes it (an editable install does not,
# and with PYTHONDONTWRITEBYTECODE set nothing else would): every start-up then skips
# compiling the interpreter's own source (about 0.1 s). Only changed files are compiled.
bytecode: venv
	$(BIN)/python -m compileall -q interpreter

# The main job on a bundled ruleset: validate every module combination of Davos, then
# simulate 20 seeded four-player games with random agents.
demo: bytecode
	$(BIN)/rulebook validate davos --all-combinations
	$(BIN)/rulebook simulate davos --players 4 --games 20 --seed 1

test: bytecode
	$(BIN)/python -m pytest

bench: bytecode
	$(BIN)/python tools/bench/games.py
	$(BIN)/python tools/bench/compiled.py
	$(BIN)/python tools/bench/expr.py
	$(BIN)/python tools/bench/engine.py
	$(BIN)/python tools/bench/startup.py
	$(BIN)/python tools/bench/jobs.py

clean:
	rm -rf $(VENV) build *.egg-info
