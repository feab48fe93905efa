"""Responses API against a real `afm serve`, through the official `openai` SDK: create with
string and item-list input, streamed events equal to the whole response for the same seed,
`parse` with a bounded Pydantic model, a forced function tool and a second turn with its output
via `previous_response_id`, retrieve / input_items / delete, `store: false`, 400s naming
unsupported tools and parts, background responses and cancel, the prefix cache over a stored
conversation, and `/v1/responses` as a Batch API endpoint."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from typing import Annotated, Any

import httpx
import jsonschema
import openai
import pytest
from pydantic import BaseModel, Field

from tests.conftest import LiveServer
from tests.contract_support import component, schema_errors
from tests.waiting import eventually

pytestmark = pytest.mark.slow

WEATHER = {"type": "function", "name": "get_weather", "description": "Weather for a city",
           "strict": True,
           "parameters": {"type": "object", "additionalProperties": False, "required": ["city"],
                          "properties": {"city": {"type": "string", "maxLength": 12},
                                         "days": {"type": "integer", "minimum": 1,
                                                  "maximum": 7}}}}


@pytest.fixture(scope="module")
def resp_server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "4")


@pytest.fixture(scope="module")
def sdk(resp_server: LiveServer) -> openai.OpenAI:
    return resp_server.openai()  # type: ignore[return-value]


def contract_ok(data: dict[str, Any], schema: str = "ResponseObject") -> None:
    assert not schema_errors(component(schema), data), schema_errors(component(schema), data)


def create(sdk: openai.OpenAI, **kw: Any) -> Any:
    """``responses.create`` through the SDK, checking the raw JSON against the contract."""
    raw = sdk.responses.with_raw_response.create(**kw)
    contract_ok(raw.http_response.json())
    return raw.parse()


def raw_events(server: LiveServer, body: dict[str, Any]) -> list[dict[str, Any]]:
    """A streamed response's events as sent (each checked against the contract)."""
    events = []
    with httpx.stream("POST", server.url + "/v1/responses", json={**body, "stream": True},
                      timeout=120) as reply:
        assert reply.status_code == 200, reply.read()
        name = None
        for line in reply.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: ") and line != "data: [DONE]":
                event = json.loads(line[6:])
                assert event["type"] == name
                contract_ok(event, "ResponseStreamEvent")
                events.append(event)
    return events


def without_ids(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items without the ids minted per response (and the SDK's own parsed copy)."""
    return [{k: v for k, v in item.items() if k not in ("id", "call_id", "parsed_arguments")}
            for item in items]


def dumped(response: Any) -> list[dict[str, Any]]:
    return [item.model_dump(mode="json", exclude_unset=True) for item in response.output]


def test_create_with_string_input_then_retrieve_items_and_delete(sdk: openai.OpenAI) -> None:
    r = create(sdk, model="afm-default", input="Name two colours.", instructions="Be brief.",
               max_output_tokens=12, metadata={"run": "1"}, extra_body={"seed": 3})
    assert r.id.startswith("resp_") and r.object == "response"
    assert r.status in ("completed", "incomplete")
    assert r.output and r.output[-1].type == "message"
    assert r.usage.input_tokens > 0 and 0 < r.usage.output_tokens <= 12
    assert r.usage.total_tokens == r.usage.input_tokens + r.usage.output_tokens
    assert r.instructions == "Be brief." and r.max_output_tokens == 12
    assert r.metadata == {"run": "1"} and r.store is True
    if r.status == "incomplete":
        assert r.incomplete_details.reason == "max_output_tokens"
    assert isinstance(r.output_text, str)

    again = sdk.responses.retrieve(r.id)
    assert again.model_dump() == r.model_dump()

    items = sdk.responses.input_items.list(r.id)
    assert [i.type for i in items.data] == ["message"]
    assert items.data[0].role == "user"
    assert items.data[0].content[0].text == "Name two colours."

    deleted = sdk.responses.delete(r.id)
    assert deleted is None or getattr(deleted, "deleted", True)
    with pytest.raises(openai.NotFoundError) as err:
        sdk.responses.retrieve(r.id)
    assert err.value.body["type"] == "not_found_error"  # type: ignore[index]


def test_item_list_input_and_input_items_pagination(sdk: openai.OpenAI) -> None:
    items: list[Any] = [
        {"type": "message", "role": "developer", "content": "Answer in one word."},
        {"role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Hello", "annotations": []}]},
        {"role": "user", "content": "Name a fruit."},
    ]
    r = create(sdk, model="afm-default", input=items, max_output_tokens=8, temperature=0)
    page = sdk.responses.input_items.list(r.id, order="asc", limit=2)
    assert [i.role for i in page.data] == ["developer", "user"] and page.has_more
    rest = sdk.responses.input_items.list(r.id, order="asc", after=page.data[-1].id)
    assert [i.role for i in rest.data] == ["assistant", "user"] and not rest.has_more
    newest = sdk.responses.input_items.list(r.id)  # desc by default
    assert [i.id for i in newest.data] == [i.id for i in [*page.data, *rest.data]][::-1]
    # the same conversation through chat completions gives the same greedy text
    chat = sdk.chat.completions.create(model="afm-default", max_tokens=8, temperature=0,
                                       messages=[{"role": "developer",
                                                  "content": "Answer in one word."},
                                                 {"role": "user", "content": "Hi"},
                                                 {"role": "assistant", "content": "Hello"},
                                                 {"role": "user", "content": "Name a fruit."}])
    assert r.output_text == (chat.choices[0].message.content or "")


def test_stream_events_accumulate_to_the_whole_response(sdk: openai.OpenAI,
                                                        resp_server: LiveServer) -> None:
    args: dict[str, Any] = {"model": "afm-default", "input": "Tell a story.",
                            "max_output_tokens": 24, "temperature": 0.9,
                            "extra_body": {"seed": 11}}
    whole = sdk.responses.create(**args)
    events = list(sdk.responses.create(stream=True, **args))
    numbers = [e.sequence_number for e in events]
    assert numbers == list(range(len(events)))
    types = [e.type for e in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == {"completed": "response.completed",
                         "incomplete": "response.incomplete"}[whole.status]
    raw = raw_events(resp_server, {k: v for k, v in args.items() if k != "extra_body"}
                     | args["extra_body"])
    assert [e["type"] for e in raw] == types
    done_items = [e.item.model_dump(mode="json", exclude_unset=True) for e in events
                  if e.type == "response.output_item.done"]
    final = events[-1].response
    assert without_ids(done_items) == without_ids(dumped(whole))
    assert without_ids(dumped(final)) == without_ids(dumped(whole))
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == whole.output_text
    assert final.usage.output_tokens == whole.usage.output_tokens
    assert sdk.responses.retrieve(final.id).output_text == whole.output_text
    # the SDK's own accumulator agrees, on a response that completes (a forced tool call)
    tool_args: dict[str, Any] = {"model": "afm-default", "input": "Weather?", "tools": [WEATHER],
                                 "tool_choice": "required", "max_output_tokens": 400,
                                 "temperature": 1.0, "extra_body": {"seed": 5}}
    whole_call = sdk.responses.create(**tool_args)
    with sdk.responses.stream(**tool_args) as stream:
        streamed = stream.get_final_response()
    assert without_ids(dumped(streamed)) == without_ids(dumped(whole_call))


class City(BaseModel):
    name: str = Field(max_length=16)
    population: int = Field(ge=0, le=10_000_000)
    tags: list[Annotated[str, Field(max_length=8)]] = Field(max_length=2)


def test_parse_with_a_bounded_pydantic_model(sdk: openai.OpenAI) -> None:
    # Thinking off: the tiny model's think block is unbounded text (it used to eat the budget);
    # the JSON itself is bounded by City's limits (under 100 tokens in 60 seeds tried).
    r = sdk.responses.parse(model="afm-default", input="Describe a city as JSON.",
                            text_format=City, max_output_tokens=200, temperature=1.0,
                            reasoning={"effort": "none"})
    assert r.status == "completed", r.output_text
    assert isinstance(r.output_parsed, City)


def test_json_object_completed_and_cut(sdk: openai.OpenAI) -> None:
    """`json_object` is unbounded, so the two outcomes are pinned by seed (random tiny weights):
    seed 10 closes the object at once, seed 0 is still inside a string at the budget."""
    def json_object(seed: int) -> Any:
        return sdk.responses.create(model="afm-default", input="Any JSON object.",
                                    text={"format": {"type": "json_object"}},
                                    reasoning={"effort": "none"}, max_output_tokens=64,
                                    temperature=1.0, extra_body={"seed": seed})
    done = json_object(10)
    assert done.status == "completed" and done.incomplete_details is None
    assert isinstance(json.loads(done.output_text), dict)
    cut = json_object(0)
    assert cut.status == "incomplete" and cut.incomplete_details.reason == "max_output_tokens"
    assert cut.usage.output_tokens == 64 and cut.output_text.startswith('{"')


def test_forced_function_call_then_its_output_as_the_next_turn(sdk: openai.OpenAI) -> None:
    # One call, thinking off: with parallel calls allowed a forced call may repeat until the
    # budget, and the think block is unbounded (both seen as `incomplete` flakes).
    r = create(sdk, model="afm-default", input="Weather in Paris?", tools=[WEATHER],
               tool_choice="required", parallel_tool_calls=False, reasoning={"effort": "none"},
               max_output_tokens=400, temperature=1.0)
    calls = [item for item in r.output if item.type == "function_call"]
    assert r.status == "completed" and len(calls) >= 1
    call = calls[0]
    assert call.name == "get_weather" and call.call_id and call.id.startswith("fc_")
    jsonschema.validate(json.loads(call.arguments), WEATHER["parameters"])

    named = sdk.responses.create(model="afm-default", input="Weather?", tools=[WEATHER],
                                 tool_choice={"type": "function", "name": "get_weather"},
                                 parallel_tool_calls=False, reasoning={"effort": "none"},
                                 max_output_tokens=400)
    assert [i.type for i in named.output if i.type == "function_call"] == ["function_call"]

    follow = create(
        sdk, model="afm-default", previous_response_id=r.id, tools=[WEATHER],
        max_output_tokens=16,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}])
    assert follow.previous_response_id == r.id and follow.status in ("completed", "incomplete")
    items = sdk.responses.input_items.list(follow.id).data
    assert [(i.type, i.call_id, i.output) for i in items] == [
        ("function_call_output", call.call_id, "sunny")]

    streamed = list(sdk.responses.create(model="afm-default", input="Weather in Paris?",
                                         tools=[WEATHER], tool_choice="required", stream=True,
                                         parallel_tool_calls=False, reasoning={"effort": "none"},
                                         max_output_tokens=400, temperature=1.0))
    deltas = "".join(e.delta for e in streamed
                     if e.type == "response.function_call_arguments.delta")
    done = [e for e in streamed if e.type == "response.function_call_arguments.done"]
    assert done and deltas.startswith(done[0].arguments)
    jsonschema.validate(json.loads(done[0].arguments), WEATHER["parameters"])


def test_store_false_unknown_ids_and_unsupported_inputs(sdk: openai.OpenAI,
                                                        resp_server: LiveServer) -> None:
    r = sdk.responses.create(model="afm-default", input="Hi", store=False, max_output_tokens=4)
    assert r.store is False
    for call in (lambda: sdk.responses.retrieve(r.id),
                 lambda: sdk.responses.input_items.list(r.id),
                 lambda: sdk.responses.delete("resp_unknown"),
                 lambda: sdk.responses.create(model="afm-default", input="Hi",
                                              previous_response_id=r.id)):
        with pytest.raises(openai.NotFoundError) as err:
            call()
        assert err.value.body["type"] == "not_found_error"  # type: ignore[index]
    for hosted in ({"type": "web_search"},
                   {"type": "code_interpreter", "container": {"type": "auto"}}):
        left_out = httpx.post(resp_server.url + "/v1/responses", timeout=30, json={
            "model": "afm-default", "input": "Hi", "tools": [hosted], "max_output_tokens": 2})
        assert left_out.status_code == 200, left_out.text
        assert f"({hosted['type']}) left out" in left_out.headers["x-afm-warnings"]
    bad = [({"tools": [{"type": "web_search"}], "tool_choice": {"type": "web_search"}},
            "web_search"),
           ({"tools": [{"type": "code_interpreter", "container": {"type": "auto"}}],
             "tool_choice": "required"}, "left out"),
           ({"input": [{"role": "user", "content": [
               {"type": "input_image", "image_url": "data:image/png;base64,AA=="}]}]},
            "input_image"),
           ({"input": [{"type": "input_file", "file_id": "file-1"}]}, "input_file"),
           ({"background": True, "store": False}, "background")]
    for extra, named in bad:
        body = {"model": "afm-default", "input": "Hi", **extra}
        reply = httpx.post(resp_server.url + "/v1/responses", json=body, timeout=30)
        assert reply.status_code == 400, reply.text
        assert named in reply.json()["error"]["message"], reply.text


def test_input_is_never_empty(resp_server: LiveServer) -> None:
    """The contract's minLength/minItems on `input` (OpenAI's envelope, the request id); an
    absent input needs `previous_response_id`."""
    for body, says in (({"input": []}, "[] should be non-empty - 'input'"),
                       ({"input": ""}, "'' should be non-empty - 'input'"),
                       ({}, "input is required without previous_response_id")):
        reply = httpx.post(resp_server.url + "/v1/responses", timeout=30,
                           json={"model": "afm-default", **body},
                           headers={"X-Request-ID": "req-input-rule"})
        assert reply.status_code == 400, reply.text
        error = reply.json()["error"]
        assert error["message"] == says and error["param"] == "input", error
        assert error["type"] == "invalid_request_error"
        assert error["request_id"] == reply.headers["x-request-id"] == "req-input-rule"


def test_background_response_completes_and_cancel_stops_one(sdk: openai.OpenAI) -> None:
    r = sdk.responses.create(model="afm-default", input="Hi", background=True,
                             max_output_tokens=8)
    assert r.status == "queued" and r.background is True
    def ended(response_id: str) -> Any:
        got = sdk.responses.retrieve(response_id)
        return got if got.status not in ("queued", "in_progress") else None

    r = eventually(lambda: ended(r.id), 60, "the background response ends", interval=0.1)
    assert r.status in ("completed", "incomplete") and r.output and r.usage.output_tokens > 0
    assert sdk.responses.cancel(r.id).status == r.status  # finished: returned as is

    long = sdk.responses.create(model="afm-default", input="Write a lot.", background=True,
                                max_output_tokens=3000, extra_body={"ignore_eos": True})
    cancelled = sdk.responses.cancel(long.id)
    assert cancelled.status == "cancelled"
    time.sleep(0.5)
    assert sdk.responses.retrieve(long.id).status == "cancelled"

    plain = sdk.responses.create(model="afm-default", input="Hi", max_output_tokens=4)
    with pytest.raises(openai.BadRequestError):
        sdk.responses.cancel(plain.id)


def test_follow_up_over_a_long_stored_conversation_reuses_the_prefix_cache(
        sdk: openai.OpenAI) -> None:
    words = " ".join(f"item{i} is number {i}." for i in range(150))
    first = sdk.responses.create(model="afm-default", input=f"Remember: {words}",
                                 max_output_tokens=16, temperature=0)
    assert first.usage.input_tokens >= 900
    second = sdk.responses.create(model="afm-default", previous_response_id=first.id,
                                  input="Which item is 7?", max_output_tokens=8, temperature=0)
    cached = second.usage.input_tokens_details.cached_tokens
    assert cached / second.usage.input_tokens >= 0.9, second.usage
    # the whole first turn (prompt and output) came from the cache: the continuation is
    # token-identical to what the model saw and produced
    assert cached >= first.usage.input_tokens + first.usage.output_tokens - 2, (
        first.usage, second.usage)
    third = sdk.responses.create(model="afm-default", previous_response_id=second.id,
                                 input="And item 9?", max_output_tokens=8, temperature=0)
    assert third.usage.input_tokens_details.cached_tokens >= (
        second.usage.input_tokens + second.usage.output_tokens - 2), third.usage


def test_responses_as_a_batch_endpoint(sdk: openai.OpenAI) -> None:
    lines = [{"custom_id": f"r{i}", "method": "POST", "url": "/v1/responses",
              "body": {"model": "afm-default", "input": f"Say {i}", "max_output_tokens": 6}}
             for i in range(3)]
    content = "\n".join(json.dumps(line) for line in lines).encode() + b"\n"
    file_id = sdk.files.create(file=("in.jsonl", io.BytesIO(content)), purpose="batch").id
    batch = sdk.batches.create(input_file_id=file_id, endpoint="/v1/responses",
                               completion_window="24h")
    def ended(batch_id: str) -> Any:
        got = sdk.batches.retrieve(batch_id)
        return got if got.status in ("completed", "failed") else None

    batch = eventually(lambda: ended(batch.id), 120, "the batch ends", interval=0.2)
    assert batch.status == "completed" and batch.request_counts.completed == 3, batch
    assert batch.output_file_id is not None
    out = [json.loads(line) for line in sdk.files.content(batch.output_file_id).text.splitlines()]
    assert sorted(o["custom_id"] for o in out) == ["r0", "r1", "r2"]
    for record in out:
        body = record["response"]["body"]
        contract_ok(body)
        assert body["object"] == "response" and body["status"] in ("completed", "incomplete")
        assert sdk.responses.retrieve(body["id"]).id == body["id"]


def test_truncation_auto_drops_the_oldest_items(resp_server: LiveServer) -> None:
    huge = " ".join(f"word{i}" for i in range(3000))  # past the tiny model's 4096-token window
    body = {"model": "afm-default", "max_output_tokens": 4,
            "input": [{"role": "user", "content": huge}, {"role": "user", "content": "Hi"}]}
    refused = httpx.post(resp_server.url + "/v1/responses", json=body, timeout=60)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "context_length_exceeded"
    kept = httpx.post(resp_server.url + "/v1/responses", json={**body, "truncation": "auto"},
                      timeout=120)
    assert kept.status_code == 200, kept.text
    assert kept.json()["truncation"] == "auto" and kept.json()["usage"]["input_tokens"] < 100
