"""A real GGUF file through a real `afm serve`, asked with the official openai SDK: SmolLM2
(the embedded default, `afm-default`, and the same file as `--model FILE.gguf`, served under its
stem) answers "What is the capital of France?" with Paris."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import LiveServer
from tests.real_weights import real_model

QUESTION = [{"role": "user", "content": "What is the capital of France?"}]


@pytest.fixture(scope="module")
def gguf_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    base = tmp_path_factory.mktemp("gguf-server")
    server = LiveServer(["--model", str(real_model("smollm2"))], base / "data",
                        base / "server.log").start(timeout=600)
    yield server
    server.stop()


def test_gguf_file_served_under_its_stem_answers_paris(gguf_server: LiveServer) -> None:
    client = gguf_server.openai()
    ids = [m.id for m in client.models.list().data]
    assert "SmolLM2-135M-Instruct.Q4_1" in ids
    reply = client.chat.completions.create(model="SmolLM2-135M-Instruct.Q4_1",
                                           messages=QUESTION, max_tokens=24, temperature=0)
    assert "Paris" in (reply.choices[0].message.content or "")
    assert reply.choices[0].finish_reason == "stop"  # <|im_end|> ends the turn
    health = __import__("httpx").get(gguf_server.url + "/health").json()
    assert "native quantized CPU kernel" in str(health), health


def test_default_model_is_smollm2_and_answers_paris(tmp_path: Path) -> None:
    real_model("smollm2")  # cached by tools/setup.sh: the default start does not download
    server = LiveServer([], tmp_path / "data", tmp_path / "server.log").start(timeout=600)
    try:
        client = server.openai()
        assert client.models.list().data[0].id == "afm-default"
        stream = client.chat.completions.create(model="afm-default", messages=QUESTION,
                                                max_tokens=24, temperature=0, stream=True)
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert "Paris" in text
    finally:
        server.stop()
