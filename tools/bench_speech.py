"""Speech round trip, measured: each fixed sentence spoken by the shipped Piper voice, then
transcribed by each fetched Whisper model; prints word error rate and real-time factors.

    PYTHONPATH=$PWD .venv/bin/python tools/bench_speech.py [--models whisper-tiny.en,whisper-base]
"""

from __future__ import annotations

import argparse
import asyncio
import time

import numpy as np

from afm.speech import resolve_speech_model, resolve_voice
from engine.speech import SpeechBackend, TranscribeOptions, Transcriber, Voice
from serving.speech_out import wav_bytes
from tools.bench_lib.speech_text import SENTENCES, word_edits


async def run(models: list[str]) -> None:
    name, onnx = resolve_voice("en_US-joe-medium")
    voice = Voice(onnx, name)
    tts = SpeechBackend(None, {name: voice}, 8)
    wavs, synth_s, audio_s = [], 0.0, 0.0
    for sentence in SENTENCES:
        start = time.perf_counter()
        samples = np.concatenate([c async for c in tts.synthesize(sentence, voice, 1.0)])
        synth_s += time.perf_counter() - start
        audio_s += samples.size / voice.sample_rate
        wavs.append(wav_bytes(samples, voice.sample_rate))
    tts.stop()
    print(f"speech: {len(SENTENCES)} sentences, {audio_s:.1f} s of audio in {synth_s:.1f} s "
          f"(real-time factor {synth_s / audio_s:.2f}; first includes loading the voice)\n")
    print("| model | WER | words | transcribe s | audio s | RTF |")
    print("|---|---|---|---|---|---|")
    for value in models:
        resolved = resolve_speech_model(value)
        assert resolved is not None
        stt = SpeechBackend(Transcriber(resolved[1], resolved[0]), {}, 8)
        total_edits = total_words = 0
        spent = 0.0
        for sentence, wav in zip(SENTENCES, wavs, strict=True):
            start = time.perf_counter()
            items = [x async for x in stt.transcribe(wav, TranscribeOptions(language="en"))]
            spent += time.perf_counter() - start
            e, n = word_edits(sentence, "".join(s.text for s in items[1:]))
            total_edits, total_words = total_edits + e, total_words + n
        stt.stop()
        print(f"| {resolved[0]} | {total_edits / total_words:.3f} | {total_words} | "
              f"{spent:.1f} | {audio_s:.1f} | {spent / audio_s:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="whisper-tiny.en",
                        help="comma-separated --speech-model values")
    asyncio.run(run(parser.parse_args().models.split(",")))


if __name__ == "__main__":
    main()
