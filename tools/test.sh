#!/usr/bin/env bash
# Set everything up, then run the whole test suite: lint, contract drift, and pytest
# (unit, api, compat against real `afm serve` processes, reference, contract gate).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh dev
export HF_HUB_OFFLINE=1
.venv/bin/ruff check .
.venv/bin/datamodel-codegen --check
.venv/bin/python -m pytest "$@"
