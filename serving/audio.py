"""Transcription, HTTP-free: form fields -> engine options, transcripts -> the response
formats (json, text, srt, vtt, verbose_json, SSE events), `input_audio` chat parts -> their
transcript as text; and how engine speech failures reach clients (serving.speech_out: speech)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import AsyncIterator, Iterable
from typing import Any

from engine.speech import (
    LanguageError,
    Segment,
    SpeechBackend,
    SpeechBusy,
    SpeechInputError,
    SpeechLoadError,
    TranscribeOptions,
    TranscriptInfo,
)
from serving.errors import InvalidRequest, ServiceUnavailable


def unavailable(what: str) -> ServiceUnavailable:
    return ServiceUnavailable(f"No {what} is loaded on this server (started with --no-speech, "
                              "or the shipped speech models were not fetched: python -m "
                              "afm.speech_models)", type="speech_unavailable",
                              code="speech_unavailable")


def api_error(exc: BaseException, param: str = "file") -> BaseException:
    """An engine speech failure as the API error a client gets (others unchanged)."""
    if isinstance(exc, SpeechBusy):
        return ServiceUnavailable(f"The speech queue is full ({exc}); retry later",
                                  type="server_busy", code="server_busy",
                                  headers={"Retry-After": "2"})
    if isinstance(exc, LanguageError):
        return InvalidRequest(f"'language': {exc}", param="language")
    if isinstance(exc, SpeechInputError):
        return InvalidRequest(f"'{param}' {exc}", param=param)
    if isinstance(exc, SpeechLoadError):
        return ServiceUnavailable(str(exc), type="speech_unavailable", code="speech_unavailable")
    return exc


# ---------------------------------------------------------------- transcription
def language_code(value: str | None, param: str = "language") -> str | None:
    """`en`, `en-US`, `EN_us` -> `en` (Whisper's ISO 639-1 codes); 400 for an unknown one."""
    if not value:
        return None
    from faster_whisper.tokenizer import _LANGUAGE_CODES

    code = value.replace("_", "-").split("-")[0].lower()
    if code not in _LANGUAGE_CODES:
        raise InvalidRequest(f"'{param}' {value!r} is not a language Whisper knows (ISO 639-1 "
                             "codes such as en, de, fr)", param=param)
    return code


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


STREAMABLE = ("json", "text")


def transcription_request(form: dict[str, Any]) -> tuple[str, bool, bool, TranscribeOptions]:
    """A transcription form's fields -> (response_format, stream, word timestamps, options);
    400 for a combination the contract's schema cannot state."""
    fmt = _field(form, "response_format") or "json"
    stream = _flag(form, "stream")
    if stream and fmt not in STREAMABLE:
        raise InvalidRequest(f"stream=true sends text events: response_format must be json or "
                             f"text, not {fmt!r}", param="stream")
    words = "word" in _granularities(form)
    if words and fmt != "verbose_json":
        raise InvalidRequest("timestamp_granularities needs response_format verbose_json",
                             param="timestamp_granularities")
    opts = TranscribeOptions(language=language_code(_field(form, "language")),
                             prompt=_field(form, "prompt") or None,
                             temperature=_number(form, "temperature"), word_timestamps=words)
    return fmt, stream, words, opts


async def open_transcript(backend: SpeechBackend, data: bytes, opts: TranscribeOptions,
                          param: str = "file"
                          ) -> tuple[TranscriptInfo, AsyncIterator[Segment | TranscriptInfo]]:
    """Start a transcription and wait for its first result (the audio decoded and its
    language known), so that bad audio is a 400 before any response starts."""
    if backend.transcriber is None:
        raise unavailable("transcription model")
    try:
        events = backend.transcribe(data, opts)
        info = await anext(events)  # type: ignore[call-overload]
    except Exception as exc:  # noqa: BLE001 - mapped, or re-raised unchanged
        raise api_error(exc, param) from None
    assert isinstance(info, TranscriptInfo)
    return info, events


async def read_segments(events: AsyncIterator[Any], param: str = "file") -> list[Segment]:
    try:
        return [s async for s in events]
    except Exception as exc:  # noqa: BLE001
        raise api_error(exc, param) from None
    finally:
        await events.aclose()  # type: ignore[attr-defined]


def transcript_text(segments: Iterable[Segment]) -> str:
    return "".join(s.text for s in segments).strip()


def _clock(seconds: float, sep: str) -> str:
    ms = int(round(seconds * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


def srt(segments: list[Segment]) -> str:
    return "".join(f"{i}\n{_clock(s.start, ',')} --> {_clock(s.end, ',')}\n{s.text.strip()}\n\n"
                   for i, s in enumerate(segments, 1))


def vtt(segments: list[Segment]) -> str:
    return "WEBVTT\n\n" + "".join(
        f"{_clock(s.start, '.')} --> {_clock(s.end, '.')}\n{s.text.strip()}\n\n"
        for s in segments)


def _usage(info: TranscriptInfo) -> dict[str, Any]:
    return {"type": "duration", "seconds": round(info.duration, 3)}


def transcription_body(fmt: str, info: TranscriptInfo, segments: list[Segment],
                       words: bool) -> tuple[dict[str, Any] | str, str]:
    """(body, media type) of a finished transcript in ``fmt``."""
    text = transcript_text(segments)
    if fmt == "text":
        return text + "\n", "text/plain"
    if fmt == "srt":
        return srt(segments), "text/plain"
    if fmt == "vtt":
        return vtt(segments), "text/vtt"
    if fmt == "verbose_json":
        body: dict[str, Any] = {
            "task": "transcribe", "language": info.language,
            "duration": round(info.duration, 3), "text": text,
            "segments": [{"id": s.id, "seek": s.seek, "start": s.start, "end": s.end,
                          "text": s.text, "tokens": s.tokens, "temperature": s.temperature,
                          "avg_logprob": s.avg_logprob,
                          "compression_ratio": s.compression_ratio,
                          "no_speech_prob": s.no_speech_prob} for s in segments],
            "usage": _usage(info)}
        if words:
            body["words"] = [w for s in segments for w in s.words]
        return body, "application/json"
    return {"text": text, "language": info.language, "usage": _usage(info)}, "application/json"


async def transcript_events(events: AsyncIterator[Any]) -> AsyncIterator[dict[str, Any]]:
    """OpenAI's streamed transcription: a `transcript.text.delta` per segment, then
    `transcript.text.done` with the whole text (an `error` event if it fails midway)."""
    parts: list[str] = []
    try:
        async for segment in events:
            delta = segment.text if parts else segment.text.lstrip()
            parts.append(delta)
            yield {"type": "transcript.text.delta", "delta": delta,
                   "segment_id": f"seg_{segment.id}"}
    except Exception as exc:  # noqa: BLE001 - the stream has started: report in band
        err = api_error(exc)
        yield {"type": "error", "error": {"message": str(err), "type": "internal_error"}}
        return
    finally:
        await events.aclose()  # type: ignore[attr-defined]
    yield {"type": "transcript.text.done", "text": "".join(parts).strip()}


# ---------------------------------------------------------------- chat input_audio parts
def _has_audio(messages: list[Any]) -> bool:
    return any(isinstance(m, dict) and isinstance(m.get("content"), list)
               and any(isinstance(p, dict) and p.get("type") == "input_audio"
                       for p in m["content"]) for m in messages)


async def _part_transcript(backend: SpeechBackend, part: dict[str, Any], where: str) -> str:
    audio = part.get("input_audio") or {}
    data = audio.get("data") or ""
    if "," in data and data.startswith("data:"):
        data = data.split(",", 1)[1]
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidRequest(f"{where} (input_audio): 'data' is not base64",
                             param=f"{where}.input_audio.data") from None
    opts = TranscribeOptions(language=language_code(audio.get("language"),
                                                    f"{where}.input_audio.language"))
    try:
        info, events = await open_transcript(backend, raw, opts, f"{where}.input_audio.data")
    except InvalidRequest as exc:
        raise InvalidRequest(f"{where} (input_audio): {exc.message}", param=exc.param) from None
    return transcript_text(await read_segments(events))


async def transcribe_input_audio(backend: SpeechBackend | None, messages: list[Any]
                                 ) -> list[Any]:
    """Chat messages with each `input_audio` part replaced by a text part holding its
    transcript (on its own line among other parts). Unchanged without a speech model: the
    translator then refuses the part as one a text-only model cannot take."""
    if backend is None or backend.transcriber is None or not _has_audio(messages):
        return messages
    out = []
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            out.append(message)
            continue
        parts = []
        for j, part in enumerate(content):
            if isinstance(part, dict) and part.get("type") == "input_audio":
                text = await _part_transcript(backend, part, f"messages[{i}].content[{j}]")
                text = ("\n" if j else "") + text + ("\n" if j < len(content) - 1 else "")
                part = {"type": "text", "text": text}
            parts.append(part)
        out.append({**message, "content": parts})
    return out
