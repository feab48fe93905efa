#!/usr/bin/env bash
# Set up (idempotently) everything AFM needs from the project's own files:
# a virtual environment in .venv with the package and its pinned dependencies.
# Usage: bash tools/setup.sh [dev]   ("dev" adds test tools, npm tools and Chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
if [ "${1:-}" = "dev" ]; then
  .venv/bin/python -m pip install -q -e ".[dev]"
  # native quantized matmul (engine/_afm_qmm, incremental): without a compiler, one line
  .venv/bin/python -m engine.qkernels build || true
  if [ -f package-lock.json ] && command -v npm >/dev/null; then
    npm ci --no-audit --no-fund --silent
  fi
  if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
else
  .venv/bin/python -m pip install -q -e .
fi
# the shipped speech models (Whisper tiny.en, the Piper voice joe), sha256-pinned, into the
# cache; AFM_SPEECH_MODELS=all adds Whisper base, AFM_SPEECH_MODELS=none skips them
case "${AFM_SPEECH_MODELS:-default}" in
  none) ;;
  all) .venv/bin/python -m afm.speech_models --all ;;
  *) .venv/bin/python -m afm.speech_models ;;
esac
