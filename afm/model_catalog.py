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


def gguf_file(source: str | Path) -> Path | None:
    """The GGUF file a source names: a ``.gguf`` file, or a folder without config.json that
    holds exactly one (None otherwise; ValueError for a folder holding several)."""
    from engine.gguf_load import GGUFError, single_gguf

    path = Path(source).expanduser()
    if path.is_file() and path.suffix.lower() == ".gguf":
        return path.resolve()
    if path.is_dir() and not (path / "config.json").is_file():
        try:
            found = single_gguf(path)
        except GGUFError as exc:
            raise ValueError(str(exc)) from None
        return found.resolve() if found else None
    return None


def model_id_for(model: str | None) -> str:
    """The id a model is served under: a local folder's name, a GGUF file's stem, a hub id or
    a random-weight preset (``random:NAME``) as given, or the embedded default's name."""
    if model is None:
        return DEFAULT_MODEL_ID
    gguf = gguf_file(model)
    if gguf is not None:
        return gguf.stem
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
    """Models directly under ``models_dir``, by name: folders holding a config.json or exactly
    one ``.gguf`` file, and ``.gguf`` files."""
    root = Path(models_dir).expanduser()
    if not root.is_dir():
        raise ValueError(f"--models-dir {models_dir}: not a folder")
    found: list[Path] = []
    for p in sorted(root.iterdir()):
        folder = p.is_dir() and (p / "config.json").is_file()
        if folder or (p.is_file() and p.suffix.lower() == ".gguf"):
            found.append(p)
        elif p.is_dir():
            try:
                if gguf_file(p) is not None:
                    found.append(p)
            except ValueError as exc:
                log.warning("--models-dir: %s skipped (%s)", p, exc)
    return found


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
            # an MLX folder keeps its name under the folder (a symlink keeps the link's name);
            # a GGUF file, or a folder holding one, is served under the file's stem
            mlx_folder = folder.is_dir() and (folder / "config.json").is_file()
            served = folder.name if mlx_folder else model_id_for(str(folder))
            if served in taken:
                log.warning("--models-dir: %s is already served as '%s'; skipped",
                            folder, served)
                continue
            add(ModelEntry(served, str(folder)))
    if not entries:
        entries.append(ModelEntry(DEFAULT_MODEL_ID, None))
    return entries


RANDOM_PREFIX = "random"
"""`--model random` (or `random:PRESET`): a random-weight model the project builds offline."""


def random_preset(source: str) -> str | None:
    """The modelbuilder preset a `random[:PRESET]` source names (None: not such a source).
    ValueError for an unknown preset."""
    if source != RANDOM_PREFIX and not source.startswith(RANDOM_PREFIX + ":"):
        return None
    if Path(source).expanduser().exists():
        return None  # a folder of that name wins
    from modelbuilder import PRESETS

    name = source.partition(":")[2] or "default"
    if name not in PRESETS:
        raise ValueError(f"--model {source}: no such random-weight preset; known: "
                         f"{', '.join(sorted(PRESETS))}")
    return name


def resolve_model_path(source: str | None) -> str:
    """What the engine loads for a model source: a folder (resolved), a GGUF file's converted
    folder (cached), a hub id as given (mlx-lm finds it in the hub cache), a random-weight
    preset (built on first use), or the embedded default: the real default model's GGUF
    file (:mod:`afm.real_models`, fetched once when not cached)."""
    if source is None:
        from afm.real_models import default_model

        source = str(default_model())
    preset = random_preset(source)
    if preset is not None:
        from modelbuilder import ensure_model

        path = str(ensure_model(preset))
        log.warning("--model %s: a random-weight model (its output is noise) from %s",
                    source, path)
        return path
    gguf = gguf_file(source)
    if gguf is not None:
        from engine.gguf_load import ensure_converted

        return str(ensure_converted(gguf))
    path = Path(source).expanduser()
    return str(path.resolve()) if path.is_dir() else source
