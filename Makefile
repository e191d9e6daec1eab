# `make run` and `make test` bootstrap .venv themselves on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: run test lint bench eval screenshot package clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.gui-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[gui,semantic,research,batch,places]'
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[gui,semantic,research,batch,places,dev]'
	touch $@ $(VENV)/.gui-installed

run: $(VENV)/.gui-installed
	$(BIN)/routescope-gui

test: $(VENV)/.dev-installed lint
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check core gui tests packaging
	$(BIN)/ruff format --check core gui tests packaging
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

bench: $(VENV)/.dev-installed
	$(BIN)/python tests/bench/bench_inspect.py --json .bench/inspect.json
	$(BIN)/python tests/bench/bench_scaling.py --json .bench/scaling.json
	$(BIN)/python tests/bench/bench_startup.py --json .bench/startup.json
	$(BIN)/python tests/bench/bench_toolsearch.py .bench/toolsearch.json
	$(BIN)/python tests/bench/bench_research.py --json .bench/research.json
	$(BIN)/python tests/bench/bench_batch.py --json .bench/batch.json
	$(BIN)/python tests/bench/bench_compare.py --json .bench/compare.json
	$(BIN)/python tests/bench/bench_history.py --json .bench/history.json
	$(BIN)/python tests/bench/bench_external.py --json .bench/external.json
	QT_QPA_PLATFORM=offscreen $(BIN)/python tests/bench/bench_gui.py --json .bench/gui.json
	$(BIN)/python tests/bench/bench_bundle.py --json .bench/bundle.json

# Tool-search retrieval quality (issue 11): BFCL-derived tasks built from the bfcl-eval wheel
# (downloaded once into .eval/), the scenario suite, every strategy beside plain cosine and
# rank_bm25. Not part of `make test`. `make eval EVAL_ARGS="--limit 200 --only bfcl"`.
eval: $(VENV)/.dev-installed
	OPENBLAS_NUM_THREADS=1 $(BIN)/python -m tests.eval.eval_toolsearch $(EVAL_ARGS)
	$(BIN)/python -m tests.eval.eval_research $(RESEARCH_EVAL_ARGS)
	$(BIN)/python -m tests.eval.eval_routing

screenshot: $(VENV)/.dev-installed
	$(BIN)/python packaging/screenshots.py

# The desktop bundle (PyInstaller one-folder): dist/routescope/ and dist/routescope-*.tar.gz.
package: $(VENV)/.dev-installed
	$(BIN)/python packaging/build_bundle.py --dist dist --work build

clean:
	rm -rf $(VENV) .bench .eval build dist .mypy_cache .ruff_cache
