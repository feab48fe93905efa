"""Where the API contract lives, in one place.

In a checkout (and an editable install) it is `openapi/afm.yaml` at the repository root, the
file people edit. A wheel carries a copy as package data, `afm/openapi/afm.yaml`, put there by
the build step in setup.py. A missing contract ends the process with one clear line.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent
PACKAGED_SPEC = _PACKAGE / "openapi" / "afm.yaml"
CHECKOUT_SPEC = _PACKAGE.parent / "openapi" / "afm.yaml"


def find_spec() -> Path:
    """The contract file: the checkout's when present, else the packaged copy."""
    for path in (CHECKOUT_SPEC, PACKAGED_SPEC):
        if path.is_file():
            return path
    raise SystemExit(f"afm: the API contract is missing (looked for {CHECKOUT_SPEC} and "
                     f"{PACKAGED_SPEC}); reinstall the afm package")


SPEC_PATH = find_spec()


@functools.cache
def load_spec() -> dict[str, Any]:
    """The contract as parsed YAML (cached; treat as read-only)."""
    import yaml

    return yaml.safe_load(SPEC_PATH.read_text())
