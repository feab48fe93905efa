"""Drift between a committed generated tree and a fresh generation: the check both client
generators (tools/gen_client.py, tools/gen_ts_client.py) run."""

from __future__ import annotations

import difflib
from pathlib import Path

SKIP = ("__pycache__", ".ruff_cache")
"""Folders that are never part of a generated tree."""


def tree_files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes), caches left out."""
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not any(part in SKIP for part in p.parts)}


def tree_drift(committed: Path, fresh: Path) -> list[str]:
    """Differences between the two trees as lines (empty when they are equal)."""
    have, new = tree_files(committed), tree_files(fresh)
    lines: list[str] = []
    for name in sorted(new.keys() | have.keys()):
        if name not in have:
            lines.append(f"missing: {name}")
        elif name not in new:
            lines.append(f"not generated (stale or hand-added): {name}")
        elif new[name] != have[name]:
            lines.append(f"differs: {name}")
            lines.extend(difflib.unified_diff(
                have[name].decode(errors="replace").splitlines(),
                new[name].decode(errors="replace").splitlines(),
                f"committed/{name}", f"generated/{name}", lineterm="", n=1))
    return lines
