"""Where the tests find the packaged real models: the files tools/setup.sh fetched and verified
(``afm fetch-models``). Tests never download; a missing file fails with how to get it."""

from __future__ import annotations

from pathlib import Path

import pytest

NAMES = {"smollm2-135m": "smollm2", "qwen2.5-coder-0.5b": "qwen-0.5b"}


def real_model(name: str) -> Path:
    """The verified GGUF file of the real model ``name`` (a key of :data:`NAMES`)."""
    from afm.real_models import cached_path

    path = cached_path(NAMES[name])
    if path is None:
        pytest.fail(f"the real model {name} is not cached: run `bash tools/setup.sh dev` "
                    f"(or `afm fetch-models {NAMES[name]}`)", pytrace=False)
    return path
