"""Fidelity on real weights (README, "Fidelity on real weights"): afm's engine on the
SmolLM2 GGUF file against HF transformers on the same file, on every kernel path the load-time
timing may choose. The measured agreement matches the README's table, and a path that changes
the model's greedy answers is not one the automatic choice may pick."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT
from tests.real_weights import real_model

pytest.importorskip("torch")
pytest.importorskip("accelerate")
from tools import gguf_fidelity  # noqa: E402


@pytest.fixture(autouse=True)
def _kernel_settings_restored():
    """The tool forces kernel paths process-wide: hand the environment's settings back after."""
    yield
    from engine import qkernels

    qkernels.reload_environment()


def readme_rows(model: str) -> dict[tuple[str, str], tuple[float, int]]:
    """(non-native tensors, path) -> (teacher-forced top-1, greedy same) stated for ``model``."""
    text = (ROOT / "README.md").read_text().split("### Fidelity on real weights", 1)[1]
    rows = {}
    for m in re.finditer(rf"^\| {re.escape(model)} \| (\S+) \| (\S+) \| ([\d.]+)% \(\d+/\d+\) "
                         r"\| (\d)/\d \|", text, re.M):
        rows[m.group(1), m.group(2)] = (float(m.group(3)) / 100, int(m.group(4)))
    return rows


def test_smollm2_agrees_with_transformers_as_the_readme_states(monkeypatch) -> None:
    from engine import qkernel_isa, qkernels

    monkeypatch.delenv("AFM_QMM_INT8", raising=False)
    monkeypatch.delenv("AFM_QMM_ISA", raising=False)
    path = real_model("smollm2")
    paths = gguf_fidelity.kernel_paths()
    rows = gguf_fidelity.run(path, "smollm2", ["float32"], paths)
    stated = readme_rows("smollm2")
    automatic = ([*qkernel_isa.candidates(qkernels._ext), *qkernels.plane_isas()]
                 if qkernels.available() else ["mlx"])
    for row in rows:
        assert ("float32", row.path) in stated, f"README lacks the smollm2 row of {row.path}"
        top1, same = stated["float32", row.path]
        assert abs(row.top1 - top1) <= 0.03, (row.cells(), top1)
        assert abs(row.same - same) <= 1, (row.cells(), same)
        if row.path in automatic:  # what "auto" may choose keeps the answers
            assert row.same == row.prompts and row.top1 >= 0.97, row.cells()
    assert any(r.path in automatic for r in rows)


def test_qwen2_file_agrees_with_transformers_on_the_automatic_path(monkeypatch) -> None:
    """The qwen2 file as served by default (not permuted; Q4_K/Q5_0/Q6_K/Q8_0 codes kept, no
    environment variable), kept small: one prompt, 12 tokens, the path the automatic choice
    picks."""
    from engine import qkernels

    monkeypatch.delenv("AFM_QMM_INT8", raising=False)
    monkeypatch.delenv("AFM_QMM_ISA", raising=False)
    path = real_model("qwen-0.5b")
    from engine.gguf_load import dequant_mode

    monkeypatch.delenv("AFM_GGUF_DEQUANT", raising=False)
    model, tokenizer = gguf_fidelity.afm_model(path, dequant_mode())
    auto = qkernels.auto_isa(5) if qkernels.available() else "mlx"
    ids = gguf_fidelity.chat_ids(tokenizer, gguf_fidelity.PROMPTS[:1])
    reference = gguf_fidelity.hf_reference(path, ids, 12)
    row = gguf_fidelity.measure(model, "qwen-0.5b", dequant_mode(), auto, ids, reference, 12)
    assert row.top1 >= 0.95 and row.same == 1, row.cells()


def test_int8_by_default_only_where_it_measured_at_least_llama_cpp() -> None:
    """The rule of engine.fidelity: every file allowed int8 paths by default has, in the README
    table, an int8 row at or above llama.cpp's row on that file (teacher-forced top-1 and
    greedy same), and the packaged 0.5B file is one of them."""
    from afm.real_models import MODELS
    from engine import fidelity

    by_sha = {m.sha256: name for name, m in MODELS.items()}
    allowed = [by_sha[sha] for sha in fidelity.INT8_AT_LEAST_LLAMA]
    assert "qwen-0.5b" in allowed
    for name in allowed:
        rows = readme_rows(name)
        llama = rows["file", "llama.cpp"]
        int8 = [v for (_, path), v in rows.items() if path.endswith("-int8")]
        assert int8, f"README lacks {name}'s int8 rows"
        for top1, same in int8:
            assert top1 >= llama[0] and same >= llama[1], (name, top1, same, llama)
