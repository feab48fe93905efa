"""The contract gate: Schemathesis runs every check on every operation of the contract against a
live `afm serve`, then walks the declared links (files -> batches) statefully. Any finding fails.

Settings, and the few documented exceptions with their reasons, live in tests/schemathesis.toml;
tests/schemathesis_hooks.py adds a check that validates the JSON of every SSE event.

A second test runs Schemathesis as an outsider does: default settings, `--checks all`, no
project config and no hooks. The contract is as strict as the code when every failure it finds is
a rule that depends on the loaded model, the server's flags or the host, or relates two values of
one request: each listed with its reason in tests/contract_support.py's MODEL_STATE_RULES. Only
the example count is bounded (and the seed fixed) to keep it short.

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
from tests.contract_support import unexplained_failures

pytestmark = pytest.mark.slow

CONTEXT_WINDOW = 256
CONFIG = ROOT / "tests" / "schemathesis.toml"
REPORT_DIR = ROOT / "artifacts" / "schemathesis"
DEFAULTS_MAX_EXAMPLES = 5
DEFAULTS_SEED = 20261130


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
    # --no-speech: real synthesis of generated 4096-character inputs would take minutes
    return live_server("--max-tokens", "8", "--concurrent", "4", "--no-speech", model=model)


def test_schemathesis_gate(gate_server: LiveServer) -> None:
    st = Path(sys.executable).parent / "st"
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "tests.schemathesis_hooks", "NO_COLOR": "1"}
    cmd = [str(st), "--config-file", str(CONFIG), "run", f"{gate_server.url}/openapi.json",
           "--checks", "all", "--report", "junit",
           # Hypothesis' data-generation speed check is about this machine's load, not the API
           "--suppress-health-check", "too_slow",
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


def test_schemathesis_defaults_find_only_model_and_state_rules(gate_server: LiveServer,
                                                                tmp_path: Path) -> None:
    st = Path(sys.executable).parent / "st"
    junit = tmp_path / "junit.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMATHESIS")}
    env["NO_COLOR"] = "1"
    cmd = [str(st), "run", f"{gate_server.url}/openapi.json", "--checks", "all",
           "--max-examples", str(DEFAULTS_MAX_EXAMPLES), "--seed", str(DEFAULTS_SEED),
           "--report", "junit", "--report-junit-path", str(junit)]
    # cwd outside the checkout: Schemathesis finds no project config there
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    out = proc.stdout + proc.stderr
    assert junit.is_file() and "Tested:" in out, f"Schemathesis did not run:\n{out[-5000:]}"
    problems = unexplained_failures(junit.read_text())
    assert problems == [], ("Schemathesis found refusals the contract does not state:\n"
                            + "\n\n".join(problems)[:20000])
