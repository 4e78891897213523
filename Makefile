# The two commands of the README: `make run` and `make test`. Both build .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed


.PHONY: run shell test test-ha test-quick lint format typecheck clean bench-standby \
	bench-sandbox bench-store bench-http bench-agent bench-replay bench-mcp bench-bank \
	bench-sandbox-waits bench-soak bench-logging bench-growth bench-scale bench-pgbench bench-call \
	bench-projector bench-alternative bench-deployment eval-agent eval-injection

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Sluice needs Python 3.11 or newer")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Another port: make run PORT=8001.
PORT ?= 8000

run: $(STAMP)
	$(BIN)/sluice serve --demo --host 127.0.0.1 --port $(PORT)

shell: $(STAMP)
	$(BIN)/sluice demo
	$(BIN)/sluice shell --as alice

# The suite spread over the machine's cores (pytest-xdist), one test file per worker at a
# time so a file's served processes and fixtures are made once. TEST_WORKERS=0: serially.
# The high-availability tests, which start PostgreSQL servers of their own, run apart.
TEST_WORKERS ?= auto
test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile -m "not ha"

# A primary and a standby of the tests' own (the machine's PostgreSQL binaries, run as the
# postgres user when root): a failover under load, reads from the standby (tests/ha/).
test-ha: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile -m ha tests/ha

# While working: everything but the Postgres and browser suites.
test-quick: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile -m "not postgres and not browser and not ha"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: $(STAMP)
	$(BIN)/mypy

bench-sandbox: $(STAMP)
	$(BIN)/python -m benchmarks.bench_sandbox

bench-store: $(STAMP)
	$(BIN)/python -m benchmarks.bench_store

bench-sandbox-waits: $(STAMP)
	$(BIN)/python -m benchmarks.bench_sandbox_waits

bench-http: $(STAMP)
	$(BIN)/python -m benchmarks.bench_http

bench-agent: $(STAMP)
	$(BIN)/python -m benchmarks.bench_agent

bench-replay: $(STAMP)
	$(BIN)/python -m benchmarks.bench_replay

# What keeping the read models current costs per operation: each projection alone beside the
# three together (one transaction per window), by how many operations a round catches up.
bench-projector: $(STAMP)
	$(BIN)/python -m benchmarks.bench_projector $(ARGS)

bench-mcp: $(STAMP)
	$(BIN)/python -m benchmarks.bench_mcp

bench-bank: $(STAMP)
	$(BIN)/python -m benchmarks.bench_bank

# /health's latency while a stream of 500s runs, beside quiet and a stream of 200s.
# Another build for contrast: make bench-logging ARGS="--sluice ../main/.venv/bin/sluice".
bench-logging: $(STAMP)
	$(BIN)/python -m benchmarks.bench_logging $(ARGS)

# A served gateway under steady mixed load, 3 minutes a store: its RSS, sampled, and the
# slope. Longer: make bench-soak ARGS="--seconds 900".
bench-soak: $(STAMP)
	$(BIN)/python -m benchmarks.bench_soak $(ARGS)

# The agent with a real model, checked on the ledger: the model is the one the SLUICE_LLM_*
# variables name. One scenario: make eval-agent ARGS="--only pay-one --json var/eval.json".
eval-agent: $(STAMP)
	$(BIN)/python -m benchmarks.eval_agent $(ARGS)

# AgentDojo's banking suite, ported (benchmarks/injection): 22 user tasks alone, then under 7
# injection tasks in 3 attack templates and 3 steerings of their data, through a served
# gateway, against a worst-case fake model.
# One task: make eval-injection ARGS="--only ut3 --json var/injection.json".
eval-injection: $(STAMP)
	$(BIN)/python -m benchmarks.eval_injection $(ARGS)

clean:
	rm -rf $(VENV) var/*.db .pytest_cache .mypy_cache .ruff_cache

# A transfer and a listing program as the log grows (Postgres): 1 to 100,000 past events on
# the account, 1,000 to 1,000,000 in the log, cold and warm. Smaller: ARGS="--events 100000".
bench-growth: $(STAMP)
	$(BIN)/python -m benchmarks.bench_growth $(ARGS)

# N gateway processes (1, 2, 4) on one Postgres: direct transfers and propose+confirm.
bench-scale: $(STAMP)
	$(BIN)/python -m benchmarks.bench_scale $(ARGS)

# A direct transfer through Gateway.call in process, on cached accounts and from the store.
bench-call: $(STAMP)
	$(BIN)/python -m benchmarks.bench_call $(ARGS)

# The store's transfer statements sent by pgbench (C), by the recorder and by a whole
# application transfer, side by side: where Postgres itself is the limit.
bench-pgbench: $(STAMP)
	$(BIN)/python -m benchmarks.bench_pgbench $(ARGS)

# Read throughput with the reads on the primary alone, beside the same reads on a hot
# standby (SLUICE_READ_DATABASE_URL): a primary and standby of its own, two gateways.
bench-standby: $(STAMP)
	$(BIN)/python -m benchmarks.bench_standby $(ARGS)

# Sluice beside what a user would write instead (FastAPI + eventsourcing.postgres), taking
# turns on one Postgres: one line per workload and client count, with the ratio.
bench-alternative: $(STAMP)
	$(BIN)/python -m benchmarks.bench_alternative $(ARGS)

# The compose layout (two gateways, the projector apart, one Postgres) as real processes,
# beside one `sluice serve`: direct transfers and propose+confirm.
bench-deployment: $(STAMP)
	$(BIN)/python -m benchmarks.bench_deployment $(ARGS)
