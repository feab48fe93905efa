"""The contract gate: Schemathesis runs every check on every operation of the contract against a
live `afm serve`, then walks the declared links (files -> batches) statefully. Any finding fails.

Settings, and the few documented exceptions with their reasons, live in tests/schemathesis.toml;
tests/schemathesis_hooks.py adds a check that validates the JSON of every SSE event.

Generation stays cheap without bending the contract: the server runs a copy of the tiny test
model whose context window is 256 tokens, so even a request asking for `max_tokens: 10**9`
stops after a few hundred tokens (the contract says `max_tokens` is capped by the window).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, LiveServer

pytestmark = pytest.mark.slow

CONTEXT_WINDOW = 256
CONFIG = ROOT / "tests" / "schemathesis.toml"
REPORT_DIR = ROOT / "artifacts" / "schemathesis"


def small_context_model(source: Path, target: Path, window: int) -> Path:
    """A copy of a built model folder whose context window is ``window`` tokens."""
    shutil.copytree(source, target)
    for name, key in (("config.json", "max_position_embeddings"),
                      ("tokenizer_config.json", "model_max_length")):
        path = target / name
        data = json.loads(path.read_text())
        data[key] = window
        path.write_text(json.dumps(data, indent=2))
    return target


@pytest.fixture(scope="module")
def gate_server(live_server: Callable[..., LiveServer], tiny_model: Path,
                tmp_path_factory: pytest.TempPathFactory) -> LiveServer:
    model = small_context_model(tiny_model, tmp_path_factory.mktemp("gate") / "afm-gate-256",
                                CONTEXT_WINDOW)
    return live_server("--max-tokens", "8", "--concurrent", "4", model=model)


def test_schemathesis_gate(gate_server: LiveServer) -> None:
    st = Path(sys.executable).parent / "st"
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "tests.schemathesis_hooks", "NO_COLOR": "1"}
    cmd = [str(st), "--config-file", str(CONFIG), "run", f"{gate_server.url}/openapi.json",
           "--checks", "all", "--report", "junit",
           "--report-junit-path", str(REPORT_DIR / "junit.xml")]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"Schemathesis found problems:\n{out[-20000:]}"

    spec = yaml.safe_load((ROOT / "openapi" / "afm.yaml").read_text())
    n_ops = sum(1 for item in spec["paths"].values() for m in item if m != "parameters")
    tested = re.search(r"Tested:\s+(\d+)", out)
    assert tested and int(tested.group(1)) == n_ops, f"not every operation ran:\n{out[-5000:]}"
    links = re.search(r"API Links:\s+(\d+) covered / (\d+) selected", out)
    assert links and links.group(1) == links.group(2) != "0", \
        f"stateful phase left declared links unused:\n{out[-5000:]}"
