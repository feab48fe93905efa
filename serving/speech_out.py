"""Text to speech, HTTP-free: the voice a request names, synthesized samples -> audio files
(wav, pcm, and mp3/opus/aac/flac through PyAV's FFmpeg encoders) or stream pieces."""

from __future__ import annotations

import asyncio
import base64
import io
import wave
from collections.abc import AsyncIterator
from typing import Any

import numpy as np

from engine.speech import SpeechBackend, Voice
from serving.audio import api_error, unavailable
from serving.errors import InvalidRequest

OPENAI_VOICES = frozenset({"alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova",
                           "sage", "shimmer", "verse", "marin", "cedar"})
"""OpenAI's built-in voice names: spoken by the server's default voice."""

MEDIA_TYPES = {"wav": "audio/wav", "pcm": "audio/pcm", "mp3": "audio/mpeg",
               "opus": "audio/ogg", "aac": "audio/aac", "flac": "audio/flac"}
# response_format -> (container, codec, sample rate or None: the voice's)
_ENCODERS = {"mp3": ("mp3", "libmp3lame", None), "opus": ("ogg", "libopus", 48_000),
             "aac": ("adts", "aac", None), "flac": ("flac", "flac", None)}
_BIT_RATES = {"mp3": 64_000, "opus": 48_000, "aac": 64_000}
STREAMED = frozenset({"pcm", "mp3", "opus", "aac"})
"""Sent as they are made; wav and flac headers need the whole length, so they come whole."""


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


class _Sink(io.RawIOBase):
    """A write-only, unseekable file: what the muxer wrote since the last :meth:`take`."""

    def __init__(self) -> None:
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.data += b
        return len(b)

    def take(self) -> bytes:
        out = bytes(self.data)
        self.data.clear()
        return out


class Encoder:
    """Mono int16 samples -> ``fmt`` through PyAV, fed piece by piece; each call returns the
    bytes the container wrote so far (mp3, ADTS and Ogg write as they go)."""

    def __init__(self, rate: int, fmt: str) -> None:
        import av

        container_name, codec, out_rate = _ENCODERS[fmt]
        self.rate, self.sink = rate, _Sink()
        self.container = av.open(self.sink, "w", format=container_name)
        self.stream = self.container.add_stream(codec, rate=out_rate or rate, layout="mono")
        if fmt in _BIT_RATES:
            self.stream.bit_rate = _BIT_RATES[fmt]
        self.resampler = av.AudioResampler(
            format=self.stream.codec_context.codec.audio_formats[0].name, layout="mono",
            rate=out_rate or rate)

    def feed(self, samples: np.ndarray) -> bytes:
        import av

        frame = av.AudioFrame.from_ndarray(samples.astype(np.int16).reshape(1, -1),
                                           format="s16", layout="mono")
        frame.sample_rate = self.rate
        for piece in self.resampler.resample(frame):
            self.container.mux(self.stream.encode(piece))
        return self.sink.take()

    def finish(self) -> bytes:
        for piece in self.resampler.resample(None):
            self.container.mux(self.stream.encode(piece))
        self.container.mux(self.stream.encode(None))
        self.container.close()
        return self.sink.take()


def encode(samples: np.ndarray, rate: int, fmt: str) -> bytes:
    """Mono int16 samples -> a whole file in ``fmt`` (wav, pcm, or a PyAV encoder's)."""
    if fmt == "wav":
        return wav_bytes(samples, rate)
    if fmt == "pcm":
        return samples.astype("<i2").tobytes()
    encoder = Encoder(rate, fmt)
    return encoder.feed(samples) + encoder.finish()


async def encoded_stream(first: np.ndarray, chunks: AsyncIterator[np.ndarray], rate: int,
                         fmt: str) -> AsyncIterator[bytes]:
    """A STREAMED format, sent sentence by sentence as each is synthesized and encoded."""
    encoder = await asyncio.to_thread(Encoder, rate, fmt)
    try:
        yield await asyncio.to_thread(encoder.feed, first)
        async for chunk in chunks:
            if data := await asyncio.to_thread(encoder.feed, chunk):
                yield data
        yield await asyncio.to_thread(encoder.finish)
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]


async def speech_file(first: np.ndarray, chunks: AsyncIterator[np.ndarray], rate: int,
                      fmt: str) -> bytes:
    """Every sentence's samples, encoded as one file (off the event loop)."""
    pieces = [first]
    try:
        pieces += [c async for c in chunks]
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]
    return await asyncio.to_thread(encode, np.concatenate(pieces), rate, fmt)


def pcm_event(samples: np.ndarray) -> dict[str, Any]:
    return {"type": "speech.audio.delta",
            "audio": base64.b64encode(samples.astype("<i2").tobytes()).decode()}


async def pcm_stream(first: Any, chunks: AsyncIterator[Any]) -> AsyncIterator[bytes]:
    try:
        yield first.astype("<i2").tobytes()
        async for chunk in chunks:
            yield chunk.astype("<i2").tobytes()
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]


async def speech_events(first: Any, chunks: AsyncIterator[Any]
                         ) -> AsyncIterator[dict[str, Any]]:
    try:
        yield pcm_event(first)
        async for chunk in chunks:
            yield pcm_event(chunk)
    except Exception as exc:  # noqa: BLE001 - the stream has started: report in band
        yield {"type": "error", "error": {"message": str(api_error(exc, "input")),
                                          "type": "internal_error"}}
        return
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]
    yield {"type": "speech.audio.done"}
