"""Start-up checks of a sharded server: one clear line for what cannot run sharded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.distributed import check_shardable
from tests.conftest import ROOT, free_port

SMALL = {"hidden_size": 64, "num_hidden_layers": 1, "intermediate_size": 128,
         "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-6,
         "vocab_size": 64, "head_dim": 16, "max_position_embeddings": 128,
         "rope_theta": 10000.0, "tie_word_embeddings": True}


def _model(kind: str, **over: object) -> object:
    import importlib

    mod = importlib.import_module(f"mlx_lm.models.{kind}")
    return mod.Model(mod.ModelArgs.from_dict({"model_type": kind, **SMALL, **over}))


def test_heads_must_divide_by_the_world_size() -> None:
    check_shardable(_model("qwen3"), 2)  # 4 heads, 2 kv heads
    with pytest.raises(ValueError, match=r"num_key_value_heads=2 does not divide by the world "
                                         r"size 4"):
        check_shardable(_model("qwen3"), 4)


def test_model_without_shard_is_refused() -> None:
    with pytest.raises(ValueError, match="model type gemma has no tensor-parallel shard"):
        check_shardable(_model("gemma"), 2)


def test_sharded_server_refuses_several_models(tmp_path: Path, tiny_model: Path) -> None:
    from modelbuilder import ensure_model

    other = ensure_model("tiny-llama3")
    hosts = tmp_path / "hosts.json"
    hosts.write_text(json.dumps([[f"127.0.0.1:{free_port()}"], [f"127.0.0.1:{free_port()}"]]))
    env = {**os.environ, "MLX_RANK": "0", "MLX_HOSTFILE": str(hosts)}
    proc = subprocess.run(
        [sys.executable, "-m", "afm", "serve", "--port", str(free_port()), "--data-dir",
         str(tmp_path / "data"), "--model", str(tiny_model), "--model", str(other)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "afm: a sharded server (started by mlx.launch) serves one chat model; pass a single "
        "--model and no --models-dir")


def test_worker_decode_runs_the_layers_unless_the_head_is_sharded() -> None:
    """Worker ranks skip the output head and sampling (rank 0 sends the tokens), but a
    vocabulary-sharded head holds a collective every rank must join: then the whole model."""
    import mlx.core as mx
    from mlx.nn.layers.distributed import shard_linear

    from engine.shard_worker import decode_forward

    model = _model("qwen3", tie_word_embeddings=False)
    assert decode_forward(model) is model.model
    hidden = decode_forward(model)(mx.array([[1, 2, 3]]))
    assert hidden.shape == (1, 3, SMALL["hidden_size"])  # the layers' output, no vocab logits
    model.lm_head = shard_linear(model.lm_head, "all-to-sharded", group=mx.distributed.init())
    assert decode_forward(model) is model
