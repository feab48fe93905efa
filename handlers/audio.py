"""Audio operations (Apple Speech): createTranscription, createSpeech, listVoices.

Apple's speech frameworks exist only on macOS; elsewhere a validated request gets 503
``speech_unavailable`` - never a 500 and never fake output.
"""

from __future__ import annotations

import platform
from typing import Any

from afm.errors import InvalidRequest, ServiceUnavailable
from generated.models import SpeechRequest


def _unavailable() -> ServiceUnavailable:
    return ServiceUnavailable(
        f"Apple Speech is not available on this host ({platform.system()}); run AFM on macOS "
        "for speech endpoints", type="speech_unavailable", code="speech_unavailable")


async def _file_size(file: Any) -> int:
    """Byte length of an uploaded file (an UploadFile-like object or raw bytes)."""
    if isinstance(file, bytes | bytearray):
        return len(file)
    size = getattr(file, "size", None)
    if isinstance(size, int):
        return size
    data = await file.read() if hasattr(file, "read") else b""
    return len(data)


async def create_transcription(file: Any = None, **form: Any) -> None:
    if file is None:
        raise InvalidRequest("'file' is required", param="file")
    if await _file_size(file) == 0:
        raise InvalidRequest("'file' is empty", param="file")
    raise _unavailable()


async def create_speech(body: dict[str, Any]) -> None:
    SpeechRequest.model_validate(body)  # blank input is refused by the contract
    raise _unavailable()


async def list_voices() -> None:
    raise _unavailable()
