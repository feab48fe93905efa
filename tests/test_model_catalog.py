"""The offered chat models: `--model` values (NAME=SOURCE), `--models-dir` folders, the names
each is served under, and the command line's refusals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from afm.model_catalog import DEFAULT_MODEL_ID, chat_catalogue, parse_model_value

ROOT = Path(__file__).resolve().parent.parent


def _model_folder(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    return path


def test_name_equals_source_only_when_it_cannot_be_a_path(tmp_path: Path) -> None:
    assert parse_model_value("qwen=mlx-community/Qwen3-0.6B-4bit") == (
        "qwen", "mlx-community/Qwen3-0.6B-4bit")
    assert parse_model_value("mlx-community/Qwen3-0.6B-4bit") == (
        None, "mlx-community/Qwen3-0.6B-4bit")
    odd = _model_folder(tmp_path / "a=b")
    assert parse_model_value(str(odd)) == (None, str(odd))  # an existing folder stays a folder
    assert parse_model_value("org/x=y") == (None, "org/x=y")  # a name has no `/`
    assert parse_model_value("=x") == (None, "=x")


def test_catalogue_order_names_and_aliases(tmp_path: Path) -> None:
    one = _model_folder(tmp_path / "one")
    shelf = tmp_path / "shelf"
    _model_folder(shelf / "b")
    _model_folder(shelf / "a")
    (shelf / "no-config").mkdir()
    (shelf / "file.txt").write_text("x")
    entries = chat_catalogue([str(one), "fast=org/model"], shelf)
    assert [e.id for e in entries] == ["one", "fast", "a", "b"]
    assert entries[0].aliases == (str(one),)  # the value as given is accepted too
    assert entries[1].source == "org/model" and entries[1].aliases == ("org/model",)
    assert entries[2].source == str(shelf / "a")


def test_no_model_is_the_embedded_default() -> None:
    [entry] = chat_catalogue([])
    assert entry.id == DEFAULT_MODEL_ID and entry.source is None


def test_two_models_under_one_name_refuse(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="served as 'm'"):
        chat_catalogue(["m=org/one", "m=org/two"])
    with pytest.raises(ValueError, match="not a folder"):
        chat_catalogue([], tmp_path / "missing")


def test_a_models_dir_folder_named_like_a_model_is_skipped(tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    _model_folder(shelf / "x")
    _model_folder(shelf / "y")
    assert [e.id for e in chat_catalogue(["x=org/x"], shelf)] == ["x", "y"]


@pytest.mark.parametrize("flags, message", [
    (["--model", "m=org/one", "--model", "m=org/two"], "served as 'm'"),
    (["--max-loaded-models", "-1"], "--max-loaded-models"),
])
def test_serve_refuses_bad_model_flags(flags: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "afm", "serve", *flags], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr
