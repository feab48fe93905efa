"""Streamed tool-call arguments: every fragment sequence concatenates to the final arguments,
and no streamed prefix parses as complete JSON before the end."""

from __future__ import annotations

import json

import pytest

from engine.tool_args import parse_partial
from serving.argument_stream import ArgumentStream, dumps, stable_prefix

CASES = [
    {"city": "Paris", "days": 3},
    {"q": "a \"quoted\" \\ word", "n": -12.5, "ok": True, "none": None},
    {"nested": {"list": [1, 2, [3, {"x": "é中"}]], "empty": {}}, "tail": 1e-05},
    {},
    {"numbers": [10, 200, 3000], "s": "}]\"{["},
]


def _fragments(args: dict, step: int) -> list[str]:
    """Feed the canonical text in ``step``-character pieces, as a model writes it."""
    text = dumps(args)
    stream = ArgumentStream()
    out = []
    for end in range(1, len(text), step):
        piece = stream.update(parse_partial(text[:end]))
        if piece:
            out.append(piece)
    rest = stream.finish(text)
    assert rest is not None
    out.append(rest)
    return out


@pytest.mark.parametrize("args", CASES)
@pytest.mark.parametrize("step", [1, 3, 7])
def test_fragments_concatenate_to_the_final_arguments(args: dict, step: int) -> None:
    fragments = _fragments(args, step)
    assert "".join(fragments) == dumps(args)
    sent = ""
    for piece in fragments[:-1]:
        sent += piece
        with pytest.raises(json.JSONDecodeError):
            json.loads(sent)


def test_long_arguments_arrive_in_several_fragments() -> None:
    args = {"text": "word " * 20, "count": 12345}
    assert len(_fragments(args, 2)) > 5


def test_model_spacing_differs_from_canonical_text() -> None:
    """The model writes its own spacing; fragments still build the canonical text."""
    raw = '{"a":1,"b" :  "xy z","c":[true,false]}'
    stream, out = ArgumentStream(), []
    for end in range(1, len(raw)):
        out.append(stream.update(parse_partial(raw[:end])))
    final = dumps(json.loads(raw))
    out.append(stream.finish(final) or "")
    assert "".join(out) == final


def test_numbers_and_strings_are_held_back() -> None:
    assert stable_prefix({"a": 12}) == '{"a": '
    assert stable_prefix({"a": "xy"}) == '{"a": "xy'
    assert stable_prefix({"a": [1, 2]}) == '{"a": [1, '
    assert stable_prefix({}) == "{"


def test_a_sent_prefix_that_the_end_contradicts_is_refused() -> None:
    stream = ArgumentStream()
    assert stream.update({"a": "xy"}) == '{"a": "xy'
    assert stream.finish('{"b": 1}') is None
