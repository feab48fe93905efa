"""Reasoning in the Responses API, on the `tiny-think` model of test_compat_reasoning (its
template opens `<think>` and its weights make `</think>` likely): a `reasoning` output item
before the message, reasoning text streamed as `response.reasoning_text.delta` events,
`reasoning_tokens` in usage, and `reasoning.effort: none` turning thinking off."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import LiveServer
from tests.test_compat_reasoning import build_think_model

pytestmark = pytest.mark.slow

FORMAT = {"format": {"type": "json_schema", "name": "rain", "strict": True, "schema": {
    "type": "object", "properties": {"raining": {"type": "boolean"}},
    "required": ["raining"], "additionalProperties": False}}}


@pytest.fixture(scope="module")
def think(live_server: Callable[..., LiveServer],
          tmp_path_factory: pytest.TempPathFactory) -> Any:
    model = build_think_model(tmp_path_factory.mktemp("models") / "tiny-think")
    return live_server(model=model).openai()


def ask(client: Any, **kw: Any) -> Any:
    body: dict[str, Any] = {"model": "tiny-think", "input": "Is it raining?", "text": FORMAT,
                            "max_output_tokens": 300, "temperature": 1.0,
                            "extra_body": {"seed": 2}}
    return client.responses.create(**{**body, **kw})


def test_reasoning_item_usage_and_stream(think: Any) -> None:
    whole = ask(think)
    assert whole.status == "completed", whole
    kinds = [item.type for item in whole.output]
    assert kinds == ["reasoning", "message"], kinds
    reasoning = whole.output[0]
    assert reasoning.content[0].type == "reasoning_text" and reasoning.content[0].text
    assert reasoning.summary == []
    assert isinstance(json.loads(whole.output_text)["raining"], bool)
    details = whole.usage.output_tokens_details
    assert 0 < details.reasoning_tokens < whole.usage.output_tokens

    events = list(ask(think, stream=True))
    types = [e.type for e in events]
    first_text = types.index("response.output_text.delta")
    assert "response.reasoning_text.delta" in types[:first_text]
    thought = "".join(e.delta for e in events if e.type == "response.reasoning_text.delta")
    assert thought == reasoning.content[0].text
    final = events[-1].response
    assert [i.model_dump(exclude={"id"}) for i in final.output] == \
        [i.model_dump(exclude={"id"}) for i in whole.output]

    follow = think.responses.create(model="tiny-think", previous_response_id=whole.id,
                                    input="And tomorrow?", text=FORMAT, max_output_tokens=300)
    assert follow.status == "completed"


def test_effort_none_turns_thinking_off(think: Any) -> None:
    off = ask(think, reasoning={"effort": "none"})
    assert [item.type for item in off.output] == ["message"]
    assert off.usage.output_tokens_details.reasoning_tokens == 0
    on = ask(think, reasoning={"effort": "high"})
    assert on.output[0].type == "reasoning"
    assert off.usage.input_tokens > on.usage.input_tokens  # the closed <think> block
