"""The surfaces' stream encoders (chat, completions, messages) over typed driver events."""

from __future__ import annotations

from engine.types import GenerationStats, TokenLogprob
from serving.chat import ChunkEncoder
from serving.completions import CompletionEncoder
from serving.driver import Failed, Final, Start, Step
from serving.messages import stop_reason
from serving.messages_stream import MessageEncoder, _Blocks
from serving.output_parser import Delta, ToolCallDelta

STATS = GenerationStats(prompt_tokens=5, cached_tokens=2, completion_tokens=3)
HEADER = {"created": 1, "model": "m", "system_fingerprint": "fp"}


def lp(token: str) -> TokenLogprob:
    return TokenLogprob(token, -1.0, list(token.encode()))


def step(text: str = "", *deltas: Delta, logprobs: list[TokenLogprob] | None = None) -> Step:
    return Step(text, list(deltas), logprobs or [], [1])


def choice(chunk: dict) -> dict:
    return chunk["choices"][0]


# ---------------------------------------------------------------- chat
async def test_chat_chunks_role_deltas_finish_usage() -> None:
    enc = ChunkEncoder(HEADER, logprobs=False)
    out = [*enc.start(Start(5)), *enc.step(step("Hi", Delta(content="Hi"))),
           *await enc.final(Final("stop", STATS))]
    assert choice(out[0])["delta"] == {"role": "assistant", "content": None}
    assert choice(out[1])["delta"] == {"content": "Hi"} and choice(out[1])["logprobs"] is None
    assert choice(out[2])["delta"] == {} and choice(out[2])["finish_reason"] == "stop"
    assert out[3]["choices"] == [] and out[3]["usage"]["prompt_tokens"] == 5
    assert {c["id"] for c in out} == {out[0]["id"]} and out[0]["object"] == "chat.completion.chunk"


async def test_chat_empty_answer_ends_with_empty_content() -> None:
    enc = ChunkEncoder(HEADER, logprobs=False, with_usage=False)
    (finish,) = await enc.final(Final("length", STATS))
    assert choice(finish)["delta"] == {"content": ""}
    assert choice(finish)["finish_reason"] == "length"


async def test_chat_tool_call_turn_finishes_with_tool_calls() -> None:
    enc = ChunkEncoder(HEADER, logprobs=False, with_usage=False)
    call = Delta(tool_call=ToolCallDelta(0, "call_1", "f", '{"a"'))
    (chunk,) = enc.step(step("x", call))
    assert choice(chunk)["delta"]["tool_calls"] == [
        {"index": 0, "id": "call_1", "type": "function",
         "function": {"name": "f", "arguments": '{"a"'}}]
    (more,) = enc.step(step("y", Delta(tool_call=ToolCallDelta(0, arguments=": 1}"))))
    assert choice(more)["delta"]["tool_calls"] == [{"index": 0,
                                                    "function": {"arguments": ": 1}"}}]
    (finish,) = await enc.final(Final("stop", STATS))
    assert choice(finish)["finish_reason"] == "tool_calls" and choice(finish)["delta"] == {}


async def test_chat_logprobs_ride_on_the_first_delta_or_alone() -> None:
    enc = ChunkEncoder(HEADER, logprobs=True, with_usage=False)
    first, second = enc.step(step("ab", Delta(content="a"), Delta(content="b"),
                                  logprobs=[lp("ab")]))
    assert [e["token"] for e in choice(first)["logprobs"]["content"]] == ["ab"]
    assert choice(second)["logprobs"] == {"content": []}
    (alone,) = enc.step(step("", logprobs=[lp("<")]))
    assert choice(alone)["delta"] == {} and choice(alone)["logprobs"]["content"][0]["token"] == "<"
    assert enc.step(step("")) == []


async def test_chat_engine_failure_is_an_error_chunk_then_usage() -> None:
    enc = ChunkEncoder(HEADER, logprobs=False, profile=lambda s: {"n": s.prompt_tokens})
    error, use, profile = await enc.failed(Failed("boom", STATS))
    assert choice(error)["finish_reason"] == "error"
    assert choice(error)["delta"] == {"content": "[error] boom"}
    assert error["error"]["message"] == "Generation failed: boom"
    assert "usage" in use and profile["afm_profile"] == {"n": 5}
    (crash,) = enc.crashed(RuntimeError("bug"))
    assert choice(crash)["delta"] == {"content": "[error] internal error"}
    assert crash["error"]["message"] == "bug" and enc.ping() == []


# ---------------------------------------------------------------- completions
async def test_completion_chunks_carry_text_and_column_logprobs() -> None:
    enc = CompletionEncoder({"id": "cmpl-1"}, logprobs=True)
    assert enc.start(Start(5)) == []
    (a,) = enc.step(step("ab", logprobs=[lp("ab")]))
    (b,) = enc.step(step("c", logprobs=[lp("c")]))
    assert choice(a)["text"] == "ab" and choice(b)["logprobs"]["text_offset"] == [2]
    assert enc.step(step("")) == []
    finish, use = await enc.final(Final("length", STATS))
    assert (choice(finish)["text"], choice(finish)["finish_reason"]) == ("", "length")
    assert use["usage"]["completion_tokens"] == 3


async def test_completion_failure_and_crash() -> None:
    enc = CompletionEncoder({"id": "cmpl-1"}, logprobs=False, with_usage=False)
    (error,) = await enc.failed(Failed("boom", STATS))
    assert choice(error)["text"] == "[error] boom" and error["error"]["message"] == "boom"
    (crash,) = enc.crashed(ValueError("bug"))
    assert choice(crash)["finish_reason"] == "error" and crash["error"]["message"] == "bug"


# ---------------------------------------------------------------- messages
def message_encoder(omit: bool = False) -> MessageEncoder:
    head = {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
            "model": "m", "stop_reason": None, "stop_sequence": None, "usage": {}}
    return MessageEncoder(head, _Blocks(b"k" * 32, omit))


def test_stop_reason_from_the_final_event() -> None:
    assert stop_reason(Final("stop", STATS, "END"), False) == ("stop_sequence", "END")
    assert stop_reason(Final("stop", STATS), False) == ("end_turn", None)
    assert stop_reason(Final("stop", STATS, "END"), True) == ("tool_use", None)
    assert stop_reason(Final("length", STATS), True) == ("max_tokens", None)
    assert stop_reason(Final("cancelled", STATS), False) == ("end_turn", None)


async def test_message_events_blocks_and_stop_sequence() -> None:
    enc = message_encoder()
    start, ping = enc.start(Start(9))
    assert start["type"] == "message_start" and start["message"]["usage"]["input_tokens"] == 9
    assert list(start["message"])[-1] == "usage" and ping == {"type": "ping"}
    events = enc.step(step("", Delta(reasoning_content="hmm"), Delta(content="Hi")))
    kinds = [e["type"] for e in events]
    assert kinds == ["content_block_start", "content_block_delta", "content_block_delta",
                     "content_block_stop", "content_block_start", "content_block_delta"]
    assert events[2]["delta"]["type"] == "signature_delta"
    *closing, delta, stop = await enc.final(Final("stop", STATS, "END"))
    assert [e["type"] for e in closing] == ["content_block_stop"]
    assert delta["delta"] == {"stop_reason": "stop_sequence", "stop_sequence": "END"}
    assert delta["usage"] == {"input_tokens": 3, "output_tokens": 3,
                              "cache_creation_input_tokens": 0, "cache_read_input_tokens": 2}
    assert stop == {"type": "message_stop"}


async def test_message_tool_use_and_omitted_thinking() -> None:
    enc = message_encoder(omit=True)
    events = enc.step(step("", Delta(reasoning_content="secret"),
                           Delta(tool_call=ToolCallDelta(0, "call_7", "f", "{}"))))
    assert all(e["delta"]["type"] != "thinking_delta" for e in events
               if e["type"] == "content_block_delta")
    use = [e for e in events if e["type"] == "content_block_start"][-1]["content_block"]
    assert use == {"type": "tool_use", "id": "toolu_7", "name": "f", "input": {}}
    delta = (await enc.final(Final("stop", STATS)))[-2]
    assert delta["delta"]["stop_reason"] == "tool_use"


async def test_message_failure_crash_and_ping() -> None:
    enc = message_encoder()
    (error,) = await enc.failed(Failed("boom", STATS))
    assert error["type"] == "error" and error["error"] == {
        "type": "api_error", "message": "Generation failed: boom"}
    (crash,) = enc.crashed(RuntimeError("x"))
    assert crash["error"]["message"] == "Internal server error"
    assert enc.ping() == [{"type": "ping"}]
