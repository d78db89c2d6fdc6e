# Two commands set everything up: `make run` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
BENCHMARK ?=

.PHONY: install install-test system-deps wordnet run test verify lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Reinstalls only when pyproject.toml changed (the stamp is newer otherwise).
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/pip install -q -e ".[test]"
	touch $@

# WordNet 3.0 (Debian's wordnet-base, installed when we may) compiled into the lemmatizer's table.
system-deps:
	@if [ ! -d /usr/share/wordnet ] && command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get install -y -q wordnet-base >/dev/null || (apt-get update -q >/dev/null && apt-get install -y -q wordnet-base >/dev/null) || true; \
	fi

wordnet: $(VENV)/.installed system-deps
	$(BIN)/leaderboard wordnet install

install: $(VENV)/.installed wordnet

install-test: install $(VENV)/.installed-test

run: install
	$(BIN)/leaderboard serve --host $(HOST) --port $(PORT) $(if $(BENCHMARK),--benchmark $(BENCHMARK))

lint: install-test
	$(BIN)/ruff check .

# One pytest process a core (at most 4: each takes its own database of the Redis service),
# each running whole test files.
test: install-test
	$(BIN)/ruff check .
	$(BIN)/pytest -n auto --maxprocesses 4 --dist loadfile

# The whole-data checks `make test` samples (every string of the NLTK 3.5 lemma fixture).
verify: install-test
	$(BIN)/pytest --verify -m verify

bench: install-test
	$(BIN)/python perf/run_all.py

clean:
	rm -rf $(VENV) instance test-artifacts .pytest_cache .ruff_cache
