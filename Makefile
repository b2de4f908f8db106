# Three commands matter: `make run` opens the desk on the demo project, `make test` runs the
# checks and the fast tier of the suite (pytest -m "not slow", ≤ 5 min on 2 cores), and
# `make test-all` runs the checks and every test (the slow tier too; CI runs this one).
# All create .venv and install the project when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run run-pictures check test test-all lint docs bench screenshot screenshots clean

# uv installs the ~100 packages in seconds where pip takes minutes (a fresh `make test` must
# stay within 5 minutes); pip does it where uv cannot be had.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv || $(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	if [ -x $(BIN)/uv ]; then $(BIN)/uv pip install --quiet --python $(BIN)/python -e ".[test]"; \
	else $(BIN)/python -m pip install --quiet -e ".[test]"; fi
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python scripts/check_qt_libs.py
	$(BIN)/python main.py

# The picture demo: handwritten digits (UCI, CC BY 4.0), "is it a 3?".
run-pictures: $(STAMP)
	$(BIN)/python scripts/check_qt_libs.py
	$(BIN)/python main.py --demo-pictures

lint: $(STAMP)
	$(BIN)/ruff check .

# ruff, the import contracts, mypy and the docs (strict, not quiet: any warning fails it).
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/mkdocs build --strict --site-dir .site

# The fast tier on every core (pytest-xdist): each test has its own files and its worker its
# own PostgreSQL, so they run side by side.
test: check
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m "not slow" -n auto

test-all: check
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir .site

bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python bench/run_all.py

screenshot: $(STAMP)
	$(BIN)/python scripts/screenshots.py --readme docs/screenshot.png

# The desk and every lead tab in a real window (Xvfb 1366×768 + openbox unless DISPLAY is
# set), at 100 % and 150 % scaling, into docs/screenshots/.
screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
