# The README's two commands: `make demo` and `make test`. Both start from a clean clone.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SURROGATE := $(VENV)/bin/surrogate
# Keep BLAS/OpenMP from oversubscribing small machines; override on the command line.
export OMP_NUM_THREADS ?= 2
export OPENBLAS_NUM_THREADS ?= 2
export MKL_NUM_THREADS ?= 2

.PHONY: install demo test lint docs clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch pinned: pip takes this version from the local CPU build (a range pulls a CUDA build).
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# The main job on built-in defaults: Maxwell data on the cylinder -> Fractional-DNN with learned
# steps -> errors on the unit cube next to the Nedelec FEM, with figures, ParaView files and
# demo/report/index.html. About 3 minutes after the install on 2 cores.
demo: install
	$(SURROGATE) fem convergence --domain cube --levels 1-4 --fem-method best --out demo/convergence.json
	$(SURROGATE) gen-data maxwell -o demo/data/maxwell.h5
	$(SURROGATE) fit demo/data/maxwell.h5 --arch frac-dnn -o demo/runs/frac-dnn --overwrite
	$(SURROGATE) evaluate demo/runs/frac-dnn --domain cube --levels 0-4 --out demo/report \
		--vtk demo/report/vtk --report
	@echo "open demo/report/index.html; ParaView: demo/report/vtk/cube.pvd"

# Tests solve small problems: a second BLAS/OpenMP thread mostly spins there (it doubled the
# suite's CPU time on 2 cores). Tests of thread policies set their own counts.
TEST_THREADS ?= 1
# glibc's allocator keeps freed memory (up to 512 MB) instead of returning each large array's
# pages to the kernel, which then fault in zeroed again on the next allocation: 4-5 % less CPU
# for the numerical tests (tests/fem + tests/evaluation: 80.9 -> 76.7 s), no effect elsewhere.
TEST_ENV := OMP_NUM_THREADS=$(TEST_THREADS) OPENBLAS_NUM_THREADS=$(TEST_THREADS) \
	MKL_NUM_THREADS=$(TEST_THREADS) MALLOC_MMAP_THRESHOLD_=268435456 \
	MALLOC_TRIM_THRESHOLD_=536870912 MALLOC_TOP_PAD_=67108864
# Suites that fork once per case (the reader's crash probe) run in a second, torch-free pytest:
# a fork costs time in proportion to the forking process's memory, 3 ms from a lean process
# against 20-40 ms from the main one (which has imported torch and run a thousand tests).
# `pytest` alone still runs everything in one process.
LEAN_TESTS := tests/datasets/test_reader_fuzz.py
test: install
	$(TEST_ENV) $(PY) -m pytest -q $(addprefix --ignore=,$(LEAN_TESTS))
	$(TEST_ENV) $(PY) -m pytest -q $(LEAN_TESTS)

lint: install
	$(VENV)/bin/ruff check .

# The generated command-line reference (tests/cli/test_cli_reference.py fails when it is stale).
docs: install
	$(PY) -m surrogate.cli.reference docs/cli.md

clean:
	rm -rf $(VENV) demo build *.egg-info
