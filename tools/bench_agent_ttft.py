"""Agent-session TTFT: a cold first turn, the second turn on the same server, and the second
turn again after a restart with ``--prompt-cache-dir`` (plus a third turn as a restarted
server's first request), on a real coder model. Prints a table and the ratios.

    PYTHONPATH=$PWD .venv/bin/python tools/bench_agent_ttft.py [--model FILE.gguf]
        [--system-tokens 2500] [--max-tokens 48] [--port 9871]

The first turn is a long system prompt (agent rules, sized by ``--system-tokens``), six
function tools and a user task; the second adds the assistant's reply (its tool call, when the
model made one) and a tool result; the third adds a second reply and tool result. All requests
are streamed chat completions at temperature 0; TTFT is the time from sending the request to
the first chunk that carries generated text or a tool call. Targets (issue 30): second turn
<= 0.15x the first; after a restart <= 0.25x.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = "/work/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"

RULES = [
    "Read a file before you change it, and change only what the task needs.",
    "Prefer small, reviewable edits; never rewrite a whole file to change one function.",
    "Run the project's tests after every change and report failures verbatim.",
    "Keep the user's code style: indentation, naming, import order and line length.",
    "Never print secrets, tokens or credentials, even when a file contains them.",
    "When a command fails, read its output and fix the cause instead of retrying blindly.",
    "Explain what you did in two or three sentences once the task is finished.",
    "Ask before deleting files, force-pushing, or running commands that touch the network.",
    "Use the tools to inspect the repository; do not guess file contents or paths.",
    "Write tests for new behaviour next to the existing tests of the same module.",
]

TOOLS = [
    ("read_file", "Read a text file of the repository.", {"path": "string"}),
    ("write_file", "Create or overwrite a file with the given content.",
     {"path": "string", "content": "string"}),
    ("edit_file", "Replace one exact snippet of a file with another.",
     {"path": "string", "old": "string", "new": "string"}),
    ("list_dir", "List the entries of a folder.", {"path": "string"}),
    ("run", "Run a shell command in the repository and return its output.",
     {"command": "string", "timeout_s": "integer"}),
    ("search", "Search the repository for a regular expression.",
     {"pattern": "string", "glob": "string"}),
]


def tools() -> list[dict[str, Any]]:
    return [{"type": "function", "function": {
        "name": name, "description": desc,
        "parameters": {"type": "object", "required": list(props),
                       "properties": {k: {"type": t} for k, t in props.items()}}}}
        for name, desc, props in TOOLS]


def system_prompt(tokens: int) -> str:
    """Numbered agent rules, about ``tokens`` tokens long (~25 tokens per rule line)."""
    lines = ["You are a coding agent working inside a git repository on the user's machine."]
    i = 0
    while len(lines) * 25 < tokens:
        lines.append(f"{len(lines)}. {RULES[i % len(RULES)]} (section {i // len(RULES) + 1})")
        i += 1
    return "\n".join(lines)


class Server:
    def __init__(self, model: str, port: int, cache_dir: Path, data_dir: Path, log: Path):
        self.cmd = [sys.executable, "-m", "afm", "serve", "--model", model, "--port", str(port),
                    "--data-dir", str(data_dir), "--prompt-cache-dir", str(cache_dir)]
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        out = self.log.open("ab")
        self.proc = subprocess.Popen(self.cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"afm serve exited:\n{self.log.read_text()[-3000:]}")
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise SystemExit("afm serve did not become healthy")

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.terminate()  # SIGTERM: queued prompt-cache writes finish first
        self.proc.wait(timeout=120)


def turn(server: Server, messages: list[dict[str, Any]], max_tokens: int
         ) -> tuple[float, dict[str, Any], dict[str, Any]]:
    """One streamed request: (TTFT seconds, usage, the assistant message)."""
    body = {"model": "m", "messages": messages, "tools": tools(), "max_tokens": max_tokens,
            "temperature": 0, "stream": True, "stream_options": {"include_usage": True}}
    ttft = 0.0
    usage: dict[str, Any] = {}
    text, calls = "", {}
    tic = time.perf_counter()
    with httpx.stream("POST", server.url + "/v1/chat/completions", json=body,
                      timeout=900) as r:
        r.raise_for_status()
        for line in r.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if chunk.get("usage"):
                usage = chunk["usage"]
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                if not ttft and (delta.get("content") or delta.get("tool_calls")
                                 or delta.get("reasoning_content")):
                    ttft = time.perf_counter() - tic
                text += delta.get("content") or ""
                for tc in delta.get("tool_calls") or []:
                    slot = calls.setdefault(tc["index"], {"id": "", "name": "", "args": ""})
                    slot["id"] = tc.get("id") or slot["id"]
                    fn = tc.get("function") or {}
                    slot["name"] += fn.get("name") or ""
                    slot["args"] += fn.get("arguments") or ""
    reply: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        reply["tool_calls"] = [{"id": c["id"] or f"call_{i}", "type": "function",
                                "function": {"name": c["name"], "arguments": c["args"] or "{}"}}
                               for i, c in sorted(calls.items())]
    return ttft or time.perf_counter() - tic, usage, reply


def followed(messages: list[dict[str, Any]], reply: dict[str, Any], result: str
             ) -> list[dict[str, Any]]:
    """The conversation plus the assistant's reply and a tool result for it."""
    out = [*messages, reply]
    if reply.get("tool_calls"):
        out += [{"role": "tool", "tool_call_id": c["id"], "content": result}
                for c in reply["tool_calls"]]
    else:
        out.append({"role": "user", "content": f"Tool output:\n{result}"})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--system-tokens", type=int, default=2500)
    p.add_argument("--max-tokens", type=int, default=48)
    p.add_argument("--port", type=int, default=9871)
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="afm-ttft-"))
    cache, log = work / "prompt-cache", work / "server.log"
    first = [{"role": "system", "content": system_prompt(args.system_tokens)},
             {"role": "user", "content": "Read README.md and tell me how to run the tests."}]
    rows = []
    try:
        with Server(args.model, args.port, cache, work / "data1", log) as s:
            t1, u1, r1 = turn(s, first, args.max_tokens)
            rows.append(("turn 1 (cold)", t1, u1))
            second = followed(first, r1, "# demo\nRun the tests with `pytest -q`.\n")
            t2, u2, r2 = turn(s, second, args.max_tokens)
            rows.append(("turn 2 (same server)", t2, u2))
        third = followed(second, r2, "12 passed in 0.41s")
        with Server(args.model, args.port, cache, work / "data2", log) as s:
            t2r, u2r, _ = turn(s, second, args.max_tokens)
            rows.append(("turn 2 (after restart)", t2r, u2r))
        with Server(args.model, args.port, cache, work / "data3", log) as s:
            t3r, u3r, _ = turn(s, third, args.max_tokens)
            rows.append(("turn 3 (first after restart)", t3r, u3r))
    finally:
        disk = sum(f.stat().st_size for f in cache.rglob("*.safetensors"))
        shutil.rmtree(work, ignore_errors=True)
    print(f"model {Path(args.model).name}; prompt cache on disk at the end: {disk / 2**20:.0f} MiB")
    print(f"{'request':30} {'prompt':>7} {'cached':>7} {'TTFT s':>8} {'x turn 1':>9}")
    for name, t, u in rows:
        cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
        print(f"{name:30} {u.get('prompt_tokens', 0):7d} {cached:7d} {t:8.2f} {t / t1:9.3f}")
    print(f"\nsecond turn / first: {t2 / t1:.3f} (target <= 0.15); after restart: "
          f"{t2r / t1:.3f} (target <= 0.25); third turn after restart: {t3r / t1:.3f}")


if __name__ == "__main__":
    main()
