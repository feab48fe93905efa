"""What the typed boundary costs per chat request: building the generated request model
(pydantic validation) and translating it into the engine's terms (serving.chat.to_spec).
Best of 7 runs of CPU time (process_time), so other load on the machine matters little.

    .venv/bin/python tools/bench_typed_boundary.py
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generated.models import ChatCompletionRequest  # noqa: E402
from serving.chat import to_spec  # noqa: E402

small = {"model": "m", "messages": [{"role": "system", "content": "You are terse."},
         {"role": "user", "content": "Hello there, how are you?"}], "max_tokens": 64,
         "temperature": 0.7, "stream": True}
tools = dict(small, tools=[{"type": "function", "function": {"name": f"f{i}", "description": "d",
         "parameters": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
         "required": ["a"]}}} for i in range(4)], tool_choice="auto",
         response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}})
long = dict(small, messages=[{"role": "user" if i % 2 else "assistant", "content": "word " * 200} for i in range(20)])
def cpu_us(fn, n: int = 500, reps: int = 7) -> float:
    out = []
    for _ in range(reps):
        t = time.process_time()
        for _ in range(n): fn()
        out.append((time.process_time() - t) / n * 1e6)
    return min(out)
print("| request | model_validate (CPU us) | to_spec (CPU us) |\n|---|---|---|")
for name, body in [("2 messages", small), ("2 messages + 4 tools + json_schema", tools), ("20 messages of 1 KB", long)]:
    req = ChatCompletionRequest.model_validate(body)
    print(f"| {name} | {cpu_us(lambda: ChatCompletionRequest.model_validate(body)):.0f} | {cpu_us(lambda: to_spec(req)):.0f} |")
