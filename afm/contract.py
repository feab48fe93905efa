"""The API contract (openapi/afm.yaml): where it is and its parsed form."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

SPEC_PATH = Path(__file__).resolve().parent.parent / "openapi" / "afm.yaml"


@functools.cache
def load_spec() -> dict[str, Any]:
    """The contract as parsed YAML (cached; treat as read-only)."""
    import yaml

    return yaml.safe_load(SPEC_PATH.read_text())
