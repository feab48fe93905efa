"""Which generation defaults a chat model states, found from its `--model` source.

The model's own defaults sit between the `afm serve` flags and the server's fallback (see
:func:`serving.sampling.resolve_defaults`). They are read from, first found:

1. a GGUF file's ``general.sampling.*`` metadata, or a model folder's
   ``generation_config.json`` (:mod:`engine.model_defaults`; a hub id's once it is in the
   hub cache);
2. for the packaged real models (:mod:`afm.real_models`), whose files carry neither, the
   project's table (``RealModel.sampling``).

Nothing is loaded or downloaded here: a GGUF header and a small JSON file are read.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from engine.model_defaults import ModelDefaults, guard, read_model_defaults

log = logging.getLogger("afm")


@dataclass(frozen=True)
class Found:
    """What a source states (``defaults``; None: nothing) and whether that is known yet
    (False: a hub id not downloaded, whose files cannot be read before it loads)."""

    defaults: ModelDefaults | None
    known: bool = True


def table_defaults(path: str | Path) -> ModelDefaults | None:
    """The project's table entry for a packaged real model's file (None: not one of them, or
    no entry)."""
    from afm.real_models import known_file

    model = known_file(path)
    if model is None or not model.sampling:
        return None
    values = {name: checked for name, value in model.sampling
              if (checked := guard(name, value)) is not None}
    return ModelDefaults(values, "table", f"afm table: {model.sampling_from}")


def _gguf_or_table(path: Path) -> ModelDefaults | None:
    return read_model_defaults(path) or table_defaults(path)


def _hub_folder(repo_id: str) -> Path | None:
    """The hub cache's snapshot folder of ``repo_id`` when its generation_config.json (or
    config.json) is cached; nothing is downloaded."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    for name in ("generation_config.json", "config.json"):
        try:
            hit = try_to_load_from_cache(repo_id, name)
        except Exception:  # noqa: BLE001 - not a valid repo id: nothing cached
            return None
        if isinstance(hit, str):
            return Path(hit).parent
    return None


def find(source: str | None, loaded_path: str | None = None) -> Found:
    """The defaults a `--model` source states. ``loaded_path`` is what the engine loaded from
    (known after a load: a converted GGUF folder, a random preset's folder, a hub id)."""
    from afm.model_catalog import gguf_file, random_preset

    try:
        if source is None:  # the embedded default: the real default model's file
            from afm.real_models import DEFAULT, cached_path

            path = cached_path(DEFAULT)
            return Found(_gguf_or_table(path)) if path is not None else Found(None, False)
        if random_preset(source) is not None:
            if loaded_path and Path(loaded_path).is_dir():
                return Found(read_model_defaults(loaded_path))
            return Found(None)
        gguf = gguf_file(source)
        if gguf is not None:
            return Found(_gguf_or_table(gguf))
        path = Path(source).expanduser()
        if path.is_dir():
            return Found(read_model_defaults(path))
        folder = _hub_folder(source)
        if folder is not None:
            return Found(read_model_defaults(folder))
        if loaded_path and Path(loaded_path).is_dir():
            return Found(read_model_defaults(loaded_path))
        return Found(None, known=loaded_path is not None)
    except Exception as exc:  # noqa: BLE001 - defaults never stop a model from serving
        log.warning("generation defaults of %s not readable (%s); the server's apply",
                    source or "the default model", exc)
        return Found(None)
