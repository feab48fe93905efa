"""Reasoning handed to a client in an opaque form that only this server reads back: Responses
``encrypted_content`` and Anthropic thinking ``signature``.

A sealed value is ``afm1.<base64url of the UTF-8 text>.<HMAC-SHA256 of that, hex>`` under a
random key kept in the data directory (``sealing.key``, created on first use), so it survives
restarts and cannot be forged or altered. It is signed, not secret: the reasoning is only
base64-encoded, as a local server's client already sees it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from serving.model_context import ModelContext, Server

PREFIX = "afm1"
KEY_FILE = "sealing.key"


@cache
def _key(data_dir: str) -> bytes:
    path = Path(data_dir) / KEY_FILE
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key.hex())
    try:
        os.link(tmp, path)  # first writer wins; a racing process reads the winner's key
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return bytes.fromhex(path.read_text().strip())


def key(state: Server | ModelContext) -> bytes:
    return _key(str(state.settings.data_dir))


def _mac(secret: bytes, payload: str) -> str:
    return hmac.new(secret, payload.encode(), hashlib.sha256).hexdigest()


def seal(secret: bytes, text: str) -> str:
    payload = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    return f"{PREFIX}.{payload}.{_mac(secret, payload)}"


def unseal(secret: bytes, value: str | None) -> str | None:
    """The text sealed in ``value``, or None when this server did not seal it (or it was
    altered)."""
    parts = (value or "").split(".")
    if len(parts) != 3 or parts[0] != PREFIX:
        return None
    payload, mac = parts[1], parts[2]
    if not hmac.compare_digest(mac, _mac(secret, payload)):
        return None
    try:
        return base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        return None
