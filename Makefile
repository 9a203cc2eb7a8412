# The two commands of the contract: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: serve test install install-dev clients openapi bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.dev-installed

# Serve the API (and webhook delivery) on http://127.0.0.1:8000.
# Without DATABASE_URL the table lives in an SQLite file under var/.
serve: $(VENV)/.installed
	mkdir -p var
	@echo "Browser frontends on other origins: set COPAS_CORS_ORIGINS (comma-separated origins, or *); now: '$${COPAS_CORS_ORIGINS:-none}'"
	$(BIN)/copas serve --host 127.0.0.1 --port 8000

# The whole suite: import contracts, then pytest (SQLite always,
# PostgreSQL too when DATABASE_URL names one).
test: $(VENV)/.dev-installed clients
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

# The npm tools that tests/clients runs on the document (openapi-typescript, openapi-fetch,
# tsc, redocly, spectral), pinned by its package-lock.json; installed once, kept in node_modules.
CLIENTS := tests/clients
$(CLIENTS)/node_modules/.installed: $(CLIENTS)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  cd $(CLIENTS) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else \
	  echo "npm not found: the TypeScript client and the redocly/spectral lints will be skipped (install Node.js 20+ to run them)"; \
	fi

clients: $(CLIENTS)/node_modules/.installed

# Regenerate the committed OpenAPI document from the running code.
openapi: $(VENV)/.installed
	$(BIN)/copas openapi > openapi/openapi.json

bench: $(VENV)/.dev-installed
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.audit
	$(BIN)/python -m bench.http

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis $(CLIENTS)/node_modules $(CLIENTS)/generated
