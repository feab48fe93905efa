#!/usr/bin/env bash
# The package works when installed, not only from the checkout: build the wheel from the files
# git knows (as a clean clone has them), install it with its pinned dependencies into a fresh
# venv outside the checkout, start `afm serve` from that venv with its working directory outside
# the checkout on the embedded default model (SmolLM2-135M-Instruct, the file tools/setup.sh
# fetched into the model cache), and check /health, a real question answered ("Paris") and
# /docs (Swagger UI, served offline from the installed packages).
#
# Usage: bash tools/wheel_check.sh   (needs .venv from tools/setup.sh; tools/test.sh runs it in
# CI). The install resolves every dependency from pip's configured sources and cache, like
# `pip install .` on a user's machine; it is the slow part (minutes: torch and friends).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY="$ROOT/.venv/bin/python"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/afm-wheel-check.XXXXXX")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
export HF_HUB_OFFLINE=1
started=$(date +%s)

echo "wheel check: building the wheel from git's files"
mkdir -p "$WORK/src" "$WORK/dist" "$WORK/run"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
  | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' \
  | tar --null -T - -cf -) | tar -xf - -C "$WORK/src"
"$PY" -m pip wheel -q --no-deps --no-build-isolation "$WORK/src" -w "$WORK/dist"
WHEEL=$(ls "$WORK"/dist/afm-*.whl)
"$PY" - "$WHEEL" "$ROOT" <<'EOF'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
missing = {"afm/openapi/afm.yaml", "afm/contract.py", "afm/cli.py"} - names
assert not missing, f"the wheel lacks {sorted(missing)}"
sys.path.insert(0, sys.argv[2])
from engine.qkernels_build import missing_tools
if missing_tools() is None:  # a compiler and cmake are here: the wheel carries the kernels
    assert any(n.startswith("engine/_afm_qmm") for n in names), "the wheel lacks engine/_afm_qmm"
EOF

echo "wheel check: installing $(basename "$WHEEL") into a fresh venv"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q --no-compile "$WHEEL" 2>&1 \
  | grep -v "is ignored: it is neither a file nor a directory" || true
"$WORK/venv/bin/python" -m pip show -q afm >/dev/null  # the install above really happened
if (cd "$ROOT" && "$PY" -c "from engine.qkernels_build import missing_tools as m; assert m() is None") 2>/dev/null; then
  (cd "$WORK/run" && "$WORK/venv/bin/python" -c \
    "from engine import qkernels as q; assert q.available(), q.unavailable_reason(); print('wheel check: native kernels', q.default_isa())")
fi
echo "wheel check: installed in $(( $(date +%s) - started ))s"

"$PY" -c "from afm.real_models import cached_path as c; assert c('smollm2'), 'run tools/setup.sh: the default model is not cached'"
PORT=$("$PY" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
cd "$WORK/run"
"$WORK/venv/bin/afm" serve --port "$PORT" --data-dir "$WORK/data" \
  > "$WORK/server.log" 2>&1 &
SERVER_PID=$!

if ! "$WORK/venv/bin/python" - "$PORT" "$ROOT" "$SERVER_PID" <<'EOF'
import os, sys, time
import httpx
import afm

port, root, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
assert not afm.__file__.startswith(root), f"afm imported from the checkout: {afm.__file__}"
base = f"http://127.0.0.1:{port}"
deadline = time.monotonic() + 300
while True:
    try:
        if httpx.get(f"{base}/health", timeout=5).status_code == 200:
            break
    except httpx.TransportError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit("afm serve exited during start-up")
    if time.monotonic() > deadline:
        sys.exit("afm serve did not become healthy in 300 s")
    time.sleep(1)
chat = httpx.post(f"{base}/v1/chat/completions", timeout=120, json={
    "model": "afm-default", "max_tokens": 24, "temperature": 0,
    "messages": [{"role": "user", "content": "What is the capital of France?"}]})
assert chat.status_code == 200, chat.text
assert "Paris" in chat.json()["choices"][0]["message"]["content"], chat.text
docs = httpx.get(f"{base}/docs", timeout=30, follow_redirects=True)
assert docs.status_code == 200 and "text/html" in docs.headers["content-type"], docs.status_code
assert "swagger-ui" in docs.text.lower(), docs.text[:300]
bundle = httpx.get(f"{base}/docs/swagger-ui-bundle.js", timeout=30)
assert bundle.status_code == 200 and len(bundle.content) > 100_000, bundle.status_code
spec = httpx.get(f"{base}/openapi.json", timeout=30)
assert spec.status_code == 200 and spec.json()["openapi"] == "3.0.3"
print("wheel check: /health, the default model's Paris, /docs and /openapi.json answer from the wheel")
EOF
then
  echo "wheel check FAILED; server log:"; tail -n 40 "$WORK/server.log"; exit 1
fi
echo "wheel check passed in $(( $(date +%s) - started ))s"
