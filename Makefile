# Worldseed: two commands on a fresh machine, `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cksum requirements.txt | cut -d' ' -f1)
BENCH_STAMP := $(VENV)/.bench-$(shell cksum requirements-bench.txt | cut -d' ' -f1)
VERSION := $(shell sed -n 's/^version *= *"\(.*\)"/\1/p' blender_manifest.toml)

.PHONY: demo test build bench clean venv

venv: $(STAMP)

$(STAMP): requirements.txt
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --disable-pip-version-check -q -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)
	$(VPY) worldseed_run.py --out out/demo

test: $(STAMP)
	$(VPY) -m pytest tests -q

build: $(STAMP)
	$(VPY) tools/build_extension.py --out dist

$(BENCH_STAMP): requirements-bench.txt $(STAMP)
	$(VPY) -m pip install --disable-pip-version-check -q -r requirements-bench.txt
	rm -f $(VENV)/.bench-*
	touch $@

bench: $(BENCH_STAMP)
	for b in bench/bench_*.py; do $(VPY) $$b || exit 1; done

clean:
	rm -rf dist out .pytest_cache
