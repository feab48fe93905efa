"""`afm serve` refuses configurations it could never honour, and fails fast on start-up problems:
each with its documented exit code and at most two lines on stderr naming the cause and the fix."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from afm.startup import (
    EXIT_ADDRESS,
    EXIT_CODES,
    EXIT_DATA_DIR,
    EXIT_MODEL_LOAD,
    EXIT_MODEL_NOT_FOUND,
    EXIT_UNAUTHENTICATED,
    EXIT_UNSUPPORTED_MODEL,
)
from tests.conftest import ROOT, LiveServer, free_port


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


# ---------------------------------------------------------------- fail fast, in a few lines
def run_serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None,
              timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`afm serve` that is expected to exit: its exit code and stderr."""
    cmd = [sys.executable, "-m", "afm", "serve", "--port", str(free_port()),
           "--data-dir", str(tmp_path / "data"), *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})})


def assert_short(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    """The exit code, and a stderr whose non-log lines are at most two, naming cause and fix."""
    assert result.returncode == code, (result.returncode, result.stderr)
    said = [line for line in result.stderr.splitlines()
            if line.strip() and not LOG_LINE.match(line)]
    assert 1 <= len(said) <= 2, result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in "\n".join(said), (needle, said)


LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (DEBUG|INFO|WARNING) ")


def test_port_in_use_fails_before_the_data_dir(tmp_path: Path, tiny_model: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = run_serve(tmp_path, "--model", str(tiny_model), "--port", str(port))
    assert_short(result, EXIT_ADDRESS, f"port {port}", "already in use", "--port")
    assert not (tmp_path / "data").exists()  # checked before the data directory


def test_data_dir_held_exit_code(tmp_path: Path, server: LiveServer, tiny_model: Path) -> None:
    result = run_serve(tmp_path, "--model", str(tiny_model), "--data-dir", str(server.data_dir))
    assert_short(result, EXIT_DATA_DIR, "in use by another process", "--data-dir")


def test_missing_model_folder(tmp_path: Path) -> None:
    result = run_serve(tmp_path, "--model", str(tmp_path / "no-such-model"))
    assert_short(result, EXIT_MODEL_NOT_FOUND, "does not exist", "no-such-model")
    result = run_serve(tmp_path, "--model", "/nonexistent")
    assert_short(result, EXIT_MODEL_NOT_FOUND, "model folder /nonexistent does not exist")


def test_model_folder_without_config(tmp_path: Path) -> None:
    folder = tmp_path / "empty-model"
    folder.mkdir()
    result = run_serve(tmp_path, "--model", str(folder))
    assert_short(result, EXIT_MODEL_NOT_FOUND, "has no config.json")


def test_hub_id_not_cached_offline(tmp_path: Path) -> None:
    result = run_serve(tmp_path, "--model", "some-org/not-downloaded-model",
                       env={"HF_HOME": str(tmp_path / "hf")})
    assert_short(result, EXIT_MODEL_NOT_FOUND, "not in the local hub cache",
                 "Download it first", "pass the folder")


def test_unsupported_architecture(tmp_path: Path, tiny_model: Path) -> None:
    folder = tmp_path / "odd-model"
    shutil.copytree(tiny_model, folder)
    config = json.loads((folder / "config.json").read_text())
    config["model_type"] = "no_such_architecture"
    (folder / "config.json").write_text(json.dumps(config))
    result = run_serve(tmp_path, "--model", str(folder))
    assert_short(result, EXIT_UNSUPPORTED_MODEL, "'no_such_architecture'", "not support")


def test_model_that_fails_to_load(tmp_path: Path, tiny_model: Path) -> None:
    folder = tmp_path / "no-weights"
    shutil.copytree(tiny_model, folder, ignore=shutil.ignore_patterns("*.safetensors"))
    result = run_serve(tmp_path, "--model", str(folder))
    assert_short(result, EXIT_MODEL_LOAD, "failed to load", "--log-level debug")
    debug = run_serve(tmp_path, "--model", str(folder), "--log-level", "debug")
    assert debug.returncode == EXIT_MODEL_LOAD
    assert "Traceback" in debug.stderr  # the traceback only with --log-level debug


def test_non_loopback_without_key_refused(tmp_path: Path) -> None:
    result = run_serve(tmp_path, "--host", "0.0.0.0")
    assert_short(result, EXIT_UNAUTHENTICATED, "--api-key", "--allow-unauthenticated")
    assert not (tmp_path / "data").exists()


def test_exit_codes_documented_in_help_and_readme() -> None:
    help_text = subprocess.run([sys.executable, "-m", "afm", "serve", "--help"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
    readme = (ROOT / "README.md").read_text()
    for code, meaning in EXIT_CODES.items():
        assert f"  {code}  {meaning}" in help_text
        assert re.search(rf"^\| {code} \| ", readme, re.M), code


def test_listening_logged_once_serving(tmp_path: Path, tiny_model: Path) -> None:
    server = LiveServer(["--model", str(tiny_model)], tmp_path / "data", tmp_path / "log")
    server.start()
    try:
        log = server.log_path.read_text()
    finally:
        server.stop()
    loaded = log.index("chat model")
    listening = log.index(f"AFM listening on http://127.0.0.1:{server.port}")
    assert loaded < listening
    assert log.count("AFM listening") == 1
