# One-command entry points. `make demo` and `make test` set up .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first, pinned: the CPU build on this machine's disk (anything else pulls a CUDA build)
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[train,dev,rllib]"
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(PY) evaluate.py configs/demo.yaml
	$(PY) -m agents.ship --games 200  # each game's shipped trained agent against its heuristics

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) bench/bench_game.py  # every registered game, each against connect_four_v3 in the same run
	$(PY) bench/bench_threads.py  # every game's batched engine on 2 threads against itself on 1

clean:
	rm -rf $(VENV) runs results .pytest_cache
