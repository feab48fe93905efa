"""Build a preset model folder offline: ``python tools/build_model.py --preset bench [--out DIR]``.

Without ``--out`` the model goes to the shared cache (see ``modelbuilder.ensure_model``).
Prints the folder's path.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.blas import preload_fast_blas  # noqa: E402
from modelbuilder import PRESETS, build_model, ensure_model  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, build, print the path."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS))
    parser.add_argument("--out", type=Path, help="target folder (replaced); default: the cache")
    parser.add_argument("--cache-dir", type=Path, help="cache root (default: $AFM_CACHE_DIR)")
    args = parser.parse_args(argv)
    preload_fast_blas()  # before MLX loads: the tiny-tools preset trains with MLX
    start = time.perf_counter()
    if args.out is not None:
        path = build_model(args.out, PRESETS[args.preset])
    else:
        path = ensure_model(args.preset, args.cache_dir)
    print(f"built {args.preset} in {time.perf_counter() - start:.1f}s", file=sys.stderr)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
