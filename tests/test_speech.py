"""Speech on Linux through the official `openai` SDK against a real `afm serve` with the shipped
models (Whisper tiny.en, the Piper voice joe; tools/setup.sh fetches them): speech made by
`audio.speech.create` transcribes back to its sentence (word error rate printed), every
transcription format validates against the contract, `input_audio` chat parts reach the chat
model's prompt as text, bad audio is a 400 and the server keeps serving, a full speech queue is
503 `server_busy`, and a server without speech models answers 503 `speech_unavailable`."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
import wave
from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest

from afm.speech_models import DEFAULT_SPEECH_MODEL, DEFAULT_VOICE, shipped_path
from tests.conftest import ROOT, LiveServer
from tests.contract_support import component, schema_errors, stream_errors
from tests.test_api_http import assert_envelope
from tests.waiting import eventually
from tools.bench_lib.speech_text import SENTENCES as ALL_SENTENCES
from tools.bench_lib.speech_text import word_edits

SENTENCES = ALL_SENTENCES[:3]
MAX_WER = 0.1  # over all sentences: at most one word in ten wrong


@pytest.fixture(scope="module")
def speech(live_server: Callable[..., LiveServer]) -> LiveServer:
    for name in (DEFAULT_SPEECH_MODEL, DEFAULT_VOICE):
        if shipped_path(name) is None:
            pytest.fail(f"speech model {name} is not fetched: run tools/setup.sh "
                        "(python -m afm.speech_models)")
    # no job may wait behind the running one: test_full_queue_is_503 needs that; the other
    # tests send one request at a time
    return live_server("--speech-queue", "0")


@pytest.fixture(scope="module")
def client(speech: LiveServer) -> Any:
    return speech.openai(timeout=120)


@pytest.fixture(scope="module")
def spoken(client: Any) -> dict[str, bytes]:
    """Each sentence as the wav `audio.speech.create` makes."""
    return {s: client.audio.speech.create(model="tts-1", voice="alloy", input=s,
                                          response_format="wav").content for s in SENTENCES}


def audio_seconds(server: LiveServer) -> dict[str, float]:
    text = httpx.get(server.url + "/metrics").text
    return {m[0]: float(m[1]) for m in
            re.findall(r'^afm:audio_seconds_total\{operation="(\w+)"\} (\S+)$', text, re.M)}


def test_speech_transcribes_back_to_its_sentence(speech: LiveServer, client: Any,
                                                 spoken: dict[str, bytes]) -> None:
    before = audio_seconds(speech)
    edits = words = 0
    seconds = 0.0
    for sentence, wav in spoken.items():
        with wave.open(io.BytesIO(wav)) as w:  # a whole, well-formed wav
            assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 22050)
            assert 0.5 < w.getnframes() / 22050 < 10
            assert len(wav) == 44 + w.getnframes() * 2
        result = client.audio.transcriptions.create(model="whisper-1", file=("s.wav", wav),
                                                    language="en")
        e, n = word_edits(sentence, result.text)
        print(f"WER {e}/{n}: {sentence!r} -> {result.text!r}")
        edits, words, seconds = edits + e, words + n, seconds + result.usage.seconds
    print(f"word error rate over {len(SENTENCES)} sentences: {edits / words:.3f}")
    assert edits / words <= MAX_WER
    after = audio_seconds(speech)
    assert after["transcription"] - before.get("transcription", 0) == pytest.approx(seconds,
                                                                                    abs=0.01)
    assert after["speech"] > 0


def test_formats_validate_against_contract(client: Any, spoken: dict[str, bytes]) -> None:
    wav = spoken[SENTENCES[0]]
    verbose = client.audio.transcriptions.create(
        model="whisper-1", file=("s.wav", wav), response_format="verbose_json",
        timestamp_granularities=["segment", "word"]).model_dump(exclude_none=True)
    assert schema_errors(component("TranscriptionVerbose"), verbose) == []
    assert verbose["segments"] and verbose["words"] and verbose["language"] == "en"
    assert 0 <= verbose["segments"][0]["start"] < verbose["segments"][-1]["end"] <= (
        verbose["duration"] + 0.5)
    assert [w["word"].strip(" .").lower() for w in verbose["words"]][:3] == [
        "the", "quick", "brown"]
    plain = client.audio.transcriptions.create(model="whisper-1", file=("s.wav", wav))
    assert schema_errors(component("Transcription"), plain.model_dump(exclude_none=True)) == []
    assert plain.text == verbose["text"]
    cue = r"(\d\d:\d\d:\d\d)[{sep}](\d\d\d) --> (\d\d:\d\d:\d\d)[{sep}](\d\d\d)\n(.+)\n\n"
    srt = client.audio.transcriptions.create(model="whisper-1", file=("s.wav", wav),
                                             response_format="srt")
    assert re.fullmatch(r"(\d+\n" + cue.format(sep=",") + ")+", srt), srt
    vtt = client.audio.transcriptions.create(model="whisper-1", file=("s.wav", wav),
                                             response_format="vtt")
    assert re.fullmatch(r"WEBVTT\n\n(" + cue.format(sep=".") + ")+", vtt), vtt
    assert re.findall(r"\n(.+)\n\n", vtt)[0] == verbose["segments"][0]["text"].strip()
    text = client.audio.transcriptions.create(model="whisper-1", file=("s.wav", wav),
                                              response_format="text")
    assert text.strip() == plain.text


def test_streamed_transcription(speech: LiveServer, client: Any,
                                spoken: dict[str, bytes]) -> None:
    wav = spoken[SENTENCES[1]]
    events = list(client.audio.transcriptions.create(model="whisper-1", file=("s.wav", wav),
                                                     stream=True))
    assert [e.type for e in events[:-1]] == ["transcript.text.delta"] * (len(events) - 1)
    assert events[-1].type == "transcript.text.done"
    assert "".join(e.delta for e in events[:-1]).strip() == events[-1].text
    raw = httpx.post(speech.url + "/v1/audio/transcriptions", timeout=120,
                     files={"file": ("s.wav", wav)}, data={"stream": "true"})
    assert raw.headers["content-type"].startswith("text/event-stream")
    assert stream_errors("post", "/v1/audio/transcriptions", raw.text) == []


def test_speech_formats_and_streaming(speech: LiveServer, client: Any) -> None:
    url = speech.url + "/v1/audio/speech"
    text = "One sentence here. And a second one there."
    with httpx.stream("POST", url, json={"input": text, "response_format": "pcm"},
                      timeout=120) as r:
        assert r.status_code == 200 and r.headers["x-sample-rate"] == "22050"
        assert r.headers.get("transfer-encoding") == "chunked"
        pcm = b"".join(r.iter_raw())
    assert len(pcm) % 2 == 0 and len(pcm) > 22050  # over half a second of 16-bit samples
    sse = httpx.post(url, json={"input": text, "response_format": "pcm", "stream_format": "sse"},
                     timeout=120)
    assert stream_errors("post", "/v1/audio/speech", sse.text) == []
    assert sse.text.count("speech.audio.delta") >= 4  # two sentences: event name and type
    magic = {"mp3": (b"ID3", b"\xff\xf3", b"\xff\xfb"), "opus": (b"OggS",), "flac": (b"fLaC",),
             "aac": (b"\xff\xf1", b"\xff\xf9")}
    for fmt, starts in magic.items():
        audio = client.audio.speech.create(model="tts-1", voice="en_US-joe-medium",
                                           input="Hello there.", response_format=fmt).content
        assert audio.startswith(starts), (fmt, audio[:8])
    flac = client.audio.speech.create(model="tts-1", voice="alloy", input=SENTENCES[0],
                                      response_format="flac", speed=1.5).content
    heard = client.audio.transcriptions.create(model="whisper-1", file=("s.flac", flac))
    assert word_edits(SENTENCES[0], heard.text)[0] <= 1
    with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice="alloy", input=text, response_format="mp3") as streamed:
        assert streamed.headers.get("transfer-encoding") == "chunked"
        mp3 = b"".join(streamed.iter_bytes())
    heard = client.audio.transcriptions.create(model="whisper-1", file=("s.mp3", mp3))
    assert word_edits(text, heard.text)[0] <= 1
    voices = httpx.get(speech.url + "/v1/audio/voices").json()
    assert voices["data"][0]["id"] == DEFAULT_VOICE and voices["data"][0]["sample_rate"] == 22050


def _chat_messages(part: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "What does it say?"}, part]}]


def test_input_audio_part_reaches_the_prompt_as_text(speech: LiveServer, client: Any,
                                                     spoken: dict[str, bytes]) -> None:
    wav = spoken[SENTENCES[2]]
    transcript = client.audio.transcriptions.create(model="whisper-1", file=("s.wav", wav)).text
    assert word_edits(SENTENCES[2], transcript)[0] <= 1
    part = {"type": "input_audio",
            "input_audio": {"data": base64.b64encode(wav).decode(), "format": "wav"}}
    answer = client.chat.completions.create(model="afm", messages=_chat_messages(part),
                                            max_tokens=2)
    assert answer.choices[0].finish_reason in ("stop", "length")
    # the same prompt with the transcript typed in: exactly as many prompt tokens
    typed = [{"role": "user", "content": "What does it say?\n" + transcript}]
    counted = httpx.post(speech.url + "/v1/tokenize", json={"messages": typed}).json()
    assert answer.usage.prompt_tokens == counted["count"]
    without = httpx.post(speech.url + "/v1/tokenize", json={"messages": [
        {"role": "user", "content": "What does it say?"}]}).json()
    assert counted["count"] - without["count"] >= len(transcript.split())
    bad = {"type": "input_audio", "input_audio": {"data": base64.b64encode(b"not audio").decode(),
                                                  "format": "wav"}}
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="afm", messages=_chat_messages(bad), max_tokens=2)
    assert "messages[0].content[1]" in info.value.body["message"]
    assert info.value.body["param"] == "messages[0].content[1].input_audio.data"


def _png() -> bytes:
    return base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
                            "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def test_bad_audio_is_400_and_the_server_keeps_serving(speech: LiveServer,
                                                       spoken: dict[str, bytes]) -> None:
    url = speech.url + "/v1/audio/transcriptions"
    header_only = spoken[SENTENCES[0]][:44]
    for name, data in (("empty.wav", b""), ("junk.wav", b"RIFF0000WAVEjunk"),
                       ("image.png", _png()), ("notes.txt", b"hello world\n" * 50),
                       ("header.wav", header_only)):
        err = assert_envelope(httpx.post(url, files={"file": (name, data)}, timeout=60), 400,
                              "invalid_request_error")
        assert err["param"] == "file", (name, err)
    wav = spoken[SENTENCES[0]]
    for data, param in (({"language": "xx"}, "language"),
                        ({"language": "de"}, "language"),  # tiny.en is English-only
                        ({"response_format": "srt", "stream": "true"}, "stream"),
                        ({"timestamp_granularities[]": "word"}, "timestamp_granularities")):
        err = assert_envelope(httpx.post(url, files={"file": ("s.wav", wav)}, data=data,
                                         timeout=60), 400, "invalid_request_error")
        assert err["param"] == param
    speech_url = speech.url + "/v1/audio/speech"
    for body, param in (({"input": "hi", "voice": "nobody"}, "voice"),
                        ({"input": "hi", "response_format": "wav", "stream_format": "sse"},
                         "stream_format")):
        err = assert_envelope(httpx.post(speech_url, json=body, timeout=60), 400,
                              "invalid_request_error")
        assert err["param"] == param
    ok = httpx.post(url, files={"file": ("s.wav", wav)}, timeout=60)
    assert ok.status_code == 200 and "fox" in ok.json()["text"]
    assert httpx.get(speech.url + "/health").json()["status"] == "healthy"


def test_full_queue_is_503_server_busy(speech: LiveServer) -> None:
    """With --speech-queue 0, a job while another runs is refused; a streamed job whose
    client goes away stops at its next sentence and frees the worker."""
    long_text = " ".join(f"This is sentence number {i} of a long text." for i in range(30))

    def metric(name: str) -> float:
        found = re.search(rf"^{re.escape(name)} (\S+)$", httpx.get(speech.url + "/metrics").text,
                          re.M)
        return float(found.group(1)) if found else 0.0

    cancelled = 'afm:speech_requests_total{operation="speech",outcome="cancelled"}'
    before = metric(cancelled)
    with httpx.stream("POST", speech.url + "/v1/audio/speech", timeout=120,
                      json={"input": long_text, "response_format": "pcm"}) as hog:
        assert hog.status_code == 200
        chunks = hog.iter_raw()  # kept: dropping the iterator would close the connection
        assert next(chunks)  # the first sentence arrived: the job is running
        assert metric("afm:speech_requests_running") == 1
        busy = httpx.post(speech.url + "/v1/audio/speech", json={"input": "Hello."}, timeout=60)
        err = assert_envelope(busy, 503, "server_busy")
        assert busy.headers["retry-after"] == "2" and err["code"] == "server_busy"
        chunks.close()
    eventually(lambda: metric("afm:speech_requests_running") == 0
               and metric(cancelled) == before + 1, 60, "the abandoned speech job stops",
               interval=0.1)
    again = httpx.post(speech.url + "/v1/audio/speech", json={"input": "Hello."}, timeout=60)
    assert again.status_code == 200 and again.content[:4] == b"RIFF"


def test_without_speech_models_503(live_server: Callable[..., LiveServer]) -> None:
    server = live_server("--no-speech")
    r = httpx.post(server.url + "/v1/audio/speech", json={"input": "hello"})
    assert assert_envelope(r, 503, "speech_unavailable")["code"] == "speech_unavailable"
    assert_envelope(httpx.get(server.url + "/v1/audio/voices"), 503, "speech_unavailable")
    r = httpx.post(server.url + "/v1/audio/transcriptions", files={"file": ("a.wav", b"RIFF")})
    assert_envelope(r, 503, "speech_unavailable")
    # still validated first
    assert_envelope(httpx.post(server.url + "/v1/audio/speech", json={"voice": "x"}), 400,
                    "invalid_request_error")
    assert_envelope(httpx.post(server.url + "/v1/audio/transcriptions",
                               files={"file": ("a.wav", b"")}), 400, "invalid_request_error")
    part = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    r = httpx.post(server.url + "/v1/chat/completions",
                   json={"messages": _chat_messages(part), "max_tokens": 1})
    err = assert_envelope(r, 400, "invalid_request_error")
    assert "input_audio" in err["message"] and "messages[0].content[1]" in err["message"]


def test_bad_speech_flag_exits_5(tmp_path: Any) -> None:
    nowhere = str(tmp_path / "nowhere")
    proc = subprocess.run([sys.executable, "-m", "afm", "serve", "--port", "0", "--data-dir",
                           str(tmp_path / "data"), "--speech-model", nowhere], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 5, proc.stderr
    assert "--speech-model" in proc.stderr and nowhere in proc.stderr


def test_speech_models_module_lists_pins() -> None:
    from afm.speech_models import SHIPPED

    for model in SHIPPED.values():
        for wheel in model.wheels:
            assert re.fullmatch(r"[a-z0-9-]+==\d+\.\d+\.\d+", wheel.requirement)
            assert re.fullmatch(r"[0-9a-f]{64}", wheel.sha256)
    ready = json.loads((shipped_path(DEFAULT_SPEECH_MODEL) / ".afm-speech-ready").read_text())
    assert ready["wheels"] == {w.requirement: w.sha256
                               for w in SHIPPED[DEFAULT_SPEECH_MODEL].wheels}
