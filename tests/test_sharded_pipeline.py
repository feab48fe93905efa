"""`--shard-mode pipeline`: each rank holds a run of whole layers (mlx-lm's ``pipeline()``).

The project's own models are qwen3 (tensor parallel only in mlx-lm), so the pipeline test
turns the tiny model into a qwen2 one (whose mlx-lm body has ``pipeline()``: the same weights
without the q/k norms, zero attention biases) and compares 2 pipeline ranks with one process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, LiveServer, free_port
from tests.test_sharded import SEEDED, ShardedServer, _chat


@pytest.fixture(scope="module")
def qwen2_model(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path) -> Path:
    import mlx.core as mx
    from mlx.utils import tree_flatten
    from mlx_lm.models import qwen2

    out = tmp_path_factory.mktemp("qwen2")
    for f in tiny_model.iterdir():
        if f.suffix != ".safetensors" and f.name != "afm_build.json":
            shutil.copy(f, out / f.name)
    config = json.loads((tiny_model / "config.json").read_text())
    config.update(model_type="qwen2", architectures=["Qwen2ForCausalLM"])
    config.pop("quantization", None)
    (out / "config.json").write_text(json.dumps(config))
    # the tiny model's trained qwen3 weights as qwen2 (no q/k norms, zero q/k/v biases)
    weights = mx.load(str(tiny_model / "model.safetensors"))
    model = qwen2.Model(qwen2.ModelArgs.from_dict(config))
    shapes = dict(tree_flatten(model.parameters()))
    params = {k: weights.get(k, mx.zeros(v.shape, v.dtype)) for k, v in shapes.items()}
    mx.save_safetensors(str(out / "model.safetensors"), params)
    return out


@pytest.fixture(scope="module")
def pipelined(tmp_path_factory: pytest.TempPathFactory, qwen2_model: Path
              ) -> Iterator[ShardedServer]:
    server = ShardedServer(tmp_path_factory.mktemp("pipeline"),
                           ["--model", str(qwen2_model), "--shard-mode", "pipeline"])
    try:
        yield server.wait_healthy()
    finally:
        codes = server.stop()
        assert codes[1] == 0, f"exit codes {codes}\n{server.logs()}"


def test_pipeline_chat_matches_one_process(pipelined: ShardedServer, qwen2_model: Path,
                                           live_server: Callable[..., LiveServer]) -> None:
    group = httpx.get(pipelined.url + "/health", timeout=10).json()["sharding"]
    assert group["mode"] == "pipeline" and group["world_size"] == 2
    single = live_server(model=qwen2_model)
    a, b = _chat(pipelined, logprobs=True), _chat(single, logprobs=True)
    tokens = [t.token for t in a.choices[0].logprobs.content]
    assert tokens == [t.token for t in b.choices[0].logprobs.content]
    assert len(set(tokens)) > 3 and a.usage.completion_tokens == SEEDED["max_tokens"]
    messages = [{"role": "user", "content": "The sea"}]
    stream = pipelined.openai().chat.completions.create(model="m", messages=messages,
                                                        stream=True, **SEEDED)
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    alone = single.openai().chat.completions.create(model="m", messages=messages, **SEEDED)
    assert text == alone.choices[0].message.content


def test_model_without_pipeline_fails_at_start(tmp_path: Path, tiny_model: Path) -> None:
    hosts = tmp_path / "hosts.json"
    hosts.write_text(json.dumps([[f"127.0.0.1:{free_port()}"], [f"127.0.0.1:{free_port()}"]]))
    procs = []
    for rank in (1, 0):
        env = {**os.environ, "MLX_RANK": str(rank), "MLX_HOSTFILE": str(hosts)}
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "afm", "serve", "--port", str(free_port()), "--data-dir",
             str(tmp_path / f"data{rank}"), "--model", str(tiny_model), "--shard-mode",
             "pipeline"], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True))
    try:
        for proc in procs:
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 7, err
            assert ("model type qwen3 has no pipeline(); it cannot run pipeline-parallel "
                    "(use --shard-mode tensor)") in err.strip().splitlines()[-1], err
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
