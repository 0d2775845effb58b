# The two commands a newcomer needs: `make demo` and `make test`. Both install what they need.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
CREATED := $(VENV)/.created
# Two install stamps in one venv: the demo needs only the runtime (`pip install -e .`); test, lint, typecheck,
# docs and bench need the dev extras too. `make test` after `make demo` still installs them (its own stamp);
# installing the dev extras installs the runtime as well, so `make demo` after `make test` installs nothing.
RUNTIME := $(VENV)/.installed-runtime
STAMP := $(VENV)/.installed-dev
DEMO_OUT ?= out/demo
# Debian packages later stages use (lab: iproute2, FRR, lldpd, OpenSSH, ibsim, OpenSM, yanglint; chromium for the
# HTML report test; sshpass for Ansible password logins over OpenSSH; prometheus for promtool and the watch test;
# musl-tools: the lab hosts' NIC-tool client is built static against musl, see xoff/lab/shims/client.py).
APT_PACKAGES ?= libyang2-tools frr opensm ibsim-utils infiniband-diags shellcheck lldpd openssh-server chromium sshpass prometheus musl-tools

# Grafana's TypeScript types and the compiler that checks the dashboard against them (tests/watch/test_dashboard.py),
# from npm, pinned here, installed into the venv (never into the repository). No registry package ships Grafana's
# dashboard JSON schema itself: tests/support/grafana_tsc.py says what was looked at.
GRAFANA_TYPES := $(VENV)/grafana-types
GRAFANA_NPM := typescript@5.9.3 @grafana/schema@13.2.3 @grafana/grafana-foundation-sdk@0.0.21

.PHONY: demo test lint typecheck unit schema docs bench clean system-deps lab-clab grafana-types

$(CREATED):
	@command -v $(PY) >/dev/null || { echo "python3 is required (Debian: apt-get install python3 python3-venv)"; exit 2; }
	@$(PY) -c 'import venv, ensurepip' 2>/dev/null || { apt-get update -qq && apt-get install -y -qq python3-venv; }
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	@touch $(CREATED)

$(RUNTIME): pyproject.toml | $(CREATED)
	$(BIN)/pip install -q -e .
	@touch $(RUNTIME)

$(STAMP): pyproject.toml | $(CREATED)
	$(BIN)/pip install -q -e '.[dev]'
	@touch $(STAMP) $(RUNTIME)

system-deps:
	@if [ -n "$(APT_PACKAGES)" ]; then \
	  missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	  if [ -n "$$missing" ]; then apt-get update -qq && apt-get install -y -qq $$missing; fi; \
	fi

grafana-types: | $(CREATED)
	@if [ "$$(cat $(GRAFANA_TYPES)/.pinned 2>/dev/null)" != "$(GRAFANA_NPM)" ]; then \
	  command -v npm >/dev/null || { echo "npm is required for the dashboard's type check (Node.js 20 with npm)"; exit 2; }; \
	  npm install --prefix $(GRAFANA_TYPES) --no-audit --no-fund --ignore-scripts --save-exact $(GRAFANA_NPM) \
	    && echo "$(GRAFANA_NPM)" > $(GRAFANA_TYPES)/.pinned; \
	fi

demo: $(RUNTIME) system-deps
	$(BIN)/xoff check inventory/lab-mini
	$(BIN)/xoff plan inventory/lab-mini -o $(DEMO_OUT)/plan.json
	$(BIN)/xoff plan inventory/lab-mini --device leaf1 --format text
	$(BIN)/xoff headroom --speed 400G --cable 40m --asic spectrum4 --model dynamic --small-packet-percent 100
	$(BIN)/xoff render inventory/lab-mini -o $(DEMO_OUT)/render
	@echo "rendered configuration: $(DEMO_OUT)/render/<device>/ (SONiC config_db.json + frr.conf, EOS running-config,"
	@echo "NVUE commands + startup.yaml, host apply script + nccl.env); manifest: $(DEMO_OUT)/render/manifest.json"
	$(BIN)/xoff validate inventory/lab-mini --offline
	@if [ "$$(id -u)" = 0 ] && command -v ip >/dev/null; then \
	  XOFF=$(BIN)/xoff OUT=$(DEMO_OUT) scripts/demo-lab.sh; \
	else \
	  echo "lab: skipped (the lab needs root for network namespaces; the offline part above ran)"; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/vulture  # dead code; what it cannot see is listed in pyproject.toml [tool.vulture]

typecheck: $(STAMP)
	$(BIN)/mypy

# pytest-xdist: one worker per core (2 on these machines); --dist loadfile keeps a module's tests, and the lab its
# module fixture brings up, on one worker. Labs are named per process and remapped into free blocks, so two
# workers' labs never collide; the `exclusive` tests (a lab at the intent's own addresses, as the README runs it)
# run afterwards, alone.
TEST_WORKERS ?= 3
unit: $(STAMP) grafana-types
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile -m "not exclusive"
	$(BIN)/pytest -q -m exclusive

test: $(STAMP) system-deps lint typecheck unit

schema: $(STAMP)
	$(BIN)/xoff schema -o docs/intent.schema.json

# Every generated page, from its registry (tests fail when one is stale): the intent schema and reference, the check reference,
# the platform capability matrix, the lab fault table inside docs/faults.md, the capture names of every collected
# command (docs/captures.md), and the examples' containerlab topologies.
docs: schema lab-clab
	$(BIN)/python -m xoff.intent.docs > docs/intent.md
	$(BIN)/python -m xoff.validate.docs > docs/checks.md
	$(BIN)/python -m xoff.platforms.docs > docs/platforms.md
	$(BIN)/python -m xoff.lab.faults.docs docs/faults.md
	$(BIN)/python -m xoff.collect.captures_doc > docs/captures.md
	$(BIN)/python -m xoff.buffers.catalogue_doc > docs/buffers.md

# The containerlab topology of every example intent, lab/clab/<example>.clab.yml (tests/lab_offline/test_lab_assets.py
# fails when one is stale). Each export renders its startup configuration beside it (<fabric>-configs/, not committed).
lab-clab: $(STAMP)
	@for dir in inventory/*/; do \
	  example=$$(basename $$dir); $(BIN)/xoff lab export $$dir -o lab/clab/$$example.clab.yml || exit 1; \
	done

bench: $(STAMP)
	$(BIN)/python bench/plan_scale.py --record bench/results/plan_scale.md
	$(BIN)/python bench/render_scale.py --record bench/results/render_scale.md
	$(BIN)/python bench/render_eos_vs_pyavd.py --devices 50 --repeats 5 --record bench/results/render_eos_vs_pyavd.md

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache .hypothesis
