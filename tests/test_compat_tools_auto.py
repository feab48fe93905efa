"""``tool_choice: "auto"`` choosing a real tool call, through a real `afm serve` and the official
SDKs, on all three surfaces (chat completions, Responses, Messages), plain and streamed.

The random-weight models never choose a tool, so this file runs on ``tiny-tools``, a preset the
model builder fine-tunes (``modelbuilder/tool_training.py``) to answer "weather/time in <city>"
with hermes-format calls, "weather in <a> and in <b>" with two parallel calls, and anything else
with text. Nothing forces the call: under ``auto`` the grammar only checks a call once the model
itself has written ``<tool_call>``. Greedy decoding (temperature 0) keeps each answer fixed. The
model reproduces the conversations it was trained on (the questions asked here are among them);
it does not generalise to other cities, and need not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState

from tests.conftest import LiveServer

pytestmark = pytest.mark.slow

CALL_ID = re.compile(r"^call_[A-Za-z0-9]{24}$")
NO_THINK: dict[str, Any] = {"chat_template_kwargs": {"enable_thinking": False}}


@pytest.fixture(scope="module")
def tools_server(live_server: Callable[..., LiveServer]) -> LiveServer:
    from modelbuilder import ensure_model

    return live_server(model=ensure_model("tiny-tools"))


@pytest.fixture(scope="module")
def tools_client(tools_server: LiveServer) -> Any:
    return tools_server.openai()


def ask(client: Any, question: str, stream: bool = False, **kw: Any) -> Any:
    """One turn with the trained tools; streamed turns come back accumulated by the SDK."""
    from modelbuilder.tool_training import TOOLS

    kw = {"model": "tiny-tools", "messages": [{"role": "user", "content": question}],
          "tools": TOOLS, "tool_choice": "auto", "temperature": 0, "max_tokens": 80,
          "extra_body": NO_THINK, **kw}
    if not stream:
        return client.chat.completions.create(**kw)
    state = ChatCompletionStreamState()
    chunks = list(client.chat.completions.create(stream=True, **kw))
    for chunk in chunks:
        state.handle_chunk(chunk)
    return state.current_completion_snapshot


def calls(completion: Any) -> list[tuple[str, dict[str, Any]]]:
    """The turn's calls as (name, arguments), after checking the OpenAI shape of each."""
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls", (choice.finish_reason, choice.message)
    assert choice.message.content is None
    out = []
    for call in choice.message.tool_calls:
        assert CALL_ID.match(call.id) and call.type == "function"
        out.append((call.function.name, json.loads(call.function.arguments)))
    return out


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("question, expected", [
    ("What is the weather in Paris?", [("get_weather", {"city": "Paris"})]),
    ("What time is it in Tokyo?", [("get_time", {"city": "Tokyo"})]),
])
def test_auto_calls_the_tool(tools_client: Any, stream: bool, question: str,
                             expected: list[tuple[str, dict[str, Any]]]) -> None:
    assert calls(ask(tools_client, question, stream=stream)) == expected


def test_streamed_call_accumulates_to_the_plain_one(tools_client: Any) -> None:
    plain = ask(tools_client, "What is the weather in Oslo?")
    streamed = ask(tools_client, "What is the weather in Oslo?", stream=True)
    assert calls(streamed) == calls(plain) == [("get_weather", {"city": "Oslo"})]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_auto_parallel_calls(tools_client: Any, stream: bool) -> None:
    r = ask(tools_client, "What is the weather in Rome and in Seoul?", stream=stream)
    assert calls(r) == [("get_weather", {"city": "Rome"}), ("get_weather", {"city": "Seoul"})]
    ids = [c.id for c in r.choices[0].message.tool_calls]
    assert len(set(ids)) == 2


def test_parallel_tool_calls_false_keeps_one(tools_client: Any) -> None:
    r = ask(tools_client, "What is the weather in Rome and in Seoul?",
            parallel_tool_calls=False)
    assert calls(r)[0] == ("get_weather", {"city": "Rome"})
    assert len(calls(r)) == 1


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_auto_answers_text_without_the_marker(tools_client: Any, stream: bool) -> None:
    from modelbuilder.tool_training import TEXT_REPLY

    r = ask(tools_client, "Tell me a story about the sea please.", stream=stream)
    choice = r.choices[0]
    assert choice.finish_reason == "stop" and not choice.message.tool_calls
    assert choice.message.content == TEXT_REPLY


def test_tool_choice_none_never_calls(tools_client: Any) -> None:
    """``none`` leaves the tools out of the prompt, so the model (trained with them in it) answers
    with text; greedy decoding ends it within the budget."""
    r = ask(tools_client, "What is the weather in Paris?", tool_choice="none")
    choice = r.choices[0]
    assert choice.message.tool_calls is None and choice.finish_reason == "stop"
    assert choice.message.content


def _responses_tools() -> list[dict[str, Any]]:
    from modelbuilder.tool_training import TOOLS

    return [{"type": "function", **t["function"]} for t in TOOLS]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_responses_auto_calls_in_parallel(tools_client: Any, stream: bool) -> None:
    """The Responses API renders the same prompt, so the same two calls come back as
    ``function_call`` items (the SDK's stream accumulator rebuilds the same response)."""
    kw: dict[str, Any] = {"model": "tiny-tools", "tools": _responses_tools(),
                          "input": "What is the weather in Rome and in Seoul?",
                          "tool_choice": "auto", "temperature": 0, "max_output_tokens": 80,
                          "reasoning": {"effort": "none"}}
    if stream:
        with tools_client.responses.stream(**kw) as events:
            r = events.get_final_response()
    else:
        r = tools_client.responses.create(**kw)
    assert r.status == "completed"
    items = [i for i in r.output if i.type == "function_call"]
    assert [(i.name, json.loads(i.arguments)) for i in items] == [
        ("get_weather", {"city": "Rome"}), ("get_weather", {"city": "Seoul"})]
    assert len({i.call_id for i in items}) == 2
    assert not [i for i in r.output if i.type == "message"]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_messages_auto_tool_use(tools_server: LiveServer, stream: bool) -> None:
    """Anthropic's Messages API with ``tool_choice: auto``: a ``tool_use`` block and
    ``stop_reason: tool_use`` (streamed: the SDK's accumulated message says the same)."""
    import anthropic

    from modelbuilder.tool_training import TOOLS

    client = anthropic.Anthropic(base_url=tools_server.url, api_key="unused", max_retries=0)
    kw: dict[str, Any] = {
        "model": "tiny-tools", "max_tokens": 80, "tool_choice": {"type": "auto"},
        "messages": [{"role": "user", "content": "What time is it in Tokyo?"}],
        "tools": [{"name": t["function"]["name"], "description": t["function"]["description"],
                   "input_schema": t["function"]["parameters"]} for t in TOOLS],
        "thinking": {"type": "disabled"}, "extra_body": {"temperature": 0}}
    if stream:
        with client.messages.stream(**kw) as events:
            m = events.get_final_message()
    else:
        m = client.messages.create(**kw)
    assert m.stop_reason == "tool_use"
    assert [(b.type, b.name, b.input) for b in m.content] == [
        ("tool_use", "get_time", {"city": "Tokyo"})]
    assert m.content[0].id.startswith("toolu_")
