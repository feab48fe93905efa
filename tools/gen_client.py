"""Generate the Python client SDK in ``clients/python/`` from ``openapi/afm.yaml``.

The folder is rebuilt from scratch by openapi-python-client, never edited by hand::

    python tools/gen_client.py           # regenerate clients/python/
    python tools/gen_client.py --check   # exit 1 when clients/python/ differs from the contract

Output depends on the generator's version (and on ruff's, which formats it), so both are pinned
and checked here. Generation runs with ``--fail-on-warning``: a contract construct the generator
cannot express fails the build instead of silently dropping a model.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from tree_drift import tree_drift

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "afm.yaml"
OUT = ROOT / "clients" / "python"
GENERATOR = "openapi-python-client"
GENERATOR_VERSION = "0.29.1"

CONFIG = {
    "project_name_override": "afm-client",
    "package_name_override": "afm_client",
    # audio/wav is binary; the generator knows binary only by the generic media type.
    "content_type_overrides": {"audio/wav": "application/octet-stream"},
}


def _bin(name: str) -> str:
    """A console script of this interpreter's environment."""
    return str(Path(sys.executable).parent / name)


def _check_version() -> None:
    try:
        found = version(GENERATOR)
    except PackageNotFoundError:
        sys.exit(f"{GENERATOR}=={GENERATOR_VERSION} is not installed")
    if found != GENERATOR_VERSION:
        sys.exit(f"{GENERATOR} {found} found; the client is generated with {GENERATOR_VERSION}")


class GenerationError(RuntimeError):
    """The generator failed or warned (it runs with ``--fail-on-warning``)."""


def generate(out: Path, spec: Path = SPEC) -> None:
    """Generate the client project from ``spec`` into ``out`` (replaced only on success)."""
    import json

    _check_version()
    ruff = _bin("ruff")
    config = {**CONFIG, "post_hooks": [f"{ruff} check . --fix-only --quiet",
                                       f"{ruff} format . --quiet"]}
    with tempfile.TemporaryDirectory() as tmp:
        config_path = Path(tmp) / "config.json"
        config_path.write_text(json.dumps(config))
        fresh = Path(tmp) / "client"
        proc = subprocess.run(
            [_bin(GENERATOR), "generate", "--path", str(spec), "--config", str(config_path),
             "--meta", "setup", "--output-path", str(fresh), "--fail-on-warning"],
            capture_output=True, text=True, cwd=tmp)
        if proc.returncode != 0:
            raise GenerationError(f"{GENERATOR} failed:\n{proc.stdout}\n{proc.stderr}")
        for cache in fresh.rglob("__pycache__"):
            shutil.rmtree(cache)
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(fresh, out)


def drift(committed: Path = OUT, spec: Path = SPEC) -> list[str]:
    """Differences between ``committed`` and a fresh generation from ``spec``, as lines."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "python"
        generate(fresh, spec)
        return tree_drift(committed, fresh)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="Compare clients/python/ with a fresh generation; exit 1 on drift.")
    args = parser.parse_args(argv)
    try:
        if not args.check:
            generate(OUT)
            print(f"generated {OUT.relative_to(ROOT)}")
            return 0
        lines = drift()
    except GenerationError as exc:
        print(exc, file=sys.stderr)
        return 1
    if lines:
        print("clients/python/ drifted from openapi/afm.yaml; run `python tools/gen_client.py`:")
        print("\n".join(lines[:200]))
        return 1
    print("clients/python/ matches openapi/afm.yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
