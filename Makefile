# Every target bootstraps .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install site build serve test lint validate bench clean verify coverage mutants live vscode editor-test

$(STAMP): pyproject.toml package-lock.json
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,lint]'
	# The site vendors RE2JS (the /diagnose/ page's engine) from the version package-lock.json pins.
	npm ci --no-audit --no-fund --silent
	touch $(STAMP)

install: $(STAMP)

validate: $(STAMP)
	$(BIN)/failpedia validate

site: $(STAMP)
	$(BIN)/failpedia validate
	$(BIN)/failpedia build --site-dir site

build: site

serve: $(STAMP)
	$(BIN)/failpedia serve

# One pytest worker per CPU; each test file runs whole in one worker, so a file's module
# fixtures (a built site, a browser) are set up once.
test: $(STAMP) lint
	$(BIN)/python -m pytest -q -n auto --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check generator failpedia tests bench
	$(BIN)/ruff format --check generator failpedia tests bench
	$(BIN)/mypy --strict generator failpedia

# Downloads every release the records claim (gigabytes, cached in ~/.cache/failpedia/releases
# or $$FAILPEDIA_RELEASES) and rewrites schema/verified.json; CI only reads the ledger.
verify: $(STAMP)
	$(BIN)/failpedia verify

# The share of real failure reports (tests/realworld/coverage/) whose right record comes first.
coverage: $(STAMP)
	$(BIN)/python -m tests.coverage_report

# Live-fire reproductions (tests/repro/) against a real PyTorch in its own venv, one per release,
# so the light .venv never gets torch. LIVE_PIP_ARGS passes pip options (e.g. --find-links DIR);
# releases before 2.3 were built against NumPy 1: LIVE_NUMPY='numpy<2'.
LIVE_TORCH ?= 2.13.0
LIVE_PIP_ARGS ?=
LIVE_NUMPY ?= numpy
LIVE_VENV := .venv-live/torch-$(LIVE_TORCH)

live:
	test -x $(LIVE_VENV)/bin/python || $(PYTHON) -m venv $(LIVE_VENV)
	$(LIVE_VENV)/bin/python -m pip install --quiet $(LIVE_PIP_ARGS) 'torch==$(LIVE_TORCH)' '$(LIVE_NUMPY)'
	$(LIVE_VENV)/bin/python -m pip install --quiet -e .
	$(LIVE_VENV)/bin/python tests/repro/run.py

bench: $(STAMP)
	$(BIN)/python bench/build.py

# Mutation testing of the core modules (configured in pyproject.toml; results are kept in
# mutants/ and reused for unchanged functions); not run in CI.
mutants: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[mutation]'
	$(BIN)/mutmut run
	$(BIN)/python -m tests.mutation.score -v

# The VS Code extension: the catalog's signature library and the site's matching core copied
# into editors/vscode/lib/, its npm packages from the lock file, then a .vsix (@vscode/vsce).
VSIX := editors/vscode/dist/failpedia.vsix
vscode: $(STAMP)
	mkdir -p editors/vscode/lib editors/vscode/dist
	$(BIN)/failpedia export --format json -o editors/vscode/lib/signatures.json
	cp overrides/assets/javascripts/failpedia-core.js editors/vscode/lib/
	cd editors/vscode && npm ci --no-audit --no-fund --silent
	cd editors/vscode && npx vsce package --allow-missing-repository -o dist/failpedia.vsix

# The extension in a real VS Code (code-server, Node 24 and Chromium; minutes): installs the
# .vsix, opens a failure log, runs the commands and checks what the workbench shows.
editor-test: vscode
	$(BIN)/python editors/vscode/test/in_code_server.py $(VSIX)

clean:
	rm -rf site mutants .pytest_cache .mypy_cache .ruff_cache
