"""Generation defaults per model: what a model's files state (generation_config.json, GGUF
`general.sampling.*`, the packaged models' table), guarded, and the resolution order
request > `afm serve` flag > model > server fallback, with explicit zeros kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from afm import generation_defaults
from afm.real_models import MODELS
from afm.settings import Settings
from engine.model_defaults import (
    ModelDefaults,
    from_generation_config,
    gguf_sampling_metadata,
    read_model_defaults,
)
from serving.sampling import FALLBACK, SamplingFields, resolve_defaults, sampling_params


def write_gguf(path: Path, sampling: dict[str, Any]) -> Path:
    """A header-only GGUF file with a vocabulary (string array), other arrays and
    ``sampling`` (``general.sampling.*`` key suffix -> value) among its keys."""
    import gguf

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("test")
    writer.add_token_list([f"tok{i}" for i in range(300)] + ["é", ""])
    writer.add_token_scores([0.5] * 302)
    writer.add_context_length(4096)
    adders = {"temp": writer.add_sampling_temp, "top_p": writer.add_sampling_top_p,
              "top_k": writer.add_sampling_top_k, "min_p": writer.add_sampling_min_p,
              "penalty_repeat": writer.add_sampling_penalty_repeat,
              "penalty_last_n": writer.add_sampling_penalty_last_n,
              "sequence": writer.add_sampling_sequence}
    for key, value in sampling.items():
        adders[key](value)
    writer.add_eos_token_id(2)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


# ------------------------------------------------------------------- what a model states


def test_gguf_sampling_keys_read_as_llama_cpp_names_them(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", {"temp": 0.6, "top_p": 0.95, "top_k": 20,
                                            "min_p": 0.0, "penalty_repeat": 1.05,
                                            "penalty_last_n": 64, "sequence": "kpt"})
    meta = gguf_sampling_metadata(path)
    import gguf

    expected = {k: f.contents() for k, f in gguf.GGUFReader(str(path)).fields.items()
                if k.startswith("general.sampling.")}
    assert meta == pytest.approx(expected)
    found = read_model_defaults(path)
    assert found is not None and found.source == "gguf"
    assert found.values == pytest.approx({"temperature": 0.6, "top_p": 0.95, "top_k": 20,
                                          "min_p": 0.0, "repetition_penalty": 1.05})
    assert set(found.ignored) == {"general.sampling.penalty_last_n", "general.sampling.sequence"}
    assert isinstance(found.values["top_k"], int)


def test_gguf_without_sampling_keys_states_nothing(tmp_path: Path) -> None:
    assert read_model_defaults(write_gguf(tmp_path / "m.gguf", {})) is None


def test_generation_config_keys_and_guards(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "generation_config.json").write_text(json.dumps({
        "do_sample": True, "temperature": 0.7, "top_p": 0.8, "top_k": 20,
        "repetition_penalty": 1.05, "min_p": 3, "max_new_tokens": 512, "eos_token_id": 2}))
    found = read_model_defaults(tmp_path)
    assert found is not None and found.source == "generation_config.json"
    assert found.values == {"temperature": 0.7, "top_p": 0.8, "top_k": 20,
                            "repetition_penalty": 1.05}
    assert found.ignored == ("min_p",)  # out of range: dropped, the next source applies


@pytest.mark.parametrize("content", ['{"eos_token_id": 2, "do_sample": false}', "not json",
                                     '{"temperature": "hot", "top_k": 2.5}'])
def test_generation_config_stating_nothing_usable(tmp_path: Path, content: str) -> None:
    (tmp_path / "generation_config.json").write_text(content)
    assert from_generation_config(tmp_path) is None


def test_folder_without_generation_config(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    assert read_model_defaults(tmp_path) is None
    assert generation_defaults.find(str(tmp_path)) == generation_defaults.Found(None)


def test_packaged_model_file_anywhere_gets_the_table(tmp_path: Path) -> None:
    """A packaged real model's file (same name and size; these files carry no sampling
    keys) gets the project's table entry, wherever it lies."""
    model = MODELS["qwen-0.5b"]
    path = tmp_path / model.filename
    with path.open("wb") as fh:  # sparse: right name and size, no GGUF inside
        fh.truncate(model.size)
    found = generation_defaults.find(str(path)).defaults
    assert found is not None and found.source == "table"
    assert found.values == dict(model.sampling)
    assert model.sampling_from in found.detail
    other = tmp_path / "other" / model.filename
    other.parent.mkdir()
    other.write_bytes(b"short")
    assert generation_defaults.find(str(other)).defaults is None


def test_every_packaged_model_has_a_table_entry() -> None:
    for model in MODELS.values():
        assert model.sampling and model.sampling_from, model.name
        values = dict(model.sampling)
        assert 0 <= values["temperature"] <= 2


def test_hub_id_not_downloaded_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    found = generation_defaults.find("nobody-here/no-such-model-xyz")
    assert found == generation_defaults.Found(None, known=False)


# ------------------------------------------------------------------- resolution order

MODEL = ModelDefaults({"temperature": 0.2, "top_p": 0.9, "top_k": 20}, "table", "afm table: x")


def test_flag_over_model_over_fallback() -> None:
    d = resolve_defaults(Settings(temperature=0.5, min_p=0.1), MODEL)
    assert d.values == {**FALLBACK, "temperature": 0.5, "top_p": 0.9, "top_k": 20,
                        "min_p": 0.1}
    assert d.sources == {"temperature": "flag", "top_p": "table", "top_k": "table",
                         "min_p": "flag", "repetition_penalty": "server",
                         "presence_penalty": "server", "frequency_penalty": "server"}
    assert d.model_defaults_from == "afm table: x"
    assert "temperature 0.5 (flag)" in d.describe() and "afm table: x" in d.describe()
    body = d.as_dict()
    assert body["sources"]["top_p"] == "table" and body["top_k"] == 20


def test_explicit_zero_flags_are_not_unset() -> None:
    d = resolve_defaults(Settings(temperature=0.0, top_k=0), MODEL)
    assert (d.temperature, d.top_k) == (0.0, 0)
    assert d.sources["temperature"] == d.sources["top_k"] == "flag"


def test_model_sources_are_named_per_file_kind() -> None:
    for source, name in (("generation_config.json", "generation_config"), ("gguf", "gguf"),
                         ("table", "table")):
        d = resolve_defaults(Settings(), ModelDefaults({"top_p": 0.5}, source, "f"))
        assert d.sources["top_p"] == name and d.sources["temperature"] == "server"
    assert resolve_defaults(Settings()).values == FALLBACK


def params(fields: SamplingFields, defaults: Any = None, **settings: Any) -> Any:
    return sampling_params(Settings(**settings), fields, prompt_tokens=5, max_context=100,
                           defaults=defaults)


def test_request_fields_win_and_explicit_zeros_mean_what_they_say() -> None:
    d = resolve_defaults(Settings(top_p=0.7), MODEL)
    omitted = params(SamplingFields(), d)
    assert (omitted.temperature, omitted.top_p, omitted.top_k, omitted.min_p) == \
        (0.2, 0.7, 20, FALLBACK["min_p"])
    sent = params(SamplingFields(temperature=0.0, top_k=0, top_p=1.0, min_p=0.0), d)
    assert (sent.temperature, sent.top_k, sent.top_p, sent.min_p) == (0.0, 0, 1.0, 0.0)


def test_without_model_defaults_flags_then_fallback() -> None:
    p = params(SamplingFields(), None, temperature=1.1)
    assert p.temperature == 1.1 and p.min_p == FALLBACK["min_p"]
