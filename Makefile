# The README's two commands: `make demo` and `make test`.  Both set up .venv from nothing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "crossdyn needs Python >= 3.11, found " + sys.version)'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,bench,identify,engines,sweep,jax]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/crossdyn demo --out reports/demo

test: $(STAMP)
	$(PY) -m pytest -q -n 2

bench: $(STAMP)
	$(PY) benchmarks/run.py
	$(PY) benchmarks/sweep.py
	$(PY) benchmarks/batch.py

clean:
	rm -rf $(VENV) reports .pytest_cache .hypothesis
