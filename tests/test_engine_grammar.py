"""The engine applies engine.grammar constraints: valid JSON from a random-weight model,
while unconstrained requests share the batch."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

from engine.chat_engine import ChatEngine  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.types import GenerationRequest, SamplingParams  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402

grammar = pytest.importorskip("engine.grammar")

SCHEMA = {
    "type": "object",
    "properties": {
        "colour": {"enum": ["red", "green", "blue"]},
        "ok": {"type": "boolean"},
        "size": {"enum": [1, 2, 3]},
    },
    "required": ["colour", "ok", "size"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def engine():
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny"))))
    yield eng
    eng.shutdown()


async def test_json_schema_output_is_valid_in_a_mixed_batch(engine: ChatEngine) -> None:
    cache = grammar.GrammarCompilerCache(engine.tokenizer, engine.vocab_size)
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": SCHEMA, "strict": True}}
    prompt = engine.render_chat([{"role": "user", "content": "Give JSON."}], None, {})

    async def constrained(i: int) -> tuple[str, str]:
        con = grammar.build_constraint(
            cache,
            response_format=fmt,
            tools=None,
            tool_choice=None,
            parallel_tool_calls=True,
            tool_format="hermes",
            reasoning=False,
        )
        params = SamplingParams(temperature=1.0, seed=i, max_tokens=200, repetition_penalty=1.2)
        events = [
            ev async for ev in engine.generate(GenerationRequest(f"j{i}", prompt, params, con))
        ]
        return "".join(ev.text for ev in events), events[-1].finish_reason or ""

    async def free(i: int) -> str:
        params = SamplingParams(temperature=1.0, seed=i, max_tokens=30, ignore_eos=True)
        events = [ev async for ev in engine.generate(GenerationRequest(f"f{i}", prompt, params))]
        return events[-1].finish_reason or ""

    results = await asyncio.gather(
        *(constrained(i) for i in range(4)), *(free(i) for i in range(3))
    )
    for text, reason in results[:4]:
        assert reason == "stop", text
        value = json.loads(text)
        assert value["colour"] in ("red", "green", "blue") and value["size"] in (1, 2, 3)
        assert isinstance(value["ok"], bool) and set(value) == {"colour", "ok", "size"}
    assert results[4:] == ["length"] * 3
