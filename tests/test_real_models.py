"""The real-model tier: packaged real weights (GGUF files fetched by tools/setup.sh) through a
real `afm serve`, with the official SDKs as clients.

SmolLM2-135M-Instruct (llama, ChatML, no tool markup, no think markup): correct short answers,
and json_schema / json_object / forced tool calls enforced by the grammar. Qwen2.5-Coder-0.5B
(qwen2, `<tool_call>` template, no think markup): strict structure on every surface (the
defect where a grammar waited for a `</think>` this model never writes), and `tool_choice:
auto` choosing the right function with the right arguments on chat completions, the Responses
API and the Messages API, streamed and not, plus a multi-turn tool conversation.

Everything is greedy (temperature 0) and short: the 0.5B model decodes ~20 tok/s here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from tests.conftest import LiveServer
from tests.real_weights import real_model

pytestmark = pytest.mark.slow

CITY = {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 24},
                   "country": {"type": "string", "maxLength": 24}},
    "required": ["city", "country"],
    "additionalProperties": False,
}
WEATHER_TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Get the current weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "get_time", "description": "Get the current local time in a time zone",
        "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}},
                       "required": ["timezone"]}}},
]
WEATHER_QUESTION = "What is the weather like in Paris right now?"


@pytest.fixture(scope="module")
def smol(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "2", model=real_model("smollm2"))


@pytest.fixture(scope="module")
def coder(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "2", model=real_model("qwen-0.5b"))


def chat(server: LiveServer, content: str, **kw: Any) -> Any:
    client: Any = server.openai()
    return client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": content}], temperature=0, **kw)


# ---------------------------------------------------------------- SmolLM2-135M


@pytest.mark.parametrize(("question", "answer"), [
    ("What is the capital of France?", "paris"),
    ("What is the capital of Japan?", "tokyo"),
])
def test_smollm2_answers_fixed_questions(smol: LiveServer, question: str, answer: str) -> None:
    reply = chat(smol, question, max_tokens=24)
    assert answer in (reply.choices[0].message.content or "").lower(), reply


def test_smollm2_json_schema_is_enforced(smol: LiveServer) -> None:
    reply = chat(smol, "What is the capital of France? Give the city and its country.",
                 max_tokens=64, response_format={
        "type": "json_schema", "json_schema": {"name": "city", "strict": True, "schema": CITY}})
    assert reply.choices[0].finish_reason == "stop", reply
    found = json.loads(reply.choices[0].message.content)
    jsonschema.validate(found, CITY)
    assert "paris" in found["city"].lower()


def test_smollm2_json_object_is_enforced(smol: LiveServer) -> None:
    reply = chat(smol, "Describe Paris in JSON.", max_tokens=48,
                 response_format={"type": "json_object"})
    if reply.choices[0].finish_reason == "stop":
        assert isinstance(json.loads(reply.choices[0].message.content), dict)
    else:  # cut by max_tokens: still JSON so far
        assert reply.choices[0].message.content.lstrip().startswith("{")


def test_smollm2_forced_tool_call(smol: LiveServer) -> None:
    reply = chat(smol, WEATHER_QUESTION, max_tokens=40, tools=WEATHER_TOOLS,
                 tool_choice={"type": "function", "function": {"name": "get_weather"}})
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls", choice
    call = choice.message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert isinstance(json.loads(call.function.arguments)["city"], str)


# ---------------------------------------------------------------- Qwen2.5-Coder-0.5B: structure


def test_coder_strict_json_schema_on_chat(coder: LiveServer) -> None:
    reply = chat(coder, "Name a city and its country.", max_tokens=40, response_format={
        "type": "json_schema", "json_schema": {"name": "city", "strict": True, "schema": CITY}})
    assert reply.choices[0].finish_reason == "stop"
    jsonschema.validate(json.loads(reply.choices[0].message.content), CITY)


def test_coder_strict_json_schema_on_responses(coder: LiveServer) -> None:
    client: Any = coder.openai()
    resp = client.responses.create(
        model="m", input="Name a city and its country.", max_output_tokens=40, temperature=0,
        text={"format": {"type": "json_schema", "name": "city", "strict": True,
                         "schema": CITY}})
    assert resp.status == "completed", resp
    jsonschema.validate(json.loads(resp.output_text), CITY)


def test_coder_forced_tool_on_messages(coder: LiveServer) -> None:
    import anthropic

    client = anthropic.Anthropic(base_url=coder.url, api_key="unused", max_retries=0)
    msg = client.messages.create(
        model="m", max_tokens=40, messages=[{"role": "user", "content": "Name a city."}],
        tools=[{"name": "record_city", "description": "Record a city and its country",
                "input_schema": CITY}],
        tool_choice={"type": "tool", "name": "record_city"},
        extra_body={"temperature": 0})
    assert msg.stop_reason == "tool_use", msg
    (block,) = [b for b in msg.content if b.type == "tool_use"]
    assert block.name == "record_city"
    jsonschema.validate(block.input, CITY)


# ---------------------------------------------------------------- Qwen2.5-Coder-0.5B: tool choice


def _chat_call(coder: LiveServer, stream: bool) -> tuple[str, dict[str, Any]]:
    client: Any = coder.openai()
    kw: dict[str, Any] = dict(model="m", temperature=0, max_tokens=48, tools=WEATHER_TOOLS,
                              messages=[{"role": "user", "content": WEATHER_QUESTION}])
    if not stream:
        choice = client.chat.completions.create(**kw).choices[0]
        assert choice.finish_reason == "tool_calls", choice
        call = choice.message.tool_calls[0].function
        return call.name, json.loads(call.arguments)
    name, args, finish = "", "", None
    for chunk in client.chat.completions.create(stream=True, **kw):
        for choice in chunk.choices:
            for tc in choice.delta.tool_calls or []:
                name += tc.function.name or ""
                args += tc.function.arguments or ""
            finish = choice.finish_reason or finish
    assert finish == "tool_calls"
    return name, json.loads(args)


def _responses_call(coder: LiveServer, stream: bool) -> tuple[str, dict[str, Any]]:
    client: Any = coder.openai()
    tools = [{"type": "function", **t["function"]} for t in WEATHER_TOOLS]
    kw: dict[str, Any] = dict(model="m", input=WEATHER_QUESTION, tools=tools, temperature=0,
                              max_output_tokens=48)
    if stream:
        final = None
        for event in client.responses.create(stream=True, **kw):
            if event.type == "response.completed":
                final = event.response
        assert final is not None
        resp = final
    else:
        resp = client.responses.create(**kw)
    (call,) = [item for item in resp.output if item.type == "function_call"]
    return call.name, json.loads(call.arguments)


def _messages_call(coder: LiveServer, stream: bool) -> tuple[str, dict[str, Any]]:
    import anthropic

    client = anthropic.Anthropic(base_url=coder.url, api_key="unused", max_retries=0)
    tools = [{"name": t["function"]["name"], "description": t["function"]["description"],
              "input_schema": t["function"]["parameters"]} for t in WEATHER_TOOLS]
    kw: dict[str, Any] = dict(model="m", max_tokens=48, tools=tools,
                              messages=[{"role": "user", "content": WEATHER_QUESTION}],
                              extra_body={"temperature": 0})
    if stream:
        with client.messages.stream(**kw) as s:
            msg = s.get_final_message()
    else:
        msg = client.messages.create(**kw)
    assert msg.stop_reason == "tool_use", msg
    (block,) = [b for b in msg.content if b.type == "tool_use"]
    return block.name, dict(block.input)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("surface", [_chat_call, _responses_call, _messages_call],
                         ids=["chat", "responses", "messages"])
def test_coder_chooses_the_right_tool(coder: LiveServer, surface: Any, stream: bool) -> None:
    name, args = surface(coder, stream)
    assert name == "get_weather"
    assert "paris" in args["city"].lower()


def test_coder_multi_turn_tool_conversation(coder: LiveServer) -> None:
    client: Any = coder.openai()
    messages: list[dict[str, Any]] = [{"role": "user", "content": WEATHER_QUESTION}]
    first = client.chat.completions.create(model="m", messages=messages, tools=WEATHER_TOOLS,
                                           temperature=0, max_tokens=48).choices[0]
    assert first.finish_reason == "tool_calls"
    call = first.message.tool_calls[0]
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call.id, "type": "function",
             "function": {"name": call.function.name, "arguments": call.function.arguments}}]},
        {"role": "tool", "tool_call_id": call.id,
         "content": json.dumps({"city": "Paris", "temperature_c": 21, "sky": "sunny"})},
    ]
    # the answer turn: the tools stay declared (the template renders them), none may be called
    # (the 0.5B model otherwise repeats its call instead of answering)
    second = client.chat.completions.create(model="m", messages=messages, tools=WEATHER_TOOLS,
                                            tool_choice="none", temperature=0,
                                            max_tokens=40).choices[0]
    assert second.finish_reason == "stop", second
    text = second.message.content or ""
    assert "21" in text or "sunny" in text.lower(), text
