"""Agent turns are cheap, on a real model: the second turn of a session reads >= 90% of its
prompt from the prefix cache on every generation route (streamed and not), and the persistent
prompt cache (`--prompt-cache-dir`) lets a restarted server resume a session."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT, LiveServer
from tests.real_weights import real_model
from tests.waiting import eventually

SYSTEM = ("You are a coding agent working in a repository. Read files before editing them, keep "
          "changes small, run the tests after each change and report what you did. ") * 12


@pytest.fixture(scope="module")
def smollm2() -> Path:
    return real_model("smollm2")


@pytest.fixture(scope="module")
def cache_server(smollm2: Path, tmp_path_factory: pytest.TempPathFactory) -> LiveServer:
    base = tmp_path_factory.mktemp("afm-prompt-cache")
    server = LiveServer(["--model", str(smollm2), "--prompt-cache-dir", str(base / "cache")],
                        base / "data", base / "server.log").start()
    yield server
    server.stop()


def _sse(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            out.append(json.loads(line[6:]))
    return out


def _turn(server: LiveServer, route: str, system: str, history: list[tuple[str, str]], stream: bool
          ) -> dict[str, Any]:
    """One request on ``route``; returns {"text", "prompt", "cached"}."""
    if route == "chat":
        path = "/v1/chat/completions"
        body: dict[str, Any] = {"model": "m", "max_tokens": 8, "temperature": 0, "messages": [
            {"role": "system", "content": system},
            *({"role": r, "content": c} for r, c in history)]}
        if stream:
            body["stream_options"] = {"include_usage": True}
    elif route == "responses":
        path = "/v1/responses"
        body = {"model": "m", "max_output_tokens": 8, "temperature": 0, "store": False,
                "instructions": system,
                "input": [{"type": "message", "role": r, "content": c} for r, c in history]}
    else:
        path = "/v1/messages"
        body = {"model": "m", "max_tokens": 8, "temperature": 0, "system": system,
                "messages": [{"role": r, "content": c} for r, c in history]}
    r = httpx.post(f"{server.url}{path}", json={**body, "stream": stream}, timeout=120)
    assert r.status_code == 200, r.text
    if not stream:
        data = r.json()
        if route == "chat":
            u = data["usage"]
            return {"text": data["choices"][0]["message"]["content"],
                    "prompt": u["prompt_tokens"],
                    "cached": u["prompt_tokens_details"]["cached_tokens"]}
        if route == "responses":
            u = data["usage"]
            text = "".join(p["text"] for item in data["output"] if item["type"] == "message"
                           for p in item["content"])
            return {"text": text, "prompt": u["input_tokens"],
                    "cached": u["input_tokens_details"]["cached_tokens"]}
        u = data["usage"]
        return {"text": "".join(b.get("text", "") for b in data["content"]),
                "prompt": u["input_tokens"] + u["cache_read_input_tokens"],
                "cached": u["cache_read_input_tokens"]}
    events = _sse(r.text)
    if route == "chat":
        u = events[-1]["usage"]
        text = "".join(e["choices"][0]["delta"].get("content") or "" for e in events
                       if e.get("choices"))
        return {"text": text, "prompt": u["prompt_tokens"],
                "cached": u["prompt_tokens_details"]["cached_tokens"]}
    if route == "responses":
        done = next(e for e in events
                    if e["type"] in ("response.completed", "response.incomplete"))
        u = done["response"]["usage"]
        text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
        return {"text": text, "prompt": u["input_tokens"],
                "cached": u["input_tokens_details"]["cached_tokens"]}
    start = next(e for e in events if e["type"] == "message_start")["message"]["usage"]
    u = next(e for e in events if e["type"] == "message_delta")["usage"]
    text = "".join(e["delta"].get("text", "") for e in events
                   if e["type"] == "content_block_delta")
    cached = u.get("cache_read_input_tokens", start.get("cache_read_input_tokens", 0))
    return {"text": text, "prompt": start["input_tokens"] + start["cache_read_input_tokens"],
            "cached": cached}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("route", ["chat", "responses", "messages"])
def test_second_turn_reads_its_prompt_from_the_cache(cache_server: LiveServer, route: str,
                                                     stream: bool) -> None:
    system = f"Session {uuid.uuid4().hex}. {SYSTEM}"
    history = [("user", "List the files in the repository.")]
    first = _turn(cache_server, route, system, history, stream)
    assert first["cached"] == 0, first  # a new session: nothing to reuse
    history += [("assistant", first["text"] or "Done."),
                ("user", "Tool result: README.md setup.py src/ tests/. Now open README.md.")]
    second = _turn(cache_server, route, system, history, stream)
    assert second["cached"] >= 0.9 * second["prompt"], second


BILLING = "x-anthropic-billing-header: cc_version=2.1.337.{}; cc_entrypoint=sdk-cli;"


def _claude_session(server: LiveServer, system: str, session_hex: str) -> dict[str, Any]:
    """A Claude Code session's first request: its per-session billing-header block first."""
    r = httpx.post(f"{server.url}/v1/messages", timeout=120, json={
        "model": "m", "max_tokens": 8, "temperature": 0,
        "system": [{"type": "text", "text": BILLING.format(session_hex)},
                   {"type": "text", "text": system}],
        "messages": [{"role": "user", "content": "Summarise the repository layout."}]})
    assert r.status_code == 200, r.text
    assert "x-anthropic-billing-header line left out" in r.headers["x-afm-warnings"]
    u = r.json()["usage"]
    return {"prompt": u["input_tokens"] + u["cache_read_input_tokens"],
            "cached": u["cache_read_input_tokens"]}


def _metric(server: LiveServer, name: str) -> float:
    for line in httpx.get(f"{server.url}/metrics", timeout=30).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in /metrics")


def test_restarted_server_resumes_from_the_prompt_cache_dir(
        cache_server: LiveServer, smollm2: Path, tmp_path: Path) -> None:
    """A restarted server reads a session from disk; a new Claude Code session (another
    billing-header hex) reuses the last one's system prompt, in memory and after the restart;
    /metrics counts the disk hits and the bytes loaded."""
    system = f"Session {uuid.uuid4().hex}. {SYSTEM}"
    history = [("user", "Summarise the repository layout in one line.")]
    folder = Path(cache_server.args[cache_server.args.index("--prompt-cache-dir") + 1])
    writes = _metric(cache_server, "afm:prompt_cache_disk_writes_total")
    cold = _turn(cache_server, "chat", system, history, False)
    assert cold["cached"] == 0
    agent_system = f"Agent {uuid.uuid4().hex}. {SYSTEM}"
    first = _claude_session(cache_server, agent_system, "a1b")
    assert first["cached"] == 0, first
    again = _claude_session(cache_server, agent_system, "f09")  # a new session, same server
    assert again["cached"] == again["prompt"] - 1, again
    # written in the background, after the reply: the chat session's and the agent's
    eventually(lambda: _metric(cache_server, "afm:prompt_cache_disk_writes_total")
               >= writes + 2, 30, "both sessions' KV states are written to the prompt cache dir",
               interval=0.2)
    assert any(folder.glob("*/*.safetensors"))
    assert _metric(cache_server, "afm:prompt_cache_disk_bytes") > 0
    # a second server on the same folder (a restart, with the first still up): nothing in
    # its memory, the sessions' KV states come from disk
    other = LiveServer(cache_server.args, tmp_path / "data", tmp_path / "server.log").start()
    try:
        assert _metric(other, "afm:prompt_cache_disk_hits_total") == 0
        warm = _turn(other, "chat", system, history, False)
        resumed = _claude_session(other, agent_system, "c3d")  # a third session
        hits = _metric(other, "afm:prompt_cache_disk_hits_total")
        tokens = _metric(other, "afm:prompt_cache_disk_hit_tokens_total")
        read = _metric(other, "afm:prompt_cache_disk_read_bytes_total")
    finally:
        other.stop()
    assert warm["cached"] == warm["prompt"] - 1, warm  # all but the last prompt token
    assert resumed["cached"] == resumed["prompt"] - 1, resumed
    assert hits == 2 and tokens == warm["cached"] + resumed["cached"], (hits, tokens)
    assert read > 0
    assert warm["text"] == cold["text"]  # greedy: the same reply from the reloaded KV state


@pytest.mark.parametrize(("flag", "value", "says"), [
    ("--kv-bits", "3", "--kv-bits must be 4 or 8"),
    ("--prompt-cache-size", "lots", "--prompt-cache-size: not a size"),
])
def test_bad_cache_flags_are_refused_at_start_up(flag: str, value: str, says: str) -> None:
    r = subprocess.run([sys.executable, "-m", "afm", "serve", flag, value], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert says in r.stderr.strip().splitlines()[-1]


def test_kv_bits_serves_a_batch_and_answers_sensibly(smollm2: Path, tmp_path: Path) -> None:
    """--kv-bits 8: requests prefill into quantized caches and decode together (rows join and
    leave the quantized batch); the answers stay on topic; the prefix cache and the prompt
    cache keep quantized entries."""
    server = LiveServer(["--model", str(smollm2), "--kv-bits", "8", "--prompt-cache-dir",
                         str(tmp_path / "cache")], tmp_path / "data",
                        tmp_path / "server.log").start()
    questions = {"What is the capital of France? Answer in one word.": "paris",
                 "What colour is the sky on a clear day? Answer in one word.": "blue",
                 "How many days are in a week? Answer with a number.": "7"}

    async def ask_all() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
            return await asyncio.gather(*(client.post("/v1/chat/completions", json={
                "model": "m", "temperature": 0, "max_tokens": 12 + 4 * i,
                "messages": [{"role": "user", "content": q}]})
                for i, q in enumerate(questions)))

    history = [("user", "Which file should I read first?")]
    try:
        replies = asyncio.run(ask_all())
        half = SYSTEM[: len(SYSTEM) // 2]  # ~200 tokens: above what the prompt cache writes
        first = _turn(server, "chat", half, history, False)
        again = _turn(server, "chat", half, history, False)
    finally:
        server.stop()
    assert "KV cache quantized to 8 bits" in server.log_tail(200)
    assert again["cached"] == again["prompt"] - 1 and again["text"] == first["text"], again
    assert list((tmp_path / "cache").glob("*/*.safetensors"))
    for r, want in zip(replies, questions.values(), strict=True):
        assert r.status_code == 200, r.text
        assert want in r.json()["choices"][0]["message"]["content"].lower(), r.json()
