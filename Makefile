# One-command entry points. `make demo` and `make test` set up .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-fast lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first, pinned: the CPU build on this machine's disk (anything else pulls a CUDA build)
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[train,dev,rllib,openspiel]"
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/dicearena evaluate demo  # the bundled recipe configs/demo.yaml: baselines at every game's tables
	$(VENV)/bin/dicearena ship --games 400  # each shipped trained agent against its heuristics, beside its card's share

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest

test-fast: $(STAMP)  # everything but the tests marked slow (training, RLlib, notebooks, wheel): a few minutes
	$(PY) -m ruff check .
	$(PY) -m pytest -m "not slow"

bench: $(STAMP)  # both benchmarks run even if the first misses a target; the exit status says whether all passed
	$(VENV)/bin/dicearena bench; status=$$?; \
	$(VENV)/bin/dicearena bench-threads && exit $$status

clean:
	rm -rf $(VENV) runs results .pytest_cache build dist *.egg-info
