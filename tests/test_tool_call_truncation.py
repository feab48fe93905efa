"""Output cut by the token limit never leaks call markup, in any tool format, streamed or not.

Each format's call is tokenized with that format's test-model tokenizer and cut after every token
from the first on; the tokens go through the engine's detokenizer one by one into the output
parser, which is then flushed as truncated. Before the call's name is complete the result is no
content and no call; from then on it is that call with the arguments read so far, and the
streamed deltas always build exactly the final output.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.blas import preload_fast_blas

preload_fast_blas()

from mlx_lm.utils import load_tokenizer  # noqa: E402

from engine.detokenizer import IncrementalDetokenizer, TokenTable  # noqa: E402
from engine.reasoning import THINK_END, THINK_START  # noqa: E402
from engine.tool_formats import FORMATS, TOOL_FORMATS  # noqa: E402
from modelbuilder import ensure_model  # noqa: E402
from serving.output_parser import OutputProcessor  # noqa: E402

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]
ARGS = {"city": "Paris", "days": 3}
MODELS = {"hermes": "tiny", "qwen3_xml": "tiny-qwen3-xml", "llama3_json": "tiny-llama3",
          "mistral": "tiny-mistral"}
CALLS = {
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}'
              "\n</tool_call>",
    "qwen3_xml": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
                 "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
    "llama3_json": '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris", '
                   '"days": 3}}',
    "mistral": '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]',
}
BARE = {"llama3_json": '{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}'}
MARKUP = ("<", "[TOOL", "{", THINK_START, THINK_END)


@pytest.fixture(scope="module", params=sorted(MODELS))
def fmt_table(request: pytest.FixtureRequest) -> tuple[str, Any, TokenTable]:
    tokenizer = load_tokenizer(ensure_model(MODELS[request.param]))
    return request.param, tokenizer, TokenTable(tokenizer)


def _pieces(table: TokenTable, ids: list[int]) -> list[str]:
    """The text deltas the engine emits for ``ids``, one per token."""
    detok = IncrementalDetokenizer(table)
    pieces = [detok.add(i) for i in ids]
    pieces[-1] += detok.flush()
    return pieces


def _run(fmt: str, pieces: list[str], truncated: bool = True) -> tuple[list, Any, Any]:
    """Stream ``pieces`` (then flush); also parse their text fed whole. -> deltas, both finals."""
    proc = OutputProcessor(fmt, TOOLS)
    deltas = [d for p in pieces for d in proc.feed(p)] + proc.flush(truncated=truncated)
    whole = OutputProcessor(fmt, TOOLS)
    whole.feed("".join(pieces))
    return deltas, proc.finish(), whole.finish(truncated=truncated)


def _check_cut(fmt: str, deltas: list, final: Any, whole: Any, text: str,
               lead: str | None) -> bool:
    """Assert one cut's invariants; True when it ended as a call."""
    content = "".join(d.content for d in deltas if d.content)
    assert content == (final.content or "") == (whole.content or ""), text
    assert content == (lead or ""), f"{fmt}: cut at {text!r} leaked {content!r}"
    assert not any(m in content for m in MARKUP)
    assert not any(d.reasoning_content for d in deltas)
    calls = [d.tool_call for d in deltas if d.tool_call]
    got = [(c.name, c.arguments_json) for c in final.tool_calls]
    assert got == [(c.name, c.arguments_json) for c in whole.tool_calls], text
    if not got:
        assert calls == [] and final.content == (lead if lead else ""), text
        return False
    assert len(got) == 1 and got[0][0] == "get_weather"
    args = json.loads(got[0][1])
    assert set(args) <= set(ARGS) and all(str(ARGS[k]).startswith(str(v))
                                          for k, v in args.items()), (text, args)
    assert calls[0].name == "get_weather" and calls[0].id == final.tool_calls[0].id
    assert "".join(c.arguments for c in calls) == got[0][1]
    return True


@pytest.mark.parametrize("lead", [None, "Let me check."])
def test_a_call_cut_after_any_token_leaks_no_markup(fmt_table: tuple, lead: str | None) -> None:
    fmt, tokenizer, table = fmt_table
    text = (f"{lead} " if lead else "") + CALLS[fmt]
    ids = tokenizer.encode(text, add_special_tokens=False)
    pieces = _pieces(table, ids)
    assert "".join(pieces) == text
    name_end = text.index("get_weather") + len("get_weather")
    seen_call = False
    for n in range(1, len(ids) + 1):
        cut = "".join(pieces[:n])
        deltas, final, whole = _run(fmt, pieces[:n])
        if lead and len(cut) < len(lead):
            continue  # cut inside the lead text: plain content
        is_call = _check_cut(fmt, deltas, final, whole, cut, lead)
        if len(cut) < name_end:
            assert not is_call, cut
        seen_call = seen_call or is_call
        assert is_call == seen_call, f"the call vanished at {cut!r}"
    assert seen_call
    assert json.loads(final.tool_calls[0].arguments_json) == ARGS


def test_a_bare_llama3_call_cut_after_any_token_leaks_no_markup() -> None:
    tokenizer = load_tokenizer(ensure_model(MODELS["llama3_json"]))
    table = TokenTable(tokenizer)
    text = BARE["llama3_json"]
    ids = tokenizer.encode(text, add_special_tokens=False)
    pieces = _pieces(table, ids)
    for n in range(1, len(ids) + 1):
        _check_cut("llama3_json", *_run("llama3_json", pieces[:n]), "".join(pieces[:n]), None)


@pytest.mark.parametrize("fmt", TOOL_FORMATS)
def test_a_partial_marker_at_the_limit_is_dropped(fmt: str) -> None:
    for marker in FORMATS[fmt].start_markers:
        for n in range(1, len(marker)):
            deltas, final, whole = _run(fmt, ["Done. ", marker[:n]])
            assert final.content == whole.content == "Done.", (marker[:n], final.content)
            assert "".join(d.content or "" for d in deltas) == "Done."


def test_a_partial_think_marker_at_the_limit_is_dropped() -> None:
    for n in range(1, len(THINK_START)):
        _, final, _ = _run("hermes", [THINK_START[:n]])
        assert final.content == "" and final.reasoning_content is None
    _, final, _ = _run("hermes", [THINK_START, "hmm", THINK_END[:4]])
    assert final.reasoning_content == "hmm" and final.content == ""


def test_without_the_limit_unfinished_text_stays_content() -> None:
    """A model that stopped by itself keeps what it wrote, markup included."""
    for fmt in TOOL_FORMATS:
        _, final, whole = _run(fmt, ["Done. ", FORMATS[fmt].start_markers[0]], truncated=False)
        assert final.content == whole.content == "Done. " + FORMATS[fmt].start_markers[0]
    _, final, _ = _run("llama3_json", ['{"answer": "4'], truncated=True)
    assert final.content == '{"answer": "4', "bare JSON that is no call stays content"


def test_every_format_has_a_truncation_case() -> None:
    assert set(CALLS) == set(MODELS) == set(TOOL_FORMATS)
