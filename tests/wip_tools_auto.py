"""``tool_choice: "auto"`` choosing a real tool call, through a real `afm serve` and the SDK.

The random-weight models never choose a tool, so this file runs on ``tiny-tools``, a preset the
model builder fine-tunes (``modelbuilder/tool_training.py``) to answer "weather/time in <city>"
with hermes-format calls, "weather in <a> and in <b>" with two parallel calls, and anything else
with text. Nothing forces the call: the grammar of ``auto`` only checks a call once the model
itself has written ``<tool_call>``. Greedy decoding (temperature 0) keeps each answer fixed.

NOT COLLECTED YET (the file name lacks ``test_``): the current fine-tune (120 steps, 24
conversations) stops at loss ~1.4; the model does open ``<tool_call>`` by itself on the marker
questions, but never closes the city string, so every call ends at ``length``. Rename this file
to ``test_compat_tools_auto.py`` once ``modelbuilder/tool_training.py`` converges.
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
def tools_client(live_server: Callable[..., LiveServer]) -> Any:
    from modelbuilder import ensure_model

    return live_server(model=ensure_model("tiny-tools")).openai()


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
    r = ask(tools_client, "What is the weather in Paris?", tool_choice="none")
    assert not r.choices[0].message.tool_calls
    assert r.choices[0].finish_reason in ("stop", "length")
