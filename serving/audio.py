"""Speech, HTTP-free: transcription requests -> engine options, transcripts -> the response
formats (json, text, srt, vtt, verbose_json, SSE events), synthesized samples -> audio files,
and `input_audio` chat parts -> their transcript as text."""

from __future__ import annotations

import base64
import binascii
import io
import wave
from collections.abc import AsyncIterator, Iterable
from typing import Any

import numpy as np

from afm.errors import InvalidRequest, ServiceUnavailable
from engine.speech import (
    LanguageError,
    Segment,
    SpeechBackend,
    SpeechBusy,
    SpeechInputError,
    SpeechLoadError,
    TranscribeOptions,
    TranscriptInfo,
    Voice,
)

OPENAI_VOICES = frozenset({"alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova",
                           "sage", "shimmer", "verse", "marin", "cedar"})
"""OpenAI's built-in voice names: spoken by the server's default voice."""

MEDIA_TYPES = {"wav": "audio/wav", "pcm": "audio/pcm", "mp3": "audio/mpeg",
               "opus": "audio/ogg", "aac": "audio/aac", "flac": "audio/flac"}
# response_format -> (container, codec, sample rate or None: the voice's)
_ENCODERS = {"mp3": ("mp3", "libmp3lame", None), "opus": ("ogg", "libopus", 48_000),
             "aac": ("adts", "aac", None), "flac": ("flac", "flac", None)}
_BIT_RATES = {"mp3": 64_000, "opus": 48_000, "aac": 64_000}


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


# ---------------------------------------------------------------- speech
def pick_voice(backend: SpeechBackend | None, requested: Any) -> Voice:
    """The voice a request names: a served voice id, an OpenAI built-in name or none (the
    default voice); 400 for another name."""
    if backend is None or not backend.voices:
        raise unavailable("speech voice")
    name = requested.get("id") if isinstance(requested, dict) else requested
    if not name or name in OPENAI_VOICES or name == "default":
        return next(iter(backend.voices.values()))
    if name not in backend.voices:
        raise InvalidRequest(f"Unknown voice {name!r}; this server speaks "
                             f"{', '.join(backend.voices)} (see GET /v1/audio/voices) and "
                             "takes OpenAI's voice names as its default voice", param="voice")
    return backend.voices[name]


def voice_list(backend: SpeechBackend | None) -> dict[str, Any]:
    if backend is None or not backend.voices:
        raise unavailable("speech voice")
    return {"object": "list", "data": [
        {"id": name, "name": name, **({"language": v.language} if v.language else {}),
         "sample_rate": v.sample_rate} for name, v in backend.voices.items()]}


def check_format(fmt: str, stream_format: str) -> None:
    if stream_format == "sse" and fmt != "pcm":
        raise InvalidRequest("stream_format 'sse' carries raw 16-bit PCM: send "
                             "response_format 'pcm' with it", param="stream_format")
    if fmt in _ENCODERS:
        try:
            import av

            av.codec.Codec(_ENCODERS[fmt][1], "w")
        except Exception as exc:  # noqa: BLE001 - no PyAV, or a build without that encoder
            raise InvalidRequest(f"response_format {fmt!r} needs an encoder this server does "
                                 f"not have ({type(exc).__name__}); use wav or pcm",
                                 param="response_format") from None


async def speech_chunks(backend: SpeechBackend, text: str, voice: Voice, speed: float
                        ) -> tuple[np.ndarray, AsyncIterator[np.ndarray]]:
    """Start synthesis and wait for its first sentence (errors before any response)."""
    try:
        chunks = backend.synthesize(text, voice, speed)
        first = await anext(chunks)  # type: ignore[call-overload]
    except StopAsyncIteration:
        raise InvalidRequest("'input' has nothing to speak", param="input") from None
    except Exception as exc:  # noqa: BLE001
        raise api_error(exc, "input") from None
    return first, chunks


def wav_bytes(samples: np.ndarray, rate: int) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())
    return buf.getvalue()


def encode(samples: np.ndarray, rate: int, fmt: str) -> bytes:
    """Mono int16 samples -> a whole file in ``fmt`` (wav, pcm, or a PyAV encoder's)."""
    if fmt == "wav":
        return wav_bytes(samples, rate)
    if fmt == "pcm":
        return samples.astype("<i2").tobytes()
    import av

    container_name, codec, out_rate = _ENCODERS[fmt]
    buf = io.BytesIO()
    with av.open(buf, "w", format=container_name) as container:
        stream = container.add_stream(codec, rate=out_rate or rate, layout="mono")
        if fmt in _BIT_RATES:
            stream.bit_rate = _BIT_RATES[fmt]
        frame = av.AudioFrame.from_ndarray(samples.astype(np.int16).reshape(1, -1),
                                           format="s16", layout="mono")
        frame.sample_rate = rate
        resampler = av.AudioResampler(format=stream.codec_context.codec.audio_formats[0].name,
                                      layout="mono", rate=out_rate or rate)
        for piece in [*resampler.resample(frame), *resampler.resample(None)]:
            container.mux(stream.encode(piece))
        container.mux(stream.encode(None))
    return buf.getvalue()


def pcm_event(samples: np.ndarray) -> dict[str, Any]:
    return {"type": "speech.audio.delta",
            "audio": base64.b64encode(samples.astype("<i2").tobytes()).decode()}


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
