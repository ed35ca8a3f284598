# The README's two commands: `make demo` and `make test`. Both start from a clean clone.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Keep BLAS/OpenMP from oversubscribing small machines; override on the command line.
export OMP_NUM_THREADS ?= 2
export OPENBLAS_NUM_THREADS ?= 2
export MKL_NUM_THREADS ?= 2

.PHONY: install demo test lint clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch pinned: pip takes this version from the local CPU build (a range pulls a CUDA build).
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: install
	$(VENV)/bin/surrogate fem convergence --domain cube --levels 1-4 --method best --out demo/convergence.json

test: install
	$(PY) -m pytest -q

lint: install
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) demo build *.egg-info
