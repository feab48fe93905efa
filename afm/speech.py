"""Which speech models a server runs, chosen at start-up from `--speech-model`, `--tts-voice`
and `--no-speech` (see afm.speech_models for the shipped ones). A bad flag value is a
:class:`StartupError`; a shipped default that was never fetched leaves that half of speech off
(its routes answer 503 ``speech_unavailable``)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from afm.settings import Settings
from afm.speech_models import DEFAULT_SPEECH_MODEL, DEFAULT_VOICE, SHIPPED, shipped_path
from afm.startup import EXIT_MODEL_NOT_FOUND, StartupError

if TYPE_CHECKING:
    from engine.speech import SpeechBackend

log = logging.getLogger("afm")

SPEECH_ALIASES = {"tiny.en": "whisper-tiny.en", "base": "whisper-base",
                  "joe": "en_US-joe-medium"}
FETCH_HINT = "fetch the shipped models with `python -m afm.speech_models --all`"


def _shipped(value: str, kind: str) -> Path | None:
    """The folder of shipped model ``value`` (a name or alias) of ``kind``; None if it is not
    a shipped name; StartupError when it is one that was never fetched."""
    name = SPEECH_ALIASES.get(value, value)
    if name not in SHIPPED or SHIPPED[name].kind != kind:
        return None
    folder = shipped_path(name)
    if folder is None:
        raise StartupError(EXIT_MODEL_NOT_FOUND,
                           f"afm: speech model {value} is not in the cache; {FETCH_HINT}")
    return folder


def resolve_speech_model(value: str | None) -> tuple[str, Path] | None:
    """(name, CTranslate2 folder) of the transcription model; None when there is none."""
    if value is None:
        folder = shipped_path(DEFAULT_SPEECH_MODEL)
        return (DEFAULT_SPEECH_MODEL, folder) if folder else None
    folder = _shipped(value, "whisper")
    if folder is not None:
        return SPEECH_ALIASES.get(value, value), folder
    path = Path(value).expanduser()
    if not (path / "model.bin").is_file() or not (path / "config.json").is_file():
        raise StartupError(EXIT_MODEL_NOT_FOUND,
                           f"afm: --speech-model {value} is neither a shipped model "
                           f"({', '.join(n for n, m in SHIPPED.items() if m.kind == 'whisper')}) "
                           "nor a CTranslate2 Whisper folder (model.bin, config.json, "
                           "tokenizer.json)")
    return path.resolve().name, path.resolve()


def resolve_voice(value: str) -> tuple[str, Path]:
    """(name, .onnx path) of a Piper voice: a shipped name or an .onnx beside its .onnx.json."""
    folder = _shipped(value, "piper")
    if folder is not None:
        name = SPEECH_ALIASES.get(value, value)
        return name, folder / f"{name}.onnx"
    path = Path(value).expanduser()
    if path.suffix != ".onnx" or not path.is_file() or not Path(f"{path}.json").is_file():
        raise StartupError(EXIT_MODEL_NOT_FOUND,
                           f"afm: --tts-voice {value} is neither a shipped voice "
                           f"({DEFAULT_VOICE}) nor a Piper .onnx voice with its .onnx.json "
                           "beside it")
    return path.stem, path.resolve()


def build_speech(settings: Settings) -> SpeechBackend | None:
    """The speech backend these settings choose, or None (--no-speech, or nothing cached)."""
    if settings.no_speech:
        return None
    model = resolve_speech_model(settings.speech_model)
    voices: dict[str, Path] = {}
    for value in settings.tts_voices or []:
        name, onnx = resolve_voice(value)
        voices.setdefault(name, onnx)
    if not settings.tts_voices and (folder := shipped_path(DEFAULT_VOICE)) is not None:
        voices[DEFAULT_VOICE] = folder / f"{DEFAULT_VOICE}.onnx"
    if model is None and not voices:
        log.info("speech: no model (%s); the audio routes answer 503", FETCH_HINT)
        return None
    from engine.speech import SpeechBackend, Transcriber, Voice

    try:
        loaded = {name: Voice(onnx, name) for name, onnx in voices.items()}
    except (OSError, ValueError, KeyError) as exc:
        raise StartupError(EXIT_MODEL_NOT_FOUND,
                           f"afm: a Piper voice's .onnx.json cannot be read: {exc}") from None
    log.info("speech: transcription %s, voices %s (loaded on first use)",
             model[0] if model else "none", ", ".join(loaded) or "none")
    return SpeechBackend(Transcriber(model[1], model[0]) if model else None, loaded,
                         settings.speech_queue)
