"""Chat template rendering: tool-call arguments become mappings, None content, tools, kwargs."""

from __future__ import annotations

import json

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

from engine.chat_engine import ChatEngine  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.templating import prepare_messages  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402

CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": json.dumps({"city": "Paris", "days": 2})},
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
CONVERSATION = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21}'},
]


@pytest.fixture(scope="module")
def engine():
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny"))))
    yield eng
    eng.shutdown()


def test_prepare_messages_parses_arguments_without_mutating_input() -> None:
    prepared = prepare_messages(CONVERSATION)
    assert prepared[2]["content"] == ""
    assert prepared[2]["tool_calls"][0]["function"]["arguments"] == {"city": "Paris", "days": 2}
    assert isinstance(CONVERSATION[2]["tool_calls"][0]["function"]["arguments"], str)
    assert CONVERSATION[2]["content"] is None


def test_prepare_messages_keeps_unparseable_arguments() -> None:
    bad = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"type": "function", "function": {"name": "f", "arguments": "{not json"}}
            ],
        }
    ]
    assert prepare_messages(bad)[0]["tool_calls"][0]["function"]["arguments"] == "{not json"


def test_render_chat_with_tools_and_tool_calls(engine: ChatEngine) -> None:
    ids = engine.render_chat(CONVERSATION, TOOLS, {})
    text = engine.decode(ids)
    assert text.endswith("<|im_start|>assistant\n")
    assert "get_weather" in text and "Weather for a city" in text
    assert '"city": "Paris"' in text  # arguments rendered from the parsed mapping
    assert '{"temp": 21}' in text
    assert ids == engine.encode(text)


def test_render_chat_without_generation_prompt(engine: ChatEngine) -> None:
    messages = [{"role": "user", "content": "hi"}]
    with_prompt = engine.decode(engine.render_chat(messages, None, {}))
    without = engine.decode(engine.render_chat(messages, None, {}, add_generation_prompt=False))
    assert with_prompt.startswith(without) and len(with_prompt) > len(without)


def test_template_kwargs_reach_the_template(engine: ChatEngine) -> None:
    messages = [{"role": "user", "content": "hi"}]
    on = engine.decode(engine.render_chat(messages, None, {"enable_thinking": True}))
    off = engine.decode(engine.render_chat(messages, None, {"enable_thinking": False}))
    assert on != off


def test_encode_decode_roundtrip(engine: ChatEngine) -> None:
    text = "Hello, wörld! 日本語"
    assert engine.decode(engine.encode(text)) == text
