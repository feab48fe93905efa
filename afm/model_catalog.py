"""Which chat models a server offers: `--model` values (a folder or a hub id, optionally
`NAME=SOURCE`) and the model folders under `--models-dir`, each with the id it is served under.

Resolution of a source (folder, hub id, or the embedded default) to what the engine loads is
:func:`resolve_model_path`, the one place that turns a `--model` value into a loadable path.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("afm")

DEFAULT_MODEL_ID = "afm-default"
ALIAS_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
"""A `NAME=` prefix: no `/`, so it never reads as a folder or a hub organisation."""


@dataclass(frozen=True)
class ModelEntry:
    """One offered chat model: the id it is served under, where it comes from (None: the
    embedded default, built offline) and other names requests may use for it."""

    id: str
    source: str | None
    aliases: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return (self.id, *self.aliases)


def model_id_for(model: str | None) -> str:
    """The id a model is served under: a local folder's name, a hub id as given, or the
    embedded default's name."""
    if model is None:
        return DEFAULT_MODEL_ID
    path = Path(model).expanduser()
    if path.is_dir():
        return path.resolve().name
    return model


def parse_model_value(value: str) -> tuple[str | None, str]:
    """`--model` value -> (alias or None, source).

    `NAME=SOURCE` names a model; the value is read that way only when it is not itself an
    existing path and NAME is a plain name (letters, digits, `._:-`, no `/`), so a folder whose
    name holds `=` still works as given.
    """
    if "=" in value and not Path(value).expanduser().exists():
        name, source = value.split("=", 1)
        if ALIAS_PATTERN.fullmatch(name) and source:
            return name, source
    return None, value


def folders_in(models_dir: str | Path) -> list[Path]:
    """Model folders directly under ``models_dir`` (those holding a config.json), by name."""
    root = Path(models_dir).expanduser()
    if not root.is_dir():
        raise ValueError(f"--models-dir {models_dir}: not a folder")
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / "config.json").is_file())


def chat_catalogue(models: list[str], models_dir: str | Path | None = None) -> list[ModelEntry]:
    """The offered chat models in order (the first is the default): each `--model`, then each
    folder of `--models-dir`. With neither, the embedded default model. Raises ValueError on
    two models under one name."""
    entries: list[ModelEntry] = []
    taken: dict[str, str] = {}

    def add(entry: ModelEntry) -> None:
        for name in entry.names():
            if name in taken:
                raise ValueError(f"two models are served as '{name}' ({taken[name]} and "
                                 f"{entry.source}); name one with --model NAME=SOURCE")
        for name in entry.names():
            taken[name] = str(entry.source)
        entries.append(entry)

    for value in models:
        alias, source = parse_model_value(value)
        if alias is not None:
            add(ModelEntry(alias, source, (source,)))
        else:
            served = model_id_for(source)
            add(ModelEntry(served, source, (source,) if source != served else ()))
    if models_dir is not None:
        for folder in folders_in(models_dir):
            if folder.name in taken:
                log.warning("--models-dir: %s is already served as '%s'; skipped",
                            folder, folder.name)
                continue
            add(ModelEntry(folder.name, str(folder)))
    if not entries:
        entries.append(ModelEntry(DEFAULT_MODEL_ID, None))
    return entries


def resolve_model_path(source: str | None) -> str:
    """What the engine loads for a model source: a folder (resolved), a hub id as given
    (mlx-lm finds it in the hub cache), or the embedded default model, built on first use."""
    if source is None:
        from modelbuilder import ensure_model

        path = str(ensure_model("default"))
        log.warning("no --model given: serving the embedded default model (random "
                    "weights, its output is noise) from %s", path)
        return path
    path = Path(source).expanduser()
    return str(path.resolve()) if path.is_dir() else source
