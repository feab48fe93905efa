"""Speech inference: transcription with faster-whisper (CTranslate2, CPU int8) and speech with
Piper (onnxruntime), run by one worker thread behind a bounded queue.

Nothing here knows HTTP: failures are :class:`AudioDecodeError` (the input is not audio),
:class:`SpeechBusy` (the queue is full) and :class:`SpeechLoadError` (a model cannot load).
Models load on their first job, in the worker thread.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from prometheus_client import Counter, Gauge

from engine.metrics import REGISTRY

log = logging.getLogger("afm.speech")

SAMPLE_RATE_IN = 16_000  # what Whisper takes

audio_seconds = Counter("afm:audio_seconds", "Seconds of audio processed, by operation "
                        "(transcription: input audio; speech: audio synthesized).",
                        ["operation"], registry=REGISTRY)
speech_requests = Counter("afm:speech_requests", "Speech jobs finished, by operation and "
                          "outcome (ok, error, cancelled).", ["operation", "outcome"],
                          registry=REGISTRY)
speech_running = Gauge("afm:speech_requests_running", "Speech jobs running (0 or 1).",
                       registry=REGISTRY)
speech_waiting = Gauge("afm:speech_requests_waiting", "Speech jobs waiting for the worker.",
                       registry=REGISTRY)
speech_rejected = Counter("afm:speech_requests_rejected", "Speech jobs refused: queue full.",
                          registry=REGISTRY)


class SpeechInputError(ValueError):
    """A request the speech models cannot take (the client's to fix)."""


class AudioDecodeError(SpeechInputError):
    """The bytes are not audio this server can decode (or hold no samples)."""


class LanguageError(SpeechInputError):
    """A language the speech model does not know."""


class SpeechBusy(RuntimeError):
    """The speech queue is full."""


class SpeechLoadError(RuntimeError):
    """A speech model cannot be loaded."""


# ---------------------------------------------------------------------------- audio in
def decode_audio(data: bytes) -> np.ndarray:
    """Any container/codec FFmpeg (PyAV) reads -> mono float32 samples at 16 kHz."""
    if not data:
        raise AudioDecodeError("the audio is empty")
    from faster_whisper.audio import decode_audio as _decode

    try:
        samples = _decode(io.BytesIO(data), sampling_rate=SAMPLE_RATE_IN)
    except Exception as exc:  # noqa: BLE001 - PyAV raises many types for bad input
        raise AudioDecodeError(f"cannot be decoded as audio ({type(exc).__name__}: "
                               f"{str(exc)[:200]})") from None
    if samples.size == 0:
        raise AudioDecodeError("holds no audio samples")
    return samples


# ---------------------------------------------------------------------------- transcription
@dataclass
class Segment:
    id: int
    seek: int
    start: float
    end: float
    text: str
    tokens: list[int]
    temperature: float
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float
    words: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class TranscribeOptions:
    language: str | None = None  # an ISO 639-1 code, or None: detect
    prompt: str | None = None
    temperature: float | None = None  # None or 0: Whisper's fallback schedule from 0
    word_timestamps: bool = False


@dataclass
class TranscriptInfo:
    language: str
    duration: float


class Transcriber:
    """A Whisper model in CTranslate2 format (a folder with model.bin), on CPU in int8."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder, self.name = folder, name
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            from faster_whisper import WhisperModel

            try:
                self._model = WhisperModel(str(self.folder), device="cpu", compute_type="int8",
                                           cpu_threads=min(4, os.cpu_count() or 1))
            except Exception as exc:  # noqa: BLE001
                raise SpeechLoadError(f"Whisper model {self.folder} cannot load: {exc}") from exc
            log.info("speech model %s loaded from %s", self.name, self.folder)
        return self._model

    @property
    def multilingual(self) -> bool:
        return bool(self._load().model.is_multilingual)

    def transcribe(self, samples: np.ndarray, opts: TranscribeOptions
                   ) -> tuple[TranscriptInfo, Iterator[Segment]]:
        """Segments are decoded lazily, one by one, as the iterator is read."""
        model = self._load()
        temperature: Any = ((0.0, 0.2, 0.4, 0.6, 0.8, 1.0) if not opts.temperature
                            else opts.temperature)
        segments, info = model.transcribe(
            samples, language=opts.language, initial_prompt=opts.prompt or None,
            temperature=temperature, beam_size=1, word_timestamps=opts.word_timestamps,
            condition_on_previous_text=False)

        def each() -> Iterator[Segment]:
            for s in segments:
                yield Segment(
                    id=s.id - 1, seek=s.seek, start=round(s.start, 3), end=round(s.end, 3),
                    text=s.text, tokens=list(s.tokens), temperature=float(s.temperature or 0),
                    avg_logprob=s.avg_logprob, compression_ratio=s.compression_ratio,
                    no_speech_prob=s.no_speech_prob,
                    words=[{"word": w.word, "start": round(w.start, 3), "end": round(w.end, 3)}
                           for w in s.words or []])

        return TranscriptInfo(info.language, float(info.duration)), each()


# ---------------------------------------------------------------------------- synthesis
class Voice:
    """A Piper voice (an .onnx file beside its .onnx.json)."""

    def __init__(self, onnx: Path, name: str) -> None:
        self.onnx, self.name = onnx, name
        self._voice: Any = None
        import json

        config = json.loads(Path(f"{onnx}.json").read_text())
        self.sample_rate = int(config["audio"]["sample_rate"])
        self.language = (config.get("language", {}).get("code")
                         or config.get("espeak", {}).get("voice"))

    def _load(self) -> Any:
        if self._voice is None:
            from piper import PiperVoice

            try:
                self._voice = PiperVoice.load(str(self.onnx))
            except Exception as exc:  # noqa: BLE001
                raise SpeechLoadError(f"Piper voice {self.onnx} cannot load: {exc}") from exc
            log.info("voice %s loaded from %s", self.name, self.onnx)
        return self._voice

    def synthesize(self, text: str, speed: float = 1.0) -> Iterator[np.ndarray]:
        """Mono int16 samples at :attr:`sample_rate`, one array per sentence."""
        from piper import SynthesisConfig

        voice = self._load()
        scale = voice.config.length_scale / max(speed, 0.01)
        for chunk in voice.synthesize(text, SynthesisConfig(length_scale=scale)):
            yield chunk.audio_int16_array


# ---------------------------------------------------------------------------- scheduling
_END = object()


@dataclass
class _Job:
    operation: str
    work: Callable[[], Iterator[Any]]
    loop: asyncio.AbstractEventLoop
    out: asyncio.Queue[Any]
    cancelled: threading.Event = field(default_factory=threading.Event)


class _Failure:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class SpeechWorker:
    """One thread runs speech jobs in order; at most ``max_waiting`` wait behind the running
    one, and a job beyond that is refused at once (:class:`SpeechBusy`)."""

    def __init__(self, max_waiting: int) -> None:
        self.max_waiting = max_waiting
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._outstanding = 0
        self._thread = threading.Thread(target=self._run, name="afm-speech", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=30)

    def stream(self, operation: str, work: Callable[[], Iterator[Any]]) -> AsyncIterator[Any]:
        """Queue ``work`` (called in the worker thread; each item it yields is passed on) and
        read its items. Refused at once when the queue is full; closing the reader early
        stops the work at its next item."""
        with self._lock:
            if self._outstanding >= 1 + self.max_waiting:
                speech_rejected.inc()
                raise SpeechBusy(f"{self._outstanding} speech jobs are running or waiting")
            self._outstanding += 1
            speech_waiting.inc()
        job = _Job(operation, work, asyncio.get_running_loop(), asyncio.Queue())
        self._jobs.put(job)
        return self._read(job)

    async def collect(self, operation: str, work: Callable[[], Iterator[Any]]) -> list[Any]:
        """Every item of ``work`` (see :meth:`stream`)."""
        items = self.stream(operation, work)
        try:
            return [item async for item in items]
        finally:
            await items.aclose()  # type: ignore[attr-defined]

    @staticmethod
    async def _read(job: _Job) -> AsyncIterator[Any]:
        try:
            while True:
                item = await job.out.get()
                if item is _END:
                    return
                if isinstance(item, _Failure):
                    raise item.exc
                yield item
        finally:
            job.cancelled.set()

    def _post(self, job: _Job, item: Any) -> None:
        try:
            job.loop.call_soon_threadsafe(job.out.put_nowait, item)
        except RuntimeError:  # the loop is closed (shutdown)
            job.cancelled.set()

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            speech_waiting.dec()
            speech_running.inc()
            outcome, last = "ok", _END
            try:
                if job.cancelled.is_set():
                    outcome = "cancelled"
                else:
                    for item in job.work():
                        if job.cancelled.is_set():
                            outcome = "cancelled"
                            break
                        self._post(job, item)
            except BaseException as exc:  # noqa: BLE001 - handed to the reader
                outcome, last = "error", _Failure(exc)
            finally:
                speech_running.dec()
                speech_requests.labels(job.operation, outcome).inc()
                with self._lock:
                    self._outstanding -= 1  # before the reader learns the job is over
                self._post(job, last)


# ---------------------------------------------------------------------------- the backend
class SpeechBackend:
    """The loaded speech models (either may be absent) and the worker that runs them."""

    def __init__(self, transcriber: Transcriber | None, voices: dict[str, Voice],
                 max_waiting: int) -> None:
        self.transcriber = transcriber
        self.voices = voices  # the first is the default
        self.worker = SpeechWorker(max_waiting)

    def stop(self) -> None:
        self.worker.stop()

    def transcribe(self, data: bytes, opts: TranscribeOptions
                   ) -> AsyncIterator[TranscriptInfo | Segment]:
        """A TranscriptInfo, then each Segment as it is decoded."""
        transcriber = self.transcriber
        assert transcriber is not None

        def work() -> Iterator[TranscriptInfo | Segment]:
            samples = decode_audio(data)
            if opts.language not in (None, "en") and not transcriber.multilingual:
                raise LanguageError(f"the speech model {transcriber.name} is English-only")
            info, segments = transcriber.transcribe(samples, opts)
            audio_seconds.labels("transcription").inc(info.duration)
            yield info
            yield from segments

        return self.worker.stream("transcription", work)

    def synthesize(self, text: str, voice: Voice, speed: float) -> AsyncIterator[np.ndarray]:
        """Mono int16 samples at ``voice.sample_rate``, one array per sentence."""

        def work() -> Iterator[np.ndarray]:
            for samples in voice.synthesize(text, speed):
                audio_seconds.labels("speech").inc(samples.size / voice.sample_rate)
                yield samples

        return self.worker.stream("speech", work)
