"""Tests for the offline model builder (modelbuilder)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import modelbuilder as mb

FILES = ("model.safetensors", "tokenizer.json", "tokenizer_config.json", "config.json")

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "Weather in Paris and Köln?"},
    {
        "role": "assistant",
        "content": None,
        "reasoning_content": "Two cities, two calls.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": "Köln"}},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "tool", "tool_call_id": "call_2", "content": "rain"},
    {"role": "assistant", "content": "Sunny in Paris, rain in Köln."},
    {"role": "user", "content": [{"type": "text", "text": "Thanks!"}]},
]

FORMAT_MARKERS = {
    "hermes": (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    ),
    "qwen3_xml": ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>",),
    "llama3_json": (
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; '
        '{"name": "get_weather", "parameters": {"city": "Köln"}}',
    ),
    "mistral": ('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, ',),
}


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("afm-cache")


@pytest.fixture(scope="module")
def tiny_path(cache_dir: Path) -> Path:
    return mb.ensure_model("tiny", cache_dir)


@pytest.fixture(scope="module")
def mlx_loaded(tiny_path: Path) -> tuple[Any, Any]:
    import mlx_lm

    return mlx_lm.load(str(tiny_path))


def test_presets_have_required_shapes() -> None:
    names = {"tiny", "default", "bench", "tiny-qwen3-xml", "tiny-llama3", "tiny-mistral"}
    assert names <= set(mb.PRESETS)
    bench = mb.PRESETS["bench"]
    assert (bench.hidden_size, bench.num_layers, bench.intermediate_size) == (512, 8, 1536)
    assert (bench.num_heads, bench.num_kv_heads, bench.head_dim) == (8, 4, 64)
    assert bench.vocab_size == 32000 and bench.dtype == "float32"
    assert {mb.PRESETS[n].tool_format for n in names} == set(mb.TOOL_FORMATS)


def test_build_is_deterministic(tmp_path: Path) -> None:
    a = mb.build_model(tmp_path / "a", mb.PRESETS["tiny"])
    b = mb.build_model(tmp_path / "b", mb.PRESETS["tiny"])
    for name in FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_ensure_model_caches_and_is_concurrency_safe(tmp_path: Path) -> None:
    results: list[Path] = []
    threads = [
        threading.Thread(target=lambda: results.append(mb.ensure_model("tiny", tmp_path)))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and results[0] == results[1]
    path = results[0]
    assert path.parent == tmp_path / "models"
    assert path.name == f"tiny-{mb.spec_hash(mb.PRESETS['tiny'])}"
    folders = [p for p in path.parent.iterdir() if p.is_dir()]
    assert folders == [path]  # no leftover temp folders
    assert mb.ensure_model("tiny", tmp_path) == path


def test_ensure_model_uses_env_cache_dir(
    tiny_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AFM_CACHE_DIR", str(cache_dir))
    assert mb.ensure_model("tiny") == tiny_path
    with pytest.raises(ValueError, match="unknown model preset"):
        mb.ensure_model("no-such-preset")


def test_folder_layout(tiny_path: Path) -> None:
    config = json.loads((tiny_path / "config.json").read_text())
    assert config["model_type"] == "qwen3" and config["architectures"] == ["Qwen3ForCausalLM"]
    tok = json.loads((tiny_path / "tokenizer.json").read_text())
    assert config["vocab_size"] >= len(tok["model"]["vocab"])
    gen = json.loads((tiny_path / "generation_config.json").read_text())
    assert gen["eos_token_id"] == [mb.SPECIAL_TOKEN_IDS["<|im_end|>"], 0]
    from safetensors import safe_open

    with safe_open(str(tiny_path / "model.safetensors"), "np") as f:
        keys = set(f.keys())
    assert "model.embed_tokens.weight" in keys and "model.norm.weight" in keys
    assert "model.layers.1.self_attn.q_norm.weight" in keys
    assert "model.layers.1.mlp.down_proj.weight" in keys


def test_mlx_forward_is_finite(mlx_loaded: tuple[Any, Any]) -> None:
    import mlx.core as mx

    model, tok = mlx_loaded
    ids = tok.encode("Hello world")
    logits = model(mx.array([ids]))
    assert logits.shape[:2] == (1, len(ids))
    assert bool(mx.isfinite(logits).all())


def test_eos_and_special_ids(mlx_loaded: tuple[Any, Any]) -> None:
    _, tok = mlx_loaded
    assert tok.eos_token_id == mb.SPECIAL_TOKEN_IDS["<|im_end|>"] == 2
    assert set(tok.eos_token_ids) == {0, 2}
    assert tok.has_thinking and tok.think_start == "<think>"
    for text, idx in mb.SPECIAL_TOKEN_IDS.items():
        assert tok.encode(text, add_special_tokens=False) == [idx]


@pytest.mark.parametrize(
    "text",
    [
        "Hello, world! The quick brown fox.",
        'def f(x):\n    return {"a": [1, 2.5, null]}\n',
        "Größe Straße, naïve café; ¿Dónde está? Привет, мир!",
        "你好，世界！今日は良い天気ですね。안녕하세요",
        "Emoji 😀🚀 👨‍👩‍👧 ❤️ and 👋🏽",
        "<think>\nreasoning\n</think>\n\n<tool_call>\n{}\n</tool_call>",
    ],
)
def test_tokenizer_round_trips(mlx_loaded: tuple[Any, Any], text: str) -> None:
    _, tok = mlx_loaded
    assert tok.decode(tok.encode(text, add_special_tokens=False)) == text


def test_hf_transformers_agrees_with_mlx(mlx_loaded: tuple[Any, Any], tiny_path: Path) -> None:
    import mlx.core as mx
    import torch
    import transformers

    model, tok = mlx_loaded
    hf_tok = transformers.AutoTokenizer.from_pretrained(tiny_path)
    hf_model = transformers.AutoModelForCausalLM.from_pretrained(tiny_path, dtype=torch.float32)
    text = "<|im_start|>user\nHello, 世界 😀<|im_end|>\n<|im_start|>assistant\n"
    ids = tok.encode(text, add_special_tokens=False)
    assert hf_tok.encode(text, add_special_tokens=False) == ids
    assert hf_tok.eos_token_id == tok.eos_token_id
    mlx_logits = np.array(model(mx.array([ids])).astype(mx.float32))
    with torch.no_grad():
        hf_logits = hf_model(torch.tensor([ids])).logits.float().numpy()
    np.testing.assert_allclose(mlx_logits, hf_logits, atol=1e-4, rtol=0)


def _render(tok: Any, messages: list[dict[str, Any]], tool_format: str) -> str:
    return tok._tokenizer.apply_chat_template(
        messages,
        tools=TOOLS,
        chat_template=mb.chat_template(tool_format),
        tokenize=False,
        add_generation_prompt=True,
        enable_thinking=False,
    )


@pytest.mark.parametrize("tool_format", mb.TOOL_FORMATS)
def test_chat_template_renders_tool_conversation(
    mlx_loaded: tuple[Any, Any], tool_format: str
) -> None:
    _, tok = mlx_loaded
    assert mb.detect_tool_format(mb.chat_template(tool_format)) == tool_format
    text = _render(tok, CONVERSATION[:5], tool_format)  # mid tool loop: reasoning is kept
    assert text.startswith("<|im_start|>system\nYou are helpful.\n\n# Tools\n")
    for marker in FORMAT_MARKERS[tool_format]:
        assert marker in text
    assert "<|im_start|>user\nWeather in Paris and Köln?<|im_end|>\n" in text
    assert "<|im_start|>assistant\n<think>\nTwo cities, two calls.\n</think>\n\n" in text
    grouped = "<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\nrain"
    assert grouped in text
    assert text.endswith(
        "</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
    )

    full = _render(tok, CONVERSATION, tool_format)  # a new user turn: old reasoning is dropped
    assert "Two cities" not in full
    for marker in FORMAT_MARKERS[tool_format]:
        assert marker in full
    assert "<|im_start|>assistant\nSunny in Paris, rain in Köln.<|im_end|>\n" in full
    assert full.endswith(
        "<|im_start|>user\nThanks!<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
    )


def test_chat_template_plain_and_thinking(mlx_loaded: tuple[Any, Any]) -> None:
    _, tok = mlx_loaded
    messages = [{"role": "user", "content": "Hi"}]
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, enable_thinking=False)
    think = [mb.SPECIAL_TOKEN_IDS["<think>"], mb.SPECIAL_TOKEN_IDS["</think>"]]
    assert [i for i in ids if i in think] == think


def test_presets_carry_their_template() -> None:
    for spec in mb.PRESETS.values():
        config = mb.tokenizer_config(spec)
        assert config["chat_template"] == mb.chat_template(spec.tool_format)


def test_mlx_lm_infers_tool_parsers() -> None:
    from mlx_lm.tokenizer_utils import _infer_tool_parser

    expected = {"hermes": "json_tools", "qwen3_xml": "qwen3_coder", "mistral": "mistral"}
    for fmt, parser in expected.items():
        fake = SimpleNamespace(chat_template=mb.chat_template(fmt), get_vocab=dict)
        assert _infer_tool_parser(fake) == parser


def test_bench_tokenizer_reaches_32k() -> None:
    tok = mb.train_tokenizer(mb.PRESETS["bench"].vocab_size)
    assert tok.get_vocab_size() == 32000


def test_cli_prints_path(
    tiny_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_model_cli", Path(__file__).resolve().parent.parent / "tools" / "build_model.py"
    )
    assert spec is not None and spec.loader is not None
    cli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli)
    assert cli.main(["--preset", "tiny", "--cache-dir", str(cache_dir)]) == 0
    assert capsys.readouterr().out.strip() == str(tiny_path)
