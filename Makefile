# Two commands: `make run` and `make test`. Each sets up what it needs on a fresh machine
# (Debian packages for Qt and Xvfb, a .venv with the package and its test extra) and skips
# what is already done, so the second run starts at once.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.rigedit-installed
SYSDEPS_STAMP := $(VENV)/.sysdeps-ok
KERNELS_STAMP := $(VENV)/.kernels-compiled
JS_STAMP := $(VENV)/.js-readers
SCREENSHOT ?= out/rigedit-demo.png

.PHONY: run test setup sysdeps bench clean

run: setup
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
		$(BIN)/rigedit; \
	else \
		echo "No display: posing the humanoid under a virtual display and taking a screenshot."; \
		mkdir -p $(dir $(SCREENSHOT)); \
		xvfb-run -a -s "-screen 0 1280x800x24" $(BIN)/rigedit --demo $(SCREENSHOT); \
	fi

test: setup
	$(BIN)/python -m pytest

setup: $(SYSDEPS_STAMP) $(STAMP) $(KERNELS_STAMP) $(JS_STAMP)

$(SYSDEPS_STAMP): scripts/sysdeps.sh | $(VENV)/bin/python
	@bash scripts/sysdeps.sh
	@touch $@

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "rigedit needs Python 3.11 or newer, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

# The numba kernels compile once (about a minute) into numba's cache, here rather than on the editor's
# first solve; again after a core change (only the kernels it touches recompile).
$(KERNELS_STAMP): $(STAMP) $(wildcard rigedit/core/*.py rigedit/core/ik/*.py) scripts/compile_kernels.py
	@echo "Compiling the solver kernels (once; about a minute on a fresh machine)..."
	@$(BIN)/python scripts/compile_kernels.py
	@touch $@

# The export tests read files back with three.js's loaders and the Khronos glTF validator (npm
# packages pinned in tests/js/package.json, installed into the user's cache, not the repo). Set
# up here when node is there; without node or a network the tests that need them skip, saying why.
$(JS_STAMP): tests/js/package.json | $(STAMP)
	@$(BIN)/python -m tests.js_readers
	@touch $@

bench: setup
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
