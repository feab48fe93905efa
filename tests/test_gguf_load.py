"""The GGUF loader (engine/gguf_load.py): tensor names, the llama Q/K un-permutation, exact
Q4_0/Q4_1/Q8_0 triples, the config from metadata, the cache, and one-line refusals through a
real `afm serve` start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gguf import GGMLQuantizationType, GGUFWriter
from gguf.quants import dequantize, quantize

from afm.model_catalog import chat_catalogue, model_id_for
from engine import gguf_load
from engine.gguf_load import hf_name, inspect, native_triple, requantize, unpermute
from tests.real_weights import real_model

ROOT = Path(__file__).resolve().parent.parent


def llama_cpp_permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's convert_hf_to_gguf.py LlamaModel.permute, as written there."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def test_tensor_names() -> None:
    assert hf_name("token_embd.weight", "llama") == "model.embed_tokens.weight"
    assert hf_name("output.weight", "qwen2") == "lm_head.weight"
    assert hf_name("output_norm.weight", "qwen3") == "model.norm.weight"
    assert hf_name("blk.7.attn_q.bias", "qwen2") == "model.layers.7.self_attn.q_proj.bias"
    assert hf_name("blk.0.attn_k_norm.weight", "qwen3") == "model.layers.0.self_attn.k_norm.weight"
    assert hf_name("blk.3.ffn_down.weight", "llama") == "model.layers.3.mlp.down_proj.weight"
    assert hf_name("blk.3.ffn_norm.weight", "llama") == (
        "model.layers.3.post_attention_layernorm.weight")
    assert hf_name("blk.3.ffn_norm.weight", "gemma3") == (
        "model.layers.3.pre_feedforward_layernorm.weight")
    assert hf_name("blk.3.post_ffw_norm.weight", "gemma3") == (
        "model.layers.3.post_feedforward_layernorm.weight")
    assert hf_name("rope_freqs.weight", "llama") is None


@pytest.mark.parametrize("heads", [1, 3, 9])
def test_unpermute_undoes_llama_cpp_permute(heads: int) -> None:
    rows = heads * 64
    w = np.arange(rows * 5, dtype=np.float32).reshape(rows, 5)
    assert np.array_equal(unpermute(llama_cpp_permute(w, heads), heads), w)
    assert not np.array_equal(llama_cpp_permute(w, heads), w)
    bias = np.arange(rows, dtype=np.float32)  # 1-D (a q_proj bias) moves the same way
    assert np.array_equal(unpermute(llama_cpp_permute(bias, heads), heads), bias)


@pytest.mark.parametrize("qtype", ["Q4_0", "Q4_1", "Q8_0"])
def test_native_types_become_the_same_values_in_mlx_affine(qtype: str) -> None:
    import mlx.core as mx

    rng = np.random.default_rng(0)
    w = rng.normal(size=(64, 256)).astype(np.float32)
    raw = quantize(w, GGMLQuantizationType[qtype])
    exact = dequantize(raw, GGMLQuantizationType[qtype])
    q, scales, biases, bits = native_triple(raw, qtype)
    assert bits == (8 if qtype == "Q8_0" else 4)
    got = mx.dequantize(mx.array(q), mx.array(scales), mx.array(biases), group_size=32,
                        bits=bits)
    assert np.array_equal(np.array(got), exact)
    # rows permuted together with their scales and biases still dequantize to permuted rows
    perm = [unpermute(a, 4) for a in (q, scales, biases)]
    got = mx.dequantize(*(mx.array(a) for a in perm), group_size=32, bits=bits)
    assert np.array_equal(np.array(got), unpermute(exact, 4))


@pytest.mark.parametrize("bits", [4, 8])
def test_requantized_tensors_have_float16_scales_and_cover_each_group(bits: int) -> None:
    import mlx.core as mx

    rng = np.random.default_rng(1)
    w = (rng.normal(size=(48, 256)) * 0.05).astype(np.float32)
    w[5, :32] = 0.01  # a constant group: one value, no range
    w[6, 32:64] *= 300.0  # a wide group
    q, scales, biases = requantize(w, bits)
    for a in (scales, biases):  # float16 values, so the kernels may keep them as float16
        assert a.dtype == np.float32 and np.array_equal(a.astype(np.float16).astype(np.float32), a)
    got = np.array(mx.dequantize(mx.array(q), mx.array(scales), mx.array(biases), group_size=32,
                                 bits=bits))
    groups = np.abs(got - w).reshape(48, -1, 32)
    assert np.all(groups.max(axis=-1) <= scales * 0.5 * (1 + 1e-5) + 1e-7)  # nearest code
    assert np.allclose(got[5, :32], 0.01, rtol=1e-3)
    # no coarser than MLX's own affine quantization of the same matrix
    ref = mx.dequantize(*mx.quantize(mx.array(w), group_size=32, bits=bits), group_size=32,
                        bits=bits)
    assert np.sqrt(((got - w) ** 2).mean()) <= np.sqrt(((np.array(ref) - w) ** 2).mean()) * 1.02


def test_config_from_the_smollm2_metadata() -> None:
    path = real_model("smollm2")
    info = inspect(path)
    assert info.architecture == "llama"
    assert info.tensor_types == {"Q4_1": 210, "F32": 61, "Q8_0": 1}

    class Shape:
        shape = (49152, 576)

    config = gguf_load.model_config(info, {"model.embed_tokens.weight": Shape()})
    assert config["model_type"] == "llama"
    assert (config["num_hidden_layers"], config["hidden_size"], config["intermediate_size"]) == (
        30, 576, 1536)
    assert (config["num_attention_heads"], config["num_key_value_heads"]) == (9, 3)
    assert config["head_dim"] == 64 and config["vocab_size"] == 49152
    assert config["rope_theta"] == 100000.0 and config["max_position_embeddings"] == 8192
    assert config["tie_word_embeddings"] is True  # no output.weight in the file
    assert abs(config["rms_norm_eps"] - 1e-5) < 1e-9


def test_converted_smollm2_folder_is_cached_with_its_stop_tokens(tmp_path: Path) -> None:
    import json
    import time

    from transformers import AutoTokenizer

    path = real_model("smollm2")
    folder = gguf_load.ensure_converted(path)  # converted once (also by the other tests)
    tic = time.monotonic()
    assert gguf_load.ensure_converted(path) == folder
    assert time.monotonic() - tic < 1.0  # the second start reads the cache
    config = json.loads((folder / "config.json").read_text())
    tok = AutoTokenizer.from_pretrained(folder)
    assert tok.convert_tokens_to_ids("<|im_end|>") in config["eos_token_id"]
    assert "<|im_start|>" in tok.chat_template
    assert config["quantization"]["model.layers.0.self_attn.q_proj"] == {"group_size": 32,
                                                                          "bits": 4}
    assert config["quantization"]["model.embed_tokens"] == {"group_size": 32, "bits": 8}
    # another file identity (the same bytes under another path) is another cache entry
    copy = tmp_path / path.name
    try:
        os.link(path, copy)
    except OSError:
        copy.write_bytes(path.read_bytes())
    assert gguf_load.cached_folder(copy) != folder


def _tiny_gguf(path: Path, arch: str, tensor: tuple[str, np.ndarray, GGMLQuantizationType | None]
               ) -> Path:
    writer = GGUFWriter(str(path), arch)
    writer.add_block_count(1)
    writer.add_embedding_length(32)
    writer.add_head_count(1)
    name, data, raw = tensor
    writer.add_tensor(name, data, raw_dtype=raw)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _serve(tmp_path: Path, model: Path | str) -> subprocess.CompletedProcess[str]:
    from tests.conftest import free_port

    return subprocess.run(
        [sys.executable, "-m", "afm", "serve", "--port", str(free_port()), "--data-dir",
         str(tmp_path / "data"), "--model", str(model)], cwd=ROOT, capture_output=True,
        text=True, timeout=120, env={**os.environ, "HF_HUB_OFFLINE": "1"})


def _one_line(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert result.returncode == code, result.stderr
    said = [ln for ln in result.stderr.splitlines() if ln.strip() and " INFO " not in ln]
    assert len(said) == 1 and "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in said[0], (needle, said)


def test_unsupported_architecture_fails_at_start_in_one_line(tmp_path: Path) -> None:
    model = _tiny_gguf(tmp_path / "odd.gguf", "mamba",
                       ("token_embd.weight", np.zeros((8, 32), np.float32), None))
    with pytest.raises(gguf_load.GGUFError, match="architecture 'mamba'"):
        inspect(model)
    _one_line(_serve(tmp_path, model), 6, "odd.gguf", "architecture 'mamba'", "supported: llama")


def test_unsupported_tensor_type_fails_at_start_in_one_line(tmp_path: Path) -> None:
    raw = np.zeros((4, 292), np.uint8)  # Q8_K: 256 values in 292 bytes; gguf cannot read it
    model = _tiny_gguf(tmp_path / "k8.gguf", "llama",
                       ("blk.0.attn_q.weight", raw, GGMLQuantizationType.Q8_K))
    _one_line(_serve(tmp_path, model), 6, "k8.gguf", "blk.0.attn_q.weight", "Q8_K")


def test_split_gguf_is_refused_in_one_line(tmp_path: Path) -> None:
    writer = GGUFWriter(str(tmp_path / "m-00001-of-00002.gguf"), "llama")
    writer.add_uint16("split.count", 2)
    writer.add_tensor("token_embd.weight", np.zeros((8, 32), np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    _one_line(_serve(tmp_path, tmp_path / "m-00001-of-00002.gguf"), 6, "split", "merge")


def test_catalogue_serves_gguf_files_under_their_stem(tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    (shelf / "b.Q4_0.gguf").write_bytes(b"GGUF")
    one = shelf / "holder"
    one.mkdir()
    (one / "inner.Q8_0.gguf").write_bytes(b"GGUF")
    two = shelf / "two"
    two.mkdir()
    (two / "x.gguf").write_bytes(b"GGUF")
    (two / "y.gguf").write_bytes(b"GGUF")
    entries = chat_catalogue([], shelf)
    assert [e.id for e in entries] == ["b.Q4_0", "inner.Q8_0"]  # "two" holds two: skipped
    assert model_id_for(str(one)) == "inner.Q8_0"
    with pytest.raises(ValueError, match="2 .gguf files"):
        chat_catalogue([str(two)])


def test_random_preset_and_unknown_preset(tmp_path: Path) -> None:
    from afm.startup import EXIT_MODEL_NOT_FOUND, StartupError, check_model_source

    assert check_model_source("random:tiny").kind == "random"
    assert model_id_for("random") == "random"
    with pytest.raises(StartupError) as info:
        check_model_source("random:nope")
    assert info.value.code == EXIT_MODEL_NOT_FOUND and "tiny" in info.value.message
