#!/usr/bin/env bash
# Set everything up, then run the whole test suite: lint, contract drift, and pytest
# (unit, api, compat against real `afm serve` processes, reference, contract gate).
# In CI (CI=true), or with AFM_WHEEL_CHECK=1, then also tools/wheel_check.sh: the wheel,
# installed into a fresh venv outside the checkout, serves (minutes: it installs torch & co).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh dev
export HF_HUB_OFFLINE=1
.venv/bin/ruff check .
.venv/bin/datamodel-codegen --check
.venv/bin/python -m pytest "$@"
if [ "${CI:-}" = "true" ] || [ "${AFM_WHEEL_CHECK:-}" = "1" ]; then
  bash tools/wheel_check.sh
fi
