"""The TypeScript client generated from the contract (clients/typescript, by
tools/gen_ts_client.py): it matches the contract, it type-checks in strict mode, a changed contract
is caught, and its node tests (tests/ts) pass against a live `afm serve`.

Node, the generator and TypeScript come from node_modules (package-lock.json, `npm ci` in
tools/setup.sh dev); nothing is downloaded here.
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
from tests.contract_support import SPEC_PATH

sys.path.insert(0, str(ROOT / "tools"))

import gen_ts_client  # noqa: E402

TSC = ROOT / "node_modules" / ".bin" / "tsc"
CLIENT = ROOT / "clients" / "typescript"
NODE_TESTS = ROOT / "tests" / "ts"


def node_tools() -> None:
    if shutil.which("node") is None or not TSC.exists():
        pytest.fail("node tools are not installed: run `npm ci` in the repository root "
                    "(tools/setup.sh dev does)")


def tsc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TSC), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def renamed_field_contract(tmp_path: Path) -> Path:
    """A copy of the contract where TokenizeResponse's `count` is renamed `n_tokens`: a change
    that breaks any TypeScript consumer reading `count`."""
    spec = yaml.safe_load(SPEC_PATH.read_text())
    schema = spec["components"]["schemas"]["TokenizeResponse"]
    schema["properties"] = {("n_tokens" if k == "count" else k): v
                            for k, v in schema["properties"].items()}
    schema["required"] = [("n_tokens" if k == "count" else k) for k in schema["required"]]
    path = tmp_path / "afm.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def test_typescript_client_matches_the_contract() -> None:
    node_tools()
    lines = gen_ts_client.drift()
    assert lines == [], "clients/typescript drifted; run `python tools/gen_ts_client.py`\n" + \
        "\n".join(lines[:100])


def test_client_and_node_tests_type_check_strict() -> None:
    node_tools()
    proc = tsc("-p", str(NODE_TESTS / "tsconfig.json"), "--noEmit", "--strict")
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]


def test_a_renamed_response_field_fails_drift_and_type_check(tmp_path: Path) -> None:
    """The drift check reports the rename; and a client regenerated from the changed contract
    no longer compiles against its consumer (tests/ts reads `TokenizeResponse.count`)."""
    node_tools()
    spec = renamed_field_contract(tmp_path)
    lines = gen_ts_client.drift(spec=spec)
    assert "differs: types.gen.ts" in lines
    assert any(line.startswith("+") and "n_tokens" in line for line in lines)

    copy = tmp_path / "repo"
    shutil.copytree(CLIENT / "src", copy / "clients" / "typescript" / "src",
                    ignore=shutil.ignore_patterns("generated"))
    shutil.copy(CLIENT / "tsconfig.json", copy / "clients" / "typescript")
    shutil.copytree(NODE_TESTS, copy / "tests" / "ts")
    (copy / "node_modules").symlink_to(ROOT / "node_modules")
    gen_ts_client.generate(copy / "clients" / "typescript" / "src" / "generated", spec)
    proc = subprocess.run([str(TSC), "-p", str(copy / "tests" / "ts" / "tsconfig.json"),
                           "--noEmit", "--strict"], cwd=copy, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode != 0
    assert "Property 'count' does not exist on type 'TokenizeResponse'" in proc.stdout, \
        proc.stdout[-3000:]


@pytest.mark.slow
def test_node_tests_against_a_live_server(live_server: Callable[..., LiveServer],
                                          tmp_path: Path) -> None:
    """tests/ts compiled by `tsc --strict` and run by `node --test` against `afm serve`,
    started with an API key that the client sends on every call."""
    node_tools()
    server = live_server("--api-key", "ts-test-key")
    out = tmp_path / "js"
    proc = tsc("-p", str(NODE_TESTS / "tsconfig.json"), "--noEmit", "false", "--outDir",
               str(out))
    assert proc.returncode == 0, proc.stdout[-5000:]
    (out / "package.json").write_text(json.dumps({"type": "module"}))
    tests = sorted(str(p) for p in (out / "tests" / "ts").glob("*.test.js"))
    assert tests
    env = {**os.environ, "AFM_BASE_URL": server.url, "AFM_API_KEY_FOR_TESTS": "ts-test-key"}
    run = subprocess.run(["node", "--test", "--test-reporter=tap", *tests], cwd=out,
                         capture_output=True, text=True, env=env, timeout=900)
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-3000:]
    declared = sum(len(re.findall(r"^test\(", p.read_text(), re.M))
                   for p in NODE_TESTS.glob("*.test.ts"))
    assert re.search(rf"^# pass {declared}$", run.stdout, re.M), run.stdout[-3000:]
