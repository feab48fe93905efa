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
from generated.models import SpeechRequest
from handlers.replies import SSE_HEADERS, json_response, sse_line
from serving import audio, speech_out


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


async def create_transcription(body: dict[str, Any] | None = None, file: Any = None,
                               **extra: Any) -> Response:
    form = {**extra, **(body or {})}
    if file is None:
        raise InvalidRequest("'file' is required", param="file")
    state = get_state()
    data = await _file_bytes(file, state.settings.max_audio_body_bytes)
    if not data:
        raise InvalidRequest("'file' is empty", param="file")
    fmt, stream, words, opts = audio.transcription_request(form)
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
    voice = speech_out.pick_voice(backend, body.get("voice"))
    speech_out.check_format(fmt, stream_format)
    assert backend is not None
    first, chunks = await speech_out.speech_chunks(backend, req.input, voice, req.speed or 1.0)
    if stream_format == "sse":
        return _sse(speech_out.speech_events(first, chunks))
    if fmt == "pcm":  # raw samples: sent sentence by sentence as they are synthesized
        return StreamingResponse(speech_out.pcm_stream(first, chunks),
                                 media_type=speech_out.MEDIA_TYPES["pcm"],
                                 headers={"X-Sample-Rate": str(voice.sample_rate)})
    if fmt in speech_out.STREAMED:
        return StreamingResponse(speech_out.encoded_stream(first, chunks, voice.sample_rate, fmt),
                                 media_type=speech_out.MEDIA_TYPES[fmt])
    data = await speech_out.speech_file(first, chunks, voice.sample_rate, fmt)
    return Response(data, media_type=speech_out.MEDIA_TYPES[fmt])


async def list_voices() -> Response:
    return json_response(speech_out.voice_list(get_state().speech))

