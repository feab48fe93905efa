"""Real model files for tests: the cached, sha256-verified files of :mod:`afm.real_models`.

Tests never download: tools/setup.sh fetches the files (`afm fetch-models`), so a missing one
fails the test with what to run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from afm.real_models import MODELS, cached_path


def real_model(name: str) -> Path:
    """The cached file of real model ``name``; fails the test when it is not cached."""
    path = cached_path(name)
    if path is None:
        pytest.fail(f"real model {name} ({MODELS[name].filename}) is not cached: run "
                    f"`bash tools/setup.sh` (or `afm fetch-models {name}`) first", pytrace=False)
    return path
