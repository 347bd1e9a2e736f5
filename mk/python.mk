# SPDX-License-Identifier: MIT
# mk/python.mk - the Python binding and the monitoring formats, included by the
# top-level Makefile (include mk/*.mk).
#
#   make check-python          (in make check) builds python/ into a temporary
#                              venv of $(PYTHON) (--system-site-packages, for
#                              pytest) with pip install --no-build-isolation,
#                              and runs python/tests with ./pcqdump; skipped,
#                              with what to install, when $(PYTHON) lacks
#                              pytest, setuptools, pip or venv
#   make check-monitoring-unit (in make check) pcqdump --cook --format
#                              prometheus|influx against test/cli/*.prom and
#                              *.influx, written by hand; no tool needed
#   make check-monitoring      promtool check metrics on the Prometheus output
#                              of every cook case, and a throwaway influxd (1.x)
#                              on loopback that must answer 204 to every line
#                              and give the values back (ci/check-monitoring.sh;
#                              installs prometheus and influxdb as root)
#   make check-python-example  the Impacket example against the captures' test
#                              server on loopback, over TCP and with NTLM
#                              privacy (ci/check-python-example.sh)
# Each appends `<name>: N passed, N failed` to $(RESULTS).

PYTHON_SAVED_GOAL := $(.DEFAULT_GOAL)

PYTHON ?= /usr/bin/python3
CHECK_EXTRA += check-python check-monitoring-unit

.PHONY: check-python check-monitoring-unit check-monitoring check-python-example

check-python: $(PCQDUMP)
	@echo "== check: python binding"
	@mkdir -p build; \
	missing=; \
	$(PYTHON) -c 'import pytest' >/dev/null 2>&1 || missing="$$missing python3-pytest"; \
	$(PYTHON) -c 'import setuptools' >/dev/null 2>&1 || missing="$$missing python3-setuptools"; \
	$(PYTHON) -c 'import venv, ensurepip' >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	$(PYTHON) -m pip --version >/dev/null 2>&1 || missing="$$missing python3-pip"; \
	if ! command -v $(PYTHON) >/dev/null 2>&1; then \
	  echo "check-python: skipped (no $(PYTHON): apt-get install python3 python3-venv python3-pip python3-setuptools python3-pytest)"; \
	elif [ -n "$$missing" ]; then \
	  echo "check-python: skipped (needs$$missing: apt-get install$$missing)"; \
	else \
	  sh ci/check-python.sh "$(PYTHON)" "$(abspath $(PCQDUMP))" > build/check-python.log 2>&1; \
	  tail -n 30 build/check-python.log; \
	  line=$$(tail -n 1 build/check-python.log); \
	  echo "$$line" | grep -Eq '^python: [0-9]+ passed, [0-9]+ failed$$' || line="python: 0 passed, 1 failed"; \
	  echo "$$line" >> $(RESULTS); \
	fi

# Hand-written expected outputs of the two formats (test/cli/README.md).
check-monitoring-unit: $(PCQDUMP)
	@echo "== check: monitoring formats"
	@mkdir -p build; sh test/cli/monitoring.sh $(PCQDUMP) > build/check-monitoring-unit.log 2>&1; \
	  cat build/check-monitoring-unit.log; \
	  line=$$(tail -n 1 build/check-monitoring-unit.log); \
	  echo "$$line" | grep -Eq '^monitoring: [0-9]+ passed, [0-9]+ failed$$' || line="monitoring: 0 passed, 1 failed"; \
	  echo "$$line" >> $(RESULTS)

check-monitoring: $(PCQDUMP)
	bash ci/check-monitoring.sh $(PCQDUMP)

check-python-example: $(PCQDUMP)
	bash ci/check-python-example.sh "$(PYTHON)" $(PCQDUMP)

.DEFAULT_GOAL := $(PYTHON_SAVED_GOAL)
