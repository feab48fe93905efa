"""`--max-context` caps the model's context (and so each slot's KV cache) through a real
`afm serve`: models and token counts report the cap, longer prompts are refused with 400
context_length_exceeded, and output stops at it; the load log states the KV bound."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.conftest import LiveServer

CAP = 96


@pytest.fixture(scope="module")
def server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--max-context", str(CAP))


def test_cap_is_reported_and_enforced(server: LiveServer) -> None:
    [chat] = [m for m in httpx.get(server.url + "/v1/models").json()["data"]
              if m["type"] == "chat"]
    assert chat["max_context_length"] == CAP
    refused = httpx.post(server.url + "/v1/chat/completions", timeout=60, json={
        "model": "m", "messages": [{"role": "user", "content": "lighthouse " * 200}],
        "max_tokens": 4})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "context_length_exceeded"
    out = httpx.post(server.url + "/v1/chat/completions", timeout=120, json={
        "model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 500,
        "ignore_eos": True})
    assert out.status_code == 200, out.text
    usage = out.json()["usage"]
    assert usage["prompt_tokens"] + usage["completion_tokens"] <= CAP
    assert out.json()["choices"][0]["finish_reason"] == "length"
    log = server.log_path.read_text(errors="replace")
    assert f"at the {CAP}-token context" in log


def test_negative_cap_is_refused_at_startup() -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = subprocess.run([sys.executable, "-m", "afm", "serve", "--max-context", "-1"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "--max-context must be 0" in out.stderr + out.stdout
