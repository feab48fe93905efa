"""Stop strings, incremental UTF-8 detokenisation, length cutoff and ignore_eos."""

from __future__ import annotations

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

from engine.chat_engine import ChatEngine  # noqa: E402
from engine.config import EngineConfig  # noqa: E402
from engine.detokenizer import IncrementalDetokenizer  # noqa: E402
from engine.stops import StopMatcher  # noqa: E402
from engine.types import GenerationEvent, GenerationRequest, SamplingParams  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402


@pytest.fixture(scope="module")
def engine():
    eng = ChatEngine(EngineConfig(model=str(ensure_model("tiny"))))
    yield eng
    eng.shutdown()


@pytest.fixture(scope="module")
def prompt(engine: ChatEngine) -> list[int]:
    return engine.render_chat([{"role": "user", "content": "Write a long poem."}], None, {})


async def run(engine: ChatEngine, prompt: list[int], **params) -> list[GenerationEvent]:
    params.setdefault("max_tokens", 40)
    params.setdefault("ignore_eos", True)
    req = GenerationRequest("s", prompt, SamplingParams(**params))
    return [ev async for ev in engine.generate(req)]


# ------------------------------------------------------------------ StopMatcher (pure text)


def feed_all(matcher: StopMatcher, pieces: list[str]) -> list[str]:
    out = [matcher.feed(p) for p in pieces]
    if not matcher.stopped:
        out.append(matcher.flush())
    return out


def test_stop_split_across_pieces_is_never_emitted() -> None:
    m = StopMatcher(("STOP",))
    out = feed_all(m, ["abc S", "T", "O", "P tail"])
    assert "".join(out) == "abc " and m.stopped
    assert out[0] == "abc "  # the "S" was held back


def test_held_text_released_when_match_breaks() -> None:
    m = StopMatcher(("</end>",))
    assert m.feed("x </e") == "x "
    assert m.feed("nx") == "</enx"
    assert m.flush() == "" and not m.stopped


def test_earliest_of_several_stops_wins() -> None:
    m = StopMatcher(("bb", "abc"))
    assert m.feed("xxabcbb") == "xx" and m.stopped


def test_flush_returns_held_prefix_at_end() -> None:
    m = StopMatcher(("stop",))
    assert m.feed("so st") == "so "
    assert m.flush() == "st"


def test_no_stops_passes_through() -> None:
    m = StopMatcher(())
    assert m.feed("anything") == "anything" and m.flush() == ""


# ------------------------------------------------------------------ incremental detokenizer


@pytest.mark.parametrize("text", ["日本語😀", "🤖🎃 ünïcödé", "plain words"])
def test_multibyte_chars_split_across_tokens(engine: ChatEngine, text: str) -> None:
    ids = engine.encode(text)
    detok = IncrementalDetokenizer(engine.token_table)
    pieces = [detok.add(i) for i in ids] + [detok.flush()]
    assert all("\ufffd" not in p for p in pieces)
    assert "".join(pieces) == text == engine.decode(ids)


def test_special_tokens_add_no_text(engine: ChatEngine) -> None:
    detok = IncrementalDetokenizer(engine.token_table)
    ids = engine.encode("<|im_end|><think>hi</think>")
    assert "".join(detok.add(i) for i in ids) == "<think>hi</think>"


# ------------------------------------------------------------------ engine behaviour


async def test_stop_across_token_boundary_not_leaked(engine: ChatEngine, prompt: list[int]) -> None:
    base = await run(engine, prompt, temperature=1.0, seed=5)
    texts = [ev.text for ev in base]
    full = "".join(texts)
    # A stop string made of the tail of one token and the head of the next.
    bounds, pos = [], 0
    for t in texts[:-1]:
        pos += len(t)
        bounds.append(pos)
    cut = next(b for b in bounds[3:] if 0 < b < len(full) - 2 and len(full[b - 2 : b + 2]) == 4)
    stop = full[cut - 2 : cut + 2]
    expected = full[: full.find(stop)]

    events = await run(engine, prompt, temperature=1.0, seed=5, stop=(stop,))
    streamed = [ev.text for ev in events]
    assert "".join(streamed) == expected
    assert events[-1].finish_reason == "stop"
    assert all(stop not in s for s in streamed)
    # No emitted prefix of the output ever contains part of the stop beyond `expected`.
    acc = ""
    for s in streamed:
        acc += s
        assert expected.startswith(acc)


async def test_length_cutoff(engine: ChatEngine, prompt: list[int]) -> None:
    events = await run(engine, prompt, temperature=0, max_tokens=7)
    assert events[-1].finish_reason == "length"
    assert events[-1].stats is not None and events[-1].stats.completion_tokens == 7
    assert sum(len(ev.token_ids) for ev in events) == 7


async def test_eos_stops_unless_ignore_eos(engine: ChatEngine, prompt: list[int]) -> None:
    greedy = await run(engine, prompt, temperature=0, max_tokens=5)
    first = greedy[0].token_ids[0]
    saved = set(engine.eos_token_ids)
    engine.eos_token_ids = saved | {first}  # make the greedy first token an end-of-sequence token
    try:
        stopped = await run(engine, prompt, temperature=0, max_tokens=5, ignore_eos=False)
        ignored = await run(engine, prompt, temperature=0, max_tokens=5, ignore_eos=True)
    finally:
        engine.eos_token_ids = saved
    assert stopped[-1].finish_reason == "stop"
    assert [t for ev in stopped for t in ev.token_ids] == [first]
    assert "".join(ev.text for ev in stopped) == ""  # the eos token adds no text
    assert ignored[-1].finish_reason == "length"
    assert sum(len(ev.token_ids) for ev in ignored) == 5
