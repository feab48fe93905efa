"""Reasoning (`<think>...</think>` -> `reasoning_content`) through the openai SDK, live.

A random-weight model almost never writes ``</think>``, so these tests serve `tiny-think`, a copy
of the `tiny` test model built here with two deliberate changes:

- its chat template opens ``<think>\\n`` in the generation prompt when thinking is on (as
  DeepSeek-R1 and Qwen3 "thinking" templates do), and closes an empty block when it is off (as
  Qwen3 does);
- its weights make ``</think>`` likely at every step (about one step in ten): every embedding
  row gets the same offset on one hidden dimension, which shifts all logits equally (tied
  embeddings) but gives the final hidden state a steady positive component there, and the
  ``</think>`` row gets an extra amount on that dimension.

So the model "thinks" a few noise tokens, closes the block, and the grammar then shapes the answer:
the split and the constraint-after-``</think>`` are observed without faking anything server-side.
Whether thinking is on is also visible in ``usage.prompt_tokens`` (the off prompt carries the
closed ``<think>\\n\\n</think>\\n\\n`` block).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest

from tests.conftest import LiveServer

pytestmark = pytest.mark.slow

SEEDS = (0, 1, 2, 3)
MESSAGES = [{"role": "user", "content": "Is it raining?"}]
SCHEMA = {"type": "object",
          "properties": {"raining": {"type": "boolean"}, "level": {"enum": ["low", "high"]}},
          "required": ["raining", "level"], "additionalProperties": False}
RF = {"type": "json_schema", "json_schema": {"name": "rain", "schema": SCHEMA, "strict": True}}
OFF = {"enable_thinking": False}
ON = {"enable_thinking": True}
RESIDUAL_OFFSET = 0.3  # added to hidden dimension 0 of every embedding row
THINK_END_BOOST = 1.05  # extra on the </think> row: P(</think>) ~ 0.1 per step
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string", "maxLength": 8}},
    "required": ["city"], "additionalProperties": False}}}


def build_think_model(dst: Path) -> Path:
    """`tiny` with a template that opens <think> and weights that make </think> likely."""
    import mlx.core as mx
    import numpy as np

    from modelbuilder import ensure_model

    shutil.copytree(ensure_model("tiny"), dst)
    cfg_path = dst / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text())
    off = "{{- '<think>\\n\\n</think>\\n\\n' }}"
    assert cfg["chat_template"].count(off) == 1
    cfg["chat_template"] = cfg["chat_template"].replace(
        off + "{%- endif %}", off + "{%- else %}{{- '<think>\\n' }}{%- endif %}")
    cfg_path.write_text(json.dumps(cfg))
    weights, metadata = mx.load(str(dst / "model.safetensors"), return_metadata=True)
    emb = np.array(weights["model.embed_tokens.weight"])
    emb[:, 0] += RESIDUAL_OFFSET
    emb[_token_id(dst, "</think>"), 0] += THINK_END_BOOST
    weights["model.embed_tokens.weight"] = mx.array(emb)
    mx.save_safetensors(str(dst / "model.safetensors"), weights, metadata=metadata)
    return dst


def _token_id(folder: Path, token: str) -> int:
    from transformers import AutoTokenizer

    return int(AutoTokenizer.from_pretrained(folder).convert_tokens_to_ids(token))


@pytest.fixture(scope="module")
def think_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_think_model(tmp_path_factory.mktemp("models") / "tiny-think")


@pytest.fixture(scope="module")
def think(live_server: Callable[..., LiveServer], think_model: Path) -> Any:
    return live_server(model=think_model).openai()


@pytest.fixture(scope="module")
def think_off_server(live_server: Callable[..., LiveServer], think_model: Path) -> Any:
    return live_server("--no-think", model=think_model).openai()


def ask(client: Any, **kw: Any) -> Any:
    kw.setdefault("model", "tiny-think")
    kw.setdefault("messages", MESSAGES)
    kw.setdefault("max_tokens", 200)
    kw.setdefault("temperature", 1.0)
    return client.chat.completions.create(**kw)


def ask_stream(client: Any, **kw: Any) -> tuple[str | None, str | None, str | None]:
    """(reasoning, content, finish_reason) joined from a stream's deltas; every reasoning delta
    comes before the first content delta."""
    kw.setdefault("model", "tiny-think")
    kw.setdefault("messages", MESSAGES)
    kw.setdefault("max_tokens", 200)
    kw.setdefault("temperature", 1.0)
    reasoning: list[str] = []
    content: list[str] = []
    finish = None
    for chunk in client.chat.completions.create(stream=True, **kw):
        for choice in chunk.choices:
            r = getattr(choice.delta, "reasoning_content", None)
            if r:
                assert not content, "reasoning after content"
                reasoning.append(r)
            if choice.delta.content:
                content.append(choice.delta.content)
            finish = choice.finish_reason or finish
    return "".join(reasoning) or None, "".join(content), finish


def prompt_tokens(client: Any, **kw: Any) -> int:
    return ask(client, max_tokens=1, **kw).usage.prompt_tokens


def test_split_and_constraint_after_think(think: Any) -> None:
    """Thinking on: noise reasoning, then </think>, then schema-valid JSON; streamed the same."""
    thought = 0
    for seed in SEEDS:
        r = ask(think, response_format=RF, seed=seed, extra_body={"chat_template_kwargs": ON})
        msg = r.choices[0].message
        assert r.choices[0].finish_reason == "stop"
        jsonschema.validate(json.loads(msg.content), SCHEMA)
        reasoning = getattr(msg, "reasoning_content", None)
        if reasoning is not None:  # None when </think> came first
            assert reasoning.strip() == reasoning != ""
            assert "<think>" not in reasoning and "</think>" not in reasoning
            thought += 1
        assert "</think>" not in msg.content
        streamed = ask_stream(think, response_format=RF, seed=seed,
                              extra_body={"chat_template_kwargs": ON})
        assert streamed == (reasoning, msg.content, "stop")
    assert thought >= 2


def test_reasoning_then_tool_call(think: Any) -> None:
    """Thinking on with tool_choice=required: the call is forced after </think>."""
    thought = 0
    for seed in SEEDS:
        r = ask(think, tools=[WEATHER], tool_choice="required", parallel_tool_calls=False,
                seed=seed)
        choice = r.choices[0]
        thought += getattr(choice.message, "reasoning_content", None) is not None
        assert choice.finish_reason == "tool_calls" and choice.message.content is None
        (call,) = choice.message.tool_calls
        jsonschema.validate(json.loads(call.function.arguments),
                            WEATHER["function"]["parameters"])
    assert thought >= 2


def test_enable_thinking_false_is_authoritative(think: Any) -> None:
    """Explicit enable_thinking=false wins over reasoning_effort: closed block, no reasoning,
    and the constraint from the first token."""
    on = prompt_tokens(think)
    off = prompt_tokens(think, extra_body={"chat_template_kwargs": OFF})
    assert off > on
    both = {"reasoning_effort": "high", "chat_template_kwargs": OFF}
    assert prompt_tokens(think, extra_body=both) == off
    assert prompt_tokens(think, extra_body={"reasoning_effort": "high"}) == on
    for seed in SEEDS[:2]:
        r = ask(think, response_format=RF, seed=seed, extra_body=both)
        assert getattr(r.choices[0].message, "reasoning_content", None) is None
        jsonschema.validate(json.loads(r.choices[0].message.content), SCHEMA)
        assert ask_stream(think, response_format=RF, seed=seed, extra_body=both)[0] is None


@pytest.mark.parametrize("effort", ["none", "minimal", "low", "medium", "high", "max"])
def test_reasoning_effort_values(think: Any, effort: str) -> None:
    on = prompt_tokens(think)
    off = prompt_tokens(think, extra_body={"chat_template_kwargs": OFF})
    got = prompt_tokens(think, extra_body={"reasoning_effort": effort})
    assert got == (off if effort == "none" else on)


def test_reasoning_effort_unknown_is_400(think: Any) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        ask(think, extra_body={"reasoning_effort": "extreme"})
    assert info.value.type == "invalid_request_error"


def test_no_think_server_default(think: Any, think_off_server: Any) -> None:
    """--no-think: thinking off unless the request turns it on (kwargs or an effort)."""
    on = prompt_tokens(think)
    off = prompt_tokens(think, extra_body={"chat_template_kwargs": OFF})
    assert prompt_tokens(think_off_server) == off
    assert prompt_tokens(think_off_server, extra_body={"chat_template_kwargs": ON}) == on
    assert prompt_tokens(think_off_server, extra_body={"reasoning_effort": "high"}) == on
    for seed in SEEDS[:2]:
        r = ask(think_off_server, response_format=RF, seed=seed)
        assert getattr(r.choices[0].message, "reasoning_content", None) is None
        jsonschema.validate(json.loads(r.choices[0].message.content), SCHEMA)


def test_stock_template_thinking_on_still_structured(client: Any) -> None:
    """The stock tiny template (thinking on by default, no <think> in the prompt): the first
    token may open <think>, else the JSON starts at once; either way the answer is valid."""
    for seed in SEEDS:
        r = ask(client, model="tiny", response_format=RF, seed=seed)
        assert r.choices[0].finish_reason == "stop"
        jsonschema.validate(json.loads(r.choices[0].message.content), SCHEMA)
