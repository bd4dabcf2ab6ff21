# Everything a fresh clone needs: `make test` and `make demo` build .venv first.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# the course's assignments, in grading.yml's order (read when a recipe needs them, after install)
SLUGS    = $(shell $(BIN)/python -c 'import yaml; print(*yaml.safe_load(open("grading.yml"))["assignments"])')
# torch's build: auto = CUDA where nvidia-smi -L lists a GPU, CPU elsewhere; or cpu | cuda. TORCH_INDEX_URL
# names the index it comes from (autograder/install_torch.sh says how the choice is made).
TORCH           ?= auto
TORCH_INDEX_URL ?=

# Python's default: each module is compiled once into __pycache__ (git-ignored) and later processes read the
# bytecode. Some shells and images set PYTHONDONTWRITEBYTECODE; then every grader, zygote, CLI call and pytest
# worker compiled autograder/, the hidden tests and pytest's rewritten test modules again (0.2-0.4 s of CPU per
# process start, 4 s per pytest worker's collection, measured here). Python reads a __pycache__ whether or not it
# writes one; a student cannot write there (bwrap mounts the code read-only, the fallback runs as another user).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install browser lint check test test-heldout test-integration test-gpu demo bench assign clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first and pinned, in the build for this machine: never the multi-GB CUDA build without a GPU
	TORCH='$(TORCH)' TORCH_INDEX_URL='$(TORCH_INDEX_URL)' sh autograder/install_torch.sh $(BIN)/pip torch==2.13.0
	$(BIN)/pip install -q -e '.[dev]'
	@command -v bwrap >/dev/null || (command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
	  (apt-get install -y -qq bubblewrap >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null 2>&1)) || \
	  echo "note: bubblewrap not installed; the sandbox uses its fallback isolation")
	touch $(STAMP)

# Debian's chromium, for the test that renders report.html in a real browser (skipped without it).
browser:
	@command -v chromium >/dev/null || ( [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get install -y -qq chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null 2>&1)) ) || \
	  echo "note: chromium not installed; the report rendering test will skip"

# Everything, spread over the machine's cores (pytest-xdist): the unit tests, the sandbox and batch tests,
# the held-out variants and the author's check of every assignment grading.yml lists
# (tests/test_author_check.py runs `autograder check SLUG` for each).
# One pytest-xdist worker more than cores: some sandbox tests wait with the CPU idle (a call's time limit, a
# batch killed mid-way, a student's sleep), and the extra worker fills those gaps. On the 2-core machine,
# quiet: -n 3 10 min 1 s for make test (cores ~94% busy), -n 4 11 min 40 s, on trees of 2026-12-01 night;
# -n 3 7 min 49 s (1.97 cores busy), -n 2 8 min 12 s (1.75), on the tree of 2026-12-02 afternoon.
PYTEST_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
# each unit of work (a test, or the tests sharing a module fixture: tests/conftest.py) to the next free worker,
# longest first, in conftest's order
XDIST   = -n $(PYTEST_JOBS) --dist loadgroup --no-loadscope-reorder
test: install browser lint
	$(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST)

# Only the naming regression set (make test runs it too): every held-out variant of
# tests/heldout/<slug>/variants.py graded in the sandbox, for someone changing a catalogue.
test-heldout: install
	$(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) -m heldout tests/test_heldout.py

# The quick loop while changing a module: lint, then every test that starts no grader, zygote, batch or
# browser (the `sandbox` marker, tests/conftest.py).
check: install lint
	$(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) -m "not sandbox"

# The real components: a clean Debian root for the Gradescope zip (with and without CAP_SYS_ADMIN), a
# one-node SLURM, the Kubernetes manifests against the API schema (tests/integration/README.md).
# addopts' --ignore is overridden by naming the folder after -o addopts=.
test-integration: install
	$(BIN)/python -m pytest -q -p no:cacheprovider -o addopts= -rs tests/integration

# ruff and mypy, as configured in pyproject.toml (both come with the dev extras)
lint: install
	$(BIN)/ruff check autograder tests reference assignments bench
	$(BIN)/mypy

test-gpu: install
	$(BIN)/python -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py -rs

demo: install
	@for slug in $(SLUGS); do \
	  rm -rf out/$$slug; $(BIN)/autograder batch examples/submissions/$$slug -a $$slug -o out/$$slug || exit 1; \
	done
	@rm -rf out/gradescope-sdpa; $(BIN)/autograder batch examples/exports/gradescope-sdpa -a sdpa-from-scratch -o out/gradescope-sdpa
	@# a Canvas download (LATE in two file names; the extensions file waives one student's penalty)
	@rm -rf out/canvas-sdpa; $(BIN)/autograder batch examples/exports/canvas-sdpa -a sdpa-from-scratch -o out/canvas-sdpa \
	  --hand-scores examples/exports/canvas-sdpa-extensions.csv
	@# 22 solutions of tests/fixtures/similarity (make_class.py there writes them): one pair copied, one a helper
	@rm -rf out/similarity-class; $(BIN)/autograder batch examples/exports/similarity-class/notebooks -a sdpa-from-scratch \
	  -o out/similarity-class
	@echo; echo "Reports: $(foreach s,$(SLUGS),out/$(s)/report.html )"
	@echo "Similar submissions: out/similarity-class/similarity.html (the copied pair first and flagged)"

bench: install
	$(BIN)/python bench/bench_batch.py

assign: install
	$(BIN)/autograder assign

clean:
	rm -rf out build dist .pytest_cache
