"""The generation driver (serving.driver) over scripted engine events: typed events in order,
the final event's facts, the one catch-all after the 200, heartbeats, and collect()."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from afm.errors import ApiError
from engine.types import GenerationRequest, SamplingParams
from serving.driver import (
    Failed,
    Final,
    Generation,
    Start,
    Step,
    collect,
    encode,
    with_heartbeat,
)
from serving.output_parser import OutputProcessor
from tests.scripted import ScriptedEngine, replay, script


def request(prompt: int = 3) -> GenerationRequest:
    return GenerationRequest("req_test", list(range(prompt)), SamplingParams())


async def events_of(events: list[Any], parser: OutputProcessor | None = None) -> list[Any]:
    engine = ScriptedEngine()
    engine.scripts.append(events)
    generation = await Generation.open(engine, request(), 1.0, parser)
    try:
        return [e async for e in generation.events()]
    finally:
        await generation.aclose()


async def test_events_are_start_steps_then_final() -> None:
    got = await events_of(script("Hel", "lo", finish="length", text_exact=False))
    assert got[0] == Start(3)
    assert [e.text for e in got if isinstance(e, Step)] == ["Hel", "lo"]
    assert [e.token_ids for e in got if isinstance(e, Step)] == [[1000], [1001]]
    final = got[-1]
    assert isinstance(final, Final) and len(got) == 4
    assert (final.finish_reason, final.text_exact, final.stats.completion_tokens) == (
        "length", False, 2)


async def test_final_carries_the_engines_stop_string() -> None:
    final = (await events_of(script("a", stop_sequence="END", text_exact=False)))[-1]
    assert (final.finish_reason, final.stop_sequence, final.text_exact) == (
        "stop", "END", False)


async def test_an_engine_error_becomes_failed_after_its_output() -> None:
    got = await events_of(script("partial", finish="error", error="boom"))
    assert isinstance(got[1], Step) and got[1].text == "partial"
    assert isinstance(got[-1], Failed) and got[-1].message == "boom"


async def test_parser_deltas_include_the_flush_on_the_last_step() -> None:
    parser = OutputProcessor("hermes", None, parse_tools=False)
    got = await events_of(script("plain ", "text"), parser)
    content = "".join(d.content or "" for e in got if isinstance(e, Step) for d in e.deltas)
    assert content == "plain text"


async def test_an_empty_last_event_adds_no_step() -> None:
    events = script("x", "")
    events[-1].token_ids = []
    got = await events_of(events)
    assert [type(e) for e in got] == [Start, Step, Final]


async def test_busy_engine_is_a_503_at_open() -> None:
    engine = ScriptedEngine()
    engine.scripts.append("busy")
    with pytest.raises(ApiError) as caught:
        await Generation.open(engine, request(), 2.0)
    assert (caught.value.status, caught.value.type) == (503, "server_busy")


class Recorder:
    """An encoder that writes down what it was handed."""

    def __init__(self, fail_on_step: bool = False) -> None:
        self.fail_on_step = fail_on_step

    def start(self, event: Start) -> list[str]:
        return [f"start:{event.prompt_tokens}"]

    def step(self, event: Step) -> list[str]:
        if self.fail_on_step:
            raise RuntimeError("encoder bug")
        return [f"step:{event.text}"]

    async def final(self, event: Final) -> list[str]:
        return [f"final:{event.finish_reason}"]

    async def failed(self, event: Failed) -> list[str]:
        return [f"failed:{event.message}"]

    def crashed(self, exc: Exception) -> list[str]:
        return [f"crashed:{exc}"]

    def ping(self) -> list[str]:
        return ["ping"]


async def encoded(events: list[Any], encoder: Recorder) -> list[str]:
    engine = ScriptedEngine()
    engine.scripts.append(events)
    generation = await Generation.open(engine, request(), 1.0)
    return [item async for item in encode(generation, encoder, "req_test")]


async def test_encode_hands_each_event_to_its_hook() -> None:
    assert await encoded(script("a", "b"), Recorder()) == [
        "start:3", "step:a", "step:b", "final:stop"]
    assert await encoded(script("a", finish="error", error="x"), Recorder()) == [
        "start:3", "step:a", "failed:x"]


async def test_an_error_after_the_200_is_the_encoders_crash_event() -> None:
    assert await encoded(script("a", "b"), Recorder(fail_on_step=True)) == [
        "start:3", "crashed:encoder bug"]


async def test_encode_closes_the_engine_stream() -> None:
    closed = []

    class Engine(ScriptedEngine):
        async def generate(self, request: GenerationRequest):  # type: ignore[override]
            try:
                for event in script("a", "b", "c"):
                    yield event
            finally:
                closed.append(True)

    generation = await Generation.open(Engine(), request(), 1.0)
    stream = encode(generation, Recorder(), "req_test")
    assert await anext(stream) == "start:3"
    await stream.aclose()
    assert closed == [True]


async def test_pings_fill_quiet_stretches() -> None:
    """`with_heartbeat` yields None (a ping) for each quiet stretch and closes what it reads
    (moved here from test_compat_messages: it needs no server)."""
    closed = []

    async def slow() -> Any:
        try:
            yield "a"
            await asyncio.sleep(0.35)
            yield "b"
            await asyncio.sleep(60)
            yield "never"
        finally:
            closed.append(True)

    source = slow()
    got = []
    pinged = with_heartbeat(source, 0.1)  # type: ignore[arg-type]
    async for item in pinged:
        got.append(item)
        if item is None and "b" in got:  # quiet again, a read of `source` pending: leave
            break
    assert got[0] == "a" and got[-2:] == ["b", None] and 2 <= got.count(None) <= 5
    assert set(got[1:-2]) == {None}
    await pinged.aclose()  # cancels the pending read, which closes the source
    assert closed == [True]
    assert [e async for e in with_heartbeat(replay([1, 2]), None)] == [1, 2]  # type: ignore


async def test_collect_gathers_text_logprobs_and_tokens() -> None:
    engine = ScriptedEngine()
    engine.scripts.append(script("one ", "two", logprobs=True, finish="length"))
    done = await collect(engine, request(), 1.0)
    assert (done.text, done.token_ids, done.finish_reason) == ("one two", [1000, 1001],
                                                               "length")
    assert [lp.token for lp in done.logprobs] == ["one ", "two"]


async def test_collect_raises_500_on_an_engine_error() -> None:
    engine = ScriptedEngine()
    engine.scripts.append(script("a", finish="error", error="kaput"))
    with pytest.raises(ApiError) as caught:
        await collect(engine, request(), 1.0)
    assert caught.value.status == 500 and "kaput" in caught.value.message
