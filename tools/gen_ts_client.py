"""Generate the TypeScript client (``clients/typescript/src/generated/``) from the contract.

The folder is rebuilt from scratch by @hey-api/openapi-ts (types, one SDK function per
operationId, and its fetch client bundled in, so the client has no runtime dependencies); it is
never edited by hand. The streaming helper next to it (``src/streaming.ts``) is the one
hand-written part::

    python tools/gen_ts_client.py           # regenerate clients/typescript/src/generated/
    python tools/gen_ts_client.py --check   # exit 1 when it differs from the contract

The generator runs from ``node_modules`` (pinned exactly in package.json and package-lock.json,
installed by ``npm ci``), so nothing is downloaded here; output depends on its version, which is
checked.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tree_drift import tree_drift

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "afm.yaml"
OUT = ROOT / "clients" / "typescript" / "src" / "generated"
GENERATOR = "@hey-api/openapi-ts"
GENERATOR_VERSION = "0.95.0"
NODE_MODULES = ROOT / "node_modules"


def config(spec: Path, out: Path) -> dict[str, object]:
    """The generator's configuration (written to a temporary ``openapi-ts.config.mjs``)."""
    return {
        "input": str(spec),
        "output": {
            "path": str(out),
            # Explicit ESM specifiers: the code then runs under Node's ESM loader, `tsc` with
            # `moduleResolution: NodeNext`, and bundlers alike.
            "module": {"extension": ".js"},
        },
        "plugins": ["@hey-api/typescript", "@hey-api/sdk", "@hey-api/client-fetch"],
        "logs": {"file": False, "level": "warn"},
    }


class GenerationError(RuntimeError):
    """The generator is missing, the wrong version, or failed."""


def _check_version() -> None:
    manifest = NODE_MODULES / GENERATOR / "package.json"
    if not manifest.exists():
        raise GenerationError(f"{GENERATOR} is not installed: run `npm ci` in {ROOT}")
    found = json.loads(manifest.read_text())["version"]
    if found != GENERATOR_VERSION:
        raise GenerationError(
            f"{GENERATOR} {found} found; the client is generated with {GENERATOR_VERSION}")


def generate(out: Path, spec: Path = SPEC) -> None:
    """Generate the client from ``spec`` into ``out`` (replaced only on success)."""
    _check_version()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "generated"
        config_path = Path(tmp) / "openapi-ts.config.mjs"
        config_path.write_text(f"export default {json.dumps(config(spec, fresh), indent=2)};\n")
        proc = subprocess.run(
            [str(NODE_MODULES / ".bin" / "openapi-ts"), "--file", str(config_path),
             "--no-log-file"],
            capture_output=True, text=True, cwd=tmp, timeout=300)
        if proc.returncode != 0 or not (fresh / "index.ts").exists():
            raise GenerationError(f"{GENERATOR} failed:\n{proc.stdout}\n{proc.stderr}")
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(fresh, out)


def drift(committed: Path = OUT, spec: Path = SPEC) -> list[str]:
    """Differences between ``committed`` and a fresh generation from ``spec``, as lines."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "generated"
        generate(fresh, spec)
        return tree_drift(committed, fresh)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="Compare the committed client with a fresh generation; exit 1 on "
                             "drift.")
    args = parser.parse_args(argv)
    where = OUT.relative_to(ROOT)
    try:
        if not args.check:
            generate(OUT)
            print(f"generated {where}")
            return 0
        lines = drift()
    except GenerationError as exc:
        print(exc, file=sys.stderr)
        return 1
    if lines:
        print(f"{where}/ drifted from openapi/afm.yaml; run `python tools/gen_ts_client.py`:")
        print("\n".join(lines[:200]))
        return 1
    print(f"{where}/ matches openapi/afm.yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
