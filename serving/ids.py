"""Identifiers and timestamps that responses carry."""

from __future__ import annotations

import time
import uuid


def new_id(prefix: str) -> str:
    """``prefix`` + 24 lowercase hex characters (``chatcmpl-...``, ``cmpl-...``)."""
    return prefix + uuid.uuid4().hex[:24]


def fingerprint(model_id: str) -> str:
    """``afm_mlx__`` + the model id with ``/`` replaced by ``__``."""
    return "afm_mlx__" + model_id.replace("/", "__")


def now() -> int:
    """Unix seconds, as ``created`` fields carry them."""
    return int(time.time())
