# wslmcp — one Makefile for setup, the main job, tests and benchmarks.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run test lint fmt bench bench-peers fuzz clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# The main job: replay every bundled scenario end to end, one row each.
run: setup
	$(BIN)/wslmcp scenario replay scenarios

# Sources compiled first, so the servers the tests spawn do not compile them again each time
# (PYTHONDONTWRITEBYTECODE may be set); pytest's workers are set in pyproject.toml.
test: setup lint
	$(BIN)/python -m compileall -q src fakes tests
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

fmt: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: setup
	$(BIN)/python -m tests.bench

# The peer `make bench` compares the shell's first answer and file tools with (tests/bench/bench_peers.py):
# the MCP filesystem server, installed with npm under .bench/ (not part of the project).
bench-peers:
	mkdir -p .bench && npm install --no-audit --no-fund --prefix .bench @modelcontextprotocol/server-filesystem@2026.8.31

# Every property-based test with fresh random examples, many more of them than `make test` draws
# (tests/conftest.py: Hypothesis profiles "ci", derandomized, and "fuzz").
fuzz: setup
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q -m hypothesis -p no:cacheprovider

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
