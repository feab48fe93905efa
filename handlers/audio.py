"""Audio operations: createTranscription, createSpeech, listVoices.

The speech backend (engine.speech: faster-whisper and Piper, chosen at start-up by afm.speech)
runs on its own worker thread. Without one (`--no-speech`, or the shipped models never
fetched) a validated request gets 503 ``speech_unavailable`` - never a 500 and never fake output.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import Response, StreamingResponse

from afm.errors import InvalidRequest, PayloadTooLarge
from afm.state import get_state
from engine.speech import TranscribeOptions
from generated.models import SpeechRequest
from handlers.replies import SSE_HEADERS, json_response, sse_line
from serving import audio

STREAMABLE = ("json", "text")


async def _file_bytes(file: Any, limit: int) -> bytes:
    """The bytes of an uploaded file (an UploadFile-like object or raw bytes)."""
    if isinstance(file, bytes | bytearray):
        data = bytes(file)
    elif hasattr(file, "read"):
        data = await file.read(limit + 1)
    else:
        raise InvalidRequest("'file' must be a file part", param="file")
    if len(data) > limit:
        raise PayloadTooLarge(f"The audio file exceeds {limit} bytes")
    return data


def _field(form: dict[str, Any], name: str) -> Any:
    value = form.get(name)
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def _number(form: dict[str, Any], name: str) -> float | None:
    value = _field(form, name)
    if value in (None, ""):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidRequest(f"'{name}' must be a number", param=name) from None


def _flag(form: dict[str, Any], name: str) -> bool:
    value = _field(form, name)
    return value is True or (isinstance(value, str) and value.lower() in ("true", "1"))


def _granularities(form: dict[str, Any]) -> set[str]:
    values = form.get("timestamp_granularities[]", form.get("timestamp_granularities")) or []
    values = [values] if isinstance(values, str) else list(values)
    values = [v.strip() for value in values for v in str(value).split(",") if v.strip()]
    bad = [v for v in values if v not in ("segment", "word")]
    if bad:
        raise InvalidRequest(f"timestamp_granularities takes 'segment' and 'word', not {bad}",
                             param="timestamp_granularities")
    return set(values)


async def create_transcription(body: dict[str, Any] | None = None, file: Any = None,
                               **extra: Any) -> Response:
    form = {**extra, **(body or {})}
    if file is None:
        raise InvalidRequest("'file' is required", param="file")
    state = get_state()
    data = await _file_bytes(file, state.settings.max_audio_body_bytes)
    if not data:
        raise InvalidRequest("'file' is empty", param="file")
    fmt = _field(form, "response_format") or "json"
    stream = _flag(form, "stream")
    if stream and fmt not in STREAMABLE:
        raise InvalidRequest(f"stream=true sends text events: response_format must be json or "
                             f"text, not {fmt!r}", param="stream")
    words = "word" in _granularities(form)
    if words and fmt != "verbose_json":
        raise InvalidRequest("timestamp_granularities needs response_format verbose_json",
                             param="timestamp_granularities")
    temperature = _number(form, "temperature")
    opts = TranscribeOptions(language=audio.language_code(_field(form, "language")),
                             prompt=_field(form, "prompt") or None,
                             temperature=temperature, word_timestamps=words)
    backend = state.speech
    if backend is None or backend.transcriber is None:
        raise audio.unavailable("transcription model")
    info, events = await audio.open_transcript(backend, data, opts)
    if stream:
        return _sse(audio.transcript_events(events))
    segments = await audio.read_segments(events)
    content, media_type = audio.transcription_body(fmt, info, segments, words)
    if isinstance(content, dict):
        return json_response(content)
    return Response(content, media_type=media_type)


def _sse(events: AsyncIterator[dict[str, Any]]) -> StreamingResponse:
    """Events named by their type; the stream ends after the done event (no ``[DONE]``)."""

    async def body() -> AsyncIterator[bytes]:
        try:
            async for event in events:
                yield sse_line(event, event["type"])
        finally:
            await events.aclose()  # type: ignore[attr-defined]

    return StreamingResponse(body(), media_type="text/event-stream", headers=SSE_HEADERS)


async def create_speech(body: dict[str, Any]) -> Response:
    req = SpeechRequest.model_validate(body)  # blank input is refused by the contract
    fmt = req.response_format.value if req.response_format else "wav"
    stream_format = req.stream_format.value if req.stream_format else "audio"
    backend = get_state().speech
    voice = audio.pick_voice(backend, body.get("voice"))
    audio.check_format(fmt, stream_format)
    assert backend is not None
    first, chunks = await audio.speech_chunks(backend, req.input, voice, req.speed or 1.0)
    if stream_format == "sse":
        return _sse(_speech_events(first, chunks))
    if fmt == "pcm":  # raw samples: sent sentence by sentence as they are synthesized
        return StreamingResponse(_pcm(first, chunks), media_type=audio.MEDIA_TYPES["pcm"],
                                 headers={"X-Sample-Rate": str(voice.sample_rate)})
    import numpy as np

    pieces = [first]
    try:
        pieces += [c async for c in chunks]
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]
    data = audio.encode(np.concatenate(pieces), voice.sample_rate, fmt)
    return Response(data, media_type=audio.MEDIA_TYPES[fmt])


async def _pcm(first: Any, chunks: AsyncIterator[Any]) -> AsyncIterator[bytes]:
    try:
        yield first.astype("<i2").tobytes()
        async for chunk in chunks:
            yield chunk.astype("<i2").tobytes()
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]


async def _speech_events(first: Any, chunks: AsyncIterator[Any]
                         ) -> AsyncIterator[dict[str, Any]]:
    try:
        yield audio.pcm_event(first)
        async for chunk in chunks:
            yield audio.pcm_event(chunk)
    except Exception as exc:  # noqa: BLE001 - the stream has started: report in band
        yield {"type": "error", "error": {"message": str(audio.api_error(exc, "input")),
                                          "type": "internal_error"}}
        return
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]
    yield {"type": "speech.audio.done"}


async def list_voices() -> Response:
    return json_response(audio.voice_list(get_state().speech))

