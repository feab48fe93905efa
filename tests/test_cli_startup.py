"""`afm serve` refuses configurations it could never honour, with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import LiveServer


def test_unenforceable_guided_json_refused(tmp_path: Path, tiny_model: Path) -> None:
    server = LiveServer(["--model", str(tiny_model), "--guided-json",
                         '{"type": "object", "not": {}}'], tmp_path / "data", tmp_path / "log")
    with pytest.raises(RuntimeError) as info:
        server.start(timeout=120)
    assert "--guided-json cannot be enforced" in str(info.value)
    assert "'not' is not supported" in str(info.value)


def test_data_dir_held_by_another_server(tmp_path: Path, tiny_model: Path) -> None:
    first = LiveServer(["--model", str(tiny_model)], tmp_path / "data", tmp_path / "a.log")
    first.start()
    try:
        second = LiveServer(["--model", str(tiny_model)], tmp_path / "data", tmp_path / "b.log")
        with pytest.raises(RuntimeError) as info:
            second.start(timeout=60)
        assert "in use by another process" in str(info.value)
        assert "Traceback" not in str(info.value)
    finally:
        first.stop()
