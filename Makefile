# Two entry points: `make demo` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

export PREFECT_SERVER_ANALYTICS_ENABLED ?= false
export DO_NOT_TRACK ?= 1

.PHONY: demo test test-fast lint clean system-deps

# A venv with pip; where Debian's python3 lacks ensurepip (no python3-venv package),
# fall back to a bare venv and install into it with the system pip's --python option.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); $(PYTHON) -m venv --without-pip $(VENV); }

# `$(PIP_INSTALL) args`: the venv's pip, else the system pip aimed at the venv.
PIP_INSTALL = if [ -x $(BIN)/pip ]; then set -- $(BIN)/pip; \
	else set -- $(PYTHON) -m pip --python $(BIN)/python; fi; "$$@" install -q

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[dask]'
	touch $@

# Tests also run PilotRecorder on a tiny CPU model: torch 2.13.0, the CPU wheel where the
# machine's wheelhouse has it (about 1.5 min). Elsewhere point TORCH_PIP_ARGS at a CPU-only
# wheel index (--extra-index-url ...) so pip does not pull the multi-GB CUDA build.
# One install covers the demo's extras too, so both stamps are touched.
TORCH_SPEC     ?= torch==2.13.0
TORCH_PIP_ARGS ?=
# The team extra pins DuckDB to the version of the DuckLake / postgres extension wheels, so
# the team-ledger tests run offline (README, "The team ledger").
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[dask,dev,team]' '$(TORCH_SPEC)' $(TORCH_PIP_ARGS)
	touch $(VENV)/.installed $@

# Ends by printing the command that shows its runs in the Prefect UI ($(BIN)/trainbudget ui --demo).
demo: $(VENV)/.installed
	$(BIN)/trainbudget demo

# System packages that integration tests drive: headless Chromium (the Prefect UI test) and a
# single-node Slurm with MariaDB (the live sacct test). Installed with apt-get when missing and
# we are root on Debian; otherwise the browser test fails saying what to install, and the Slurm
# test is skipped unless TRAINBUDGET_REQUIRE_SLURM=1 (as in CI).
SLURM_PACKAGES := slurmctld slurmd slurmdbd slurm-client munge mariadb-server
system-deps:
	@if command -v chromium >/dev/null && [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/mariadbd ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing chromium and $(SLURM_PACKAGES) with apt-get"; \
		export DEBIAN_FRONTEND=noninteractive; apt-get update -q >/dev/null \
		&& apt-get install -y -q chromium >/dev/null \
		&& apt-get install -y -q --no-install-recommends $(SLURM_PACKAGES) >/dev/null; \
	else echo "note: not root, so not installing chromium and $(SLURM_PACKAGES)"; fi

# A throwaway PostgreSQL on a Unix socket for the team-ledger tests (tools/test_postgres.sh:
# apt-get install postgresql when missing and root; run as the postgres user), named to the
# tests in TRAINBUDGET_TEST_PG and stopped when the tests end, whatever their outcome.
# TRAINBUDGET_TEST_PG already set: that server is used and nothing is started.
# PYTEST_ARGS (empty: the whole suite) picks tests, e.g. make test PYTEST_ARGS=tests/ledger.
PYTEST_ARGS ?=
test: system-deps $(VENV)/.installed-dev
	@if [ -n "$$TRAINBUDGET_TEST_PG" ]; then exec $(BIN)/python -m pytest $(PYTEST_ARGS); fi; \
	pgdir="$$(mktemp -d /tmp/trainbudget-pg.XXXXXX)"; \
	trap 'tools/test_postgres.sh stop "$$pgdir"' EXIT INT TERM; \
	TRAINBUDGET_TEST_PG="$$(tools/test_postgres.sh start "$$pgdir")" || exit 1; \
	export TRAINBUDGET_TEST_PG; \
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The quick lane: no browser, no Slurm, no Prefect server (tests marked slow or flows are left
# out; `make test` runs everything). The layers contracts run in both (tests/test_layers.py).
test-fast: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -m "not slow and not flows" -q

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src flows tests bench tools
	$(BIN)/ruff format --check src flows tests bench tools

clean:
	rm -rf $(VENV) trainbudget-demo .pytest_cache
