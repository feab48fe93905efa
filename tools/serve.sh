#!/usr/bin/env bash
# Set everything up, then start AFM on the embedded default model (or pass flags through,
# e.g. `bash tools/serve.sh --model mlx-community/Qwen3-0.6B-4bit --port 8080`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
exec .venv/bin/afm serve "$@"
