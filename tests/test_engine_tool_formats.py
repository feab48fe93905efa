"""Tool-call format objects: one per format, and each one's parser, scanner and grammar agree.

For every registered format, the text its calls-only grammar accepts is the text its parser reads
back (whole, and streamed a few characters at a time), and its chat-template markers identify it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.detokenizer import VISIBLE_MARKERS
from engine.grammar import GrammarCompilerCache, build_constraint
from engine.tool_calls import TOOL_FORMATS, check_format, detect_tool_format, parse_tool_calls
from engine.tool_formats import FORMATS, ToolCallFormat, get_format
from modelbuilder import ensure_model
from serving.output_parser import OutputProcessor

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                       "days": {"type": "integer"}},
                       "required": ["city", "days"]}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}},
]
CALLS = [("get_weather", {"city": "Paris", "days": 3}), ("get_time", {"zone": "UTC"})]
MODELS = {"hermes": "tiny", "qwen3_xml": "tiny-qwen3-xml", "llama3_json": "tiny-llama3",
          "mistral": "tiny-mistral"}


def render(fmt: str, calls: list[tuple[str, dict]]) -> str:
    """Calls written the way the format's grammar writes them (compact JSON)."""
    def js(name: str, key: str, args: dict) -> str:
        return json.dumps({"name": name, key: args}, separators=(", ", ": "))

    if fmt == "hermes":
        return "\n".join(f"<tool_call>\n{js(n, 'arguments', a)}\n</tool_call>" for n, a in calls)
    if fmt == "qwen3_xml":
        return "\n".join(
            f"<tool_call>\n<function={n}>\n"
            + "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in a.items())
            + "</function>\n</tool_call>" for n, a in calls)
    if fmt == "llama3_json":
        return "<|python_tag|>" + "; ".join(js(n, "parameters", a) for n, a in calls)
    assert fmt == "mistral"
    return "[TOOL_CALLS][" + ", ".join(js(n, "arguments", a) for n, a in calls) + "]"


@pytest.fixture(scope="module")
def grammar_cache() -> GrammarCompilerCache:
    from transformers import AutoTokenizer

    path = ensure_model("tiny")
    vocab_size = json.loads((path / "config.json").read_text())["vocab_size"]
    return GrammarCompilerCache(AutoTokenizer.from_pretrained(path), vocab_size)


def test_one_registry_names_every_format() -> None:
    assert TOOL_FORMATS == tuple(FORMATS) == ("hermes", "qwen3_xml", "llama3_json", "mistral")
    for name, fmt in FORMATS.items():
        assert isinstance(fmt, ToolCallFormat) and fmt.name == name
        assert get_format(name) is fmt and check_format(name) == name
        assert set(fmt.marker_tokens) <= VISIBLE_MARKERS  # the detokenizer keeps them as text
    with pytest.raises(ValueError, match="unknown tool call format 'xml'; known: hermes"):
        get_format("xml")
    with pytest.raises(ValueError, match="unknown tool call format"):
        OutputProcessor("xml")


@pytest.mark.parametrize("fmt", TOOL_FORMATS)
def test_chat_template_markers_identify_the_format(fmt: str) -> None:
    from transformers import AutoTokenizer

    template = AutoTokenizer.from_pretrained(ensure_model(MODELS[fmt])).chat_template
    assert detect_tool_format(template) == fmt
    assert detect_tool_format(template, "llama") == fmt  # the template wins over the family


def test_model_family_decides_without_template_markers() -> None:
    assert detect_tool_format("{{ messages }}", "Mixtral") == "mistral"
    assert detect_tool_format("{{ messages }}", "llama") == "llama3_json"
    assert detect_tool_format(None, "qwen3") == "hermes"


@pytest.mark.parametrize("fmt", TOOL_FORMATS)
@pytest.mark.parametrize("parallel", [False, True])
def test_grammar_text_parses_back_to_the_calls(
    fmt: str, parallel: bool, grammar_cache: GrammarCompilerCache
) -> None:
    calls = CALLS if parallel else CALLS[:1]
    text = render(fmt, calls)
    con = build_constraint(grammar_cache, response_format=None, tools=TOOLS,
                           tool_choice="required", parallel_tool_calls=parallel,
                           tool_format=fmt, reasoning=False)
    assert con is not None
    assert con.matcher.accept_string(text), text
    assert con.matcher.is_completed()

    content, parsed = parse_tool_calls(text, fmt, TOOLS)
    assert content is None
    assert [(c.name, json.loads(c.arguments_json)) for c in parsed] == calls

    proc = OutputProcessor(fmt, TOOLS)
    for i in range(0, len(text), 3):
        proc.feed(text[i : i + 3])
    final = proc.finish()
    assert final.content is None
    assert [(c.name, json.loads(c.arguments_json)) for c in final.tool_calls] == calls


@pytest.mark.parametrize("fmt", TOOL_FORMATS)
def test_auto_grammar_allows_text_then_a_call(
    fmt: str, grammar_cache: GrammarCompilerCache
) -> None:
    text = "Let me check. " + render(fmt, CALLS[:1])
    con = build_constraint(grammar_cache, response_format=None, tools=TOOLS, tool_choice="auto",
                           parallel_tool_calls=False, tool_format=fmt, reasoning=False)
    assert con is not None and con.matcher.accept_string(text), text
    content, parsed = parse_tool_calls(text, fmt, TOOLS)
    assert content == "Let me check." and [c.name for c in parsed] == ["get_weather"]


@pytest.mark.parametrize("fmt", TOOL_FORMATS)
def test_scanning_finds_block_start_end_and_partial_markers(fmt: str) -> None:
    form = get_format(fmt)
    call = render(fmt, CALLS[:1])
    text = "Sure. " + call + " done"
    assert form.find_start(text) == len("Sure. ")
    assert form.find_start(text, len("Sure. ") + 1) in (-1, len("Sure. ") + call.find("<function="))
    end = form.block_end(text[len("Sure. "):])
    if fmt == "llama3_json":
        assert end is None  # no closing marker: the block runs to the end of the output
    else:
        assert end == len(call)
    assert form.block_end(call[:-2]) is None  # incomplete
    marker = form.start_markers[0]
    assert form.partial_marker_len("text " + marker[:3]) == 3
    assert form.partial_marker_len("text ") == 0


def test_unreadable_blocks_stay_in_content() -> None:
    for fmt in TOOL_FORMATS:
        broken = get_format(fmt).start_markers[0] + "{not json"
        content, calls = parse_tool_calls("before " + broken, fmt)
        assert calls == [] and content == "before " + broken


def test_bare_leading_calls() -> None:
    """llama3_json reads any bare leading call as its own markup; the other formats none (a
    bare or fenced call naming a declared tool is the repair rule's: tests/unit/
    test_tool_repair.py)."""
    bare = '{"name": "get_time", "parameters": {"zone": "UTC"}}'
    content, calls = parse_tool_calls(bare, "llama3_json")
    assert content is None and [c.name for c in calls] == ["get_time"]
    offered = [{"type": "function", "function": {"name": "get_time", "parameters": {}}}]
    for fmt in ("hermes", "qwen3_xml", "mistral"):
        assert not get_format(fmt).opens_bare(bare)
        for text in (bare, f"```json\n{bare}\n```"):
            assert parse_tool_calls(text, fmt, offered) == (text, [])


def _args(call: Any) -> dict:
    return json.loads(call.arguments_json)


def test_qwen3_xml_values_follow_the_tool_schema() -> None:
    text = render("qwen3_xml", [("get_weather", {"city": "Oslo", "days": 2})])
    (call,) = get_format("qwen3_xml").parse_block(text, TOOLS) or []
    assert _args(call) == {"city": "Oslo", "days": 2}
    (untyped,) = get_format("qwen3_xml").parse_block(text, None) or []
    assert _args(untyped) == {"city": "Oslo", "days": 2}  # JSON when it parses, else text
