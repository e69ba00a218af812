# Worldseed: two commands on a fresh machine, `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cksum requirements.txt | cut -d' ' -f1)
BENCH_STAMP := $(VENV)/.bench-$(shell cksum requirements-bench.txt | cut -d' ' -f1)
# core alone (no bpy) on the newest numpy 2.x; .venv has bpy's numpy 1.26.
CORE_VENV  := .venv-numpy2
CPY        := $(CORE_VENV)/bin/python
CORE_STAMP := $(CORE_VENV)/.installed-$(shell cksum requirements-core.txt | cut -d' ' -f1)
# The older Blender lines blender_manifest.toml promises (4.2 LTS, 4.5 LTS), each in a venv of its own.
BPY42_VENV  := .venv-bpy42
BPY42_STAMP := $(BPY42_VENV)/.installed-$(shell cksum requirements-compat-4.2.txt | cut -d' ' -f1)
BPY45_VENV  := .venv-bpy45
BPY45_STAMP := $(BPY45_VENV)/.installed-$(shell cksum requirements-compat-4.5.txt | cut -d' ' -f1)
# The type checker and Blender's API stubs (fake-bpy-module), in a venv of their own: the stubs shadow bpy.
TC_VENV  := .venv-typecheck
TC_STAMP := $(TC_VENV)/.installed-$(shell cksum requirements-typecheck.txt | cut -d' ' -f1)
VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' blender_manifest.toml)

.PHONY: demo test typecheck test-bpy test-numpy2 test-compat test-bpy42 test-bpy45 lint build bench clean venv docs gallery

venv: $(STAMP)

$(STAMP): requirements.txt
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --disable-pip-version-check -q -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)
	$(VPY) worldseed_run.py --out out/demo

$(CORE_STAMP): requirements-core.txt
	test -x $(CPY) || $(PYTHON) -m venv $(CORE_VENV)
	$(CPY) -m pip install --disable-pip-version-check -q -r requirements-core.txt
	rm -f $(CORE_VENV)/.installed-*
	touch $@

# pytest-xdist workers per run (`make test JOBS=1` runs in one process); a test file stays on one worker,
# so its module fixtures are built once.
JOBS ?= auto
XDIST := -n $(JOBS) --dist loadfile

# Both runs, one after the other; both always run, and either failing fails `make test` (at the end, so a
# failure in the first half does not hide the second).
test: $(STAMP) $(CORE_STAMP)
	@status=0; \
	$(MAKE) --no-print-directory test-bpy || status=1; \
	$(MAKE) --no-print-directory test-numpy2 || status=1; \
	exit $$status

# Every test plus core's doctests, in real Blender's Python module (numpy 1.26).
test-bpy: $(STAMP)
	$(VPY) -m pytest tests core --doctest-modules -q $(XDIST) --durations=15

# core's tests and doctests again on numpy 2.x, without bpy.
test-numpy2: $(CORE_STAMP)
	$(CPY) -m pytest tests/core core --doctest-modules -q $(XDIST) --durations=15

$(BPY42_STAMP): requirements-compat-4.2.txt
	test -x $(BPY42_VENV)/bin/python || $(PYTHON) -m venv $(BPY42_VENV)
	$(BPY42_VENV)/bin/python -m pip install --disable-pip-version-check -q -r requirements-compat-4.2.txt
	rm -f $(BPY42_VENV)/.installed-*
	touch $@

$(BPY45_STAMP): requirements-compat-4.5.txt
	test -x $(BPY45_VENV)/bin/python || $(PYTHON) -m venv $(BPY45_VENV)
	$(BPY45_VENV)/bin/python -m pip install --disable-pip-version-check -q -r requirements-compat-4.5.txt
	rm -f $(BPY45_VENV)/.installed-*
	touch $@

# Every test and core's doctests again on each older line the manifest names (4.2 LTS, then 4.5 LTS).
test-compat: test-bpy42 test-bpy45

test-bpy42: $(BPY42_STAMP)
	$(BPY42_VENV)/bin/python -m pytest tests core --doctest-modules -q $(XDIST)

test-bpy45: $(BPY45_STAMP)
	$(BPY45_VENV)/bin/python -m pytest tests core --doctest-modules -q $(XDIST)

$(TC_STAMP): requirements-typecheck.txt
	test -x $(TC_VENV)/bin/python || $(PYTHON) -m venv $(TC_VENV)
	$(TC_VENV)/bin/python -m pip install --disable-pip-version-check -q -r requirements-typecheck.txt
	rm -f $(TC_VENV)/.installed-*
	touch $@

# mypy over core, operators, panels and addon (settings in pyproject.toml), 0 errors.
typecheck: $(TC_STAMP)
	$(TC_VENV)/bin/python tools/typecheck.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

build: $(STAMP)
	$(VPY) tools/build_extension.py --out dist

# docs/recipe.md, every recipe key, from core.recipe.SECTIONS and the limits tables (a test fails when stale).
docs: $(STAMP)
	$(VPY) tools/recipe_reference.py

# docs/gallery/*.png: every preset (by folder), the level generators, the docs' variations and the
# showcase, rendered by the project itself (core's relief and level pictures; Blender for trees and
# the showcase); each at most 150 KB, rewritten only when its bytes change. About a minute.
gallery: $(STAMP)
	$(VPY) tools/gallery.py

$(BENCH_STAMP): requirements-bench.txt $(STAMP)
	$(VPY) -m pip install --disable-pip-version-check -q -r requirements-bench.txt
	rm -f $(VENV)/.bench-*
	touch $@

bench: $(BENCH_STAMP)
	for b in bench/bench_*.py; do $(VPY) $$b || exit 1; done

clean:
	rm -rf dist out .pytest_cache
