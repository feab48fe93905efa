"""What the typed boundary costs per chat request: building the generated request model
(pydantic validation) and translating it into the engine's terms (serving.chat.to_spec).
Best of 7 runs of CPU time (process_time), so other load on the machine matters little.

    .venv/bin/python tools/bench_typed_boundary.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generated.models import ChatCompletionRequest  # noqa: E402
from serving.chat import to_spec  # noqa: E402

SMALL: dict[str, Any] = {
    "model": "m", "max_tokens": 64, "temperature": 0.7, "stream": True,
    "messages": [{"role": "system", "content": "You are terse."},
                 {"role": "user", "content": "Hello there, how are you?"}]}
PARAMETERS = {"type": "object", "required": ["a"],
              "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
TOOLS: dict[str, Any] = dict(
    SMALL, tool_choice="auto",
    tools=[{"type": "function",
            "function": {"name": f"f{i}", "description": "d", "parameters": PARAMETERS}}
           for i in range(4)],
    response_format={"type": "json_schema",
                     "json_schema": {"name": "x", "schema": {"type": "object"}}})
LONG: dict[str, Any] = dict(
    SMALL, messages=[{"role": "user" if i % 2 else "assistant", "content": "word " * 200}
                     for i in range(20)])


def cpu_us(fn: Callable[[], object], n: int = 500, reps: int = 7) -> float:
    """Best per-call CPU microseconds over ``reps`` runs of ``n`` calls."""
    best = float("inf")
    for _ in range(reps):
        start = time.process_time()
        for _ in range(n):
            fn()
        best = min(best, (time.process_time() - start) / n * 1e6)
    return best


def main() -> None:
    print("| request | model_validate (CPU us) | to_spec (CPU us) |\n|---|---|---|")
    for name, body in [("2 messages", SMALL), ("2 messages + 4 tools + json_schema", TOOLS),
                       ("20 messages of 1 KB", LONG)]:
        req = ChatCompletionRequest.model_validate(body)
        validate = cpu_us(lambda b=body: ChatCompletionRequest.model_validate(b))
        translate = cpu_us(lambda r=req: to_spec(r))
        print(f"| {name} | {validate:.0f} | {translate:.0f} |")


if __name__ == "__main__":
    main()
