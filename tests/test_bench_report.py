"""tools/bench.py's report: ratios of two servers are medians of per-round (paired) ratios."""

from __future__ import annotations

import pytest

from tools.bench import Results, targets
from tools.bench_lib.client import WaveStats


def _wave(concurrency: int, tok_s: float) -> WaveStats:
    return WaveStats(concurrency=concurrency, requests=concurrency, failed=0,
                     tokens=int(tok_s * 10), wall=10.0, ttft_p50=None, ttft_p99=None,
                     itl_p50=None, errors=[])


def _results(rows: dict[str, list[tuple[float, float]]]) -> Results:
    """rows: key -> per round (tok/s at c=1, tok/s at c=16)."""
    r = Results()
    for key, rounds in rows.items():
        r.rounds[key] = {i: [_wave(1, a), _wave(16, b)] for i, (a, b) in enumerate(rounds)}
        r.waves[key] = [_wave(1, sorted(a for a, _ in rounds)[len(rounds) // 2]),
                        _wave(16, sorted(b for _, b in rounds)[len(rounds) // 2])]
    return r


def test_paired_ratio_is_the_median_of_per_round_ratios() -> None:
    # the machine slows down in round 2 for both servers: the medians of the rows would give
    # 100 / 150 = 0.67, the paired rounds 1.0 / 0.8 / 0.75 -> 0.8
    r = _results({"afm": [(100, 400), (60, 300), (120, 500)],
                  "llama-f32": [(100, 400), (75, 350), (160, 600)]})
    value, ratios = r.paired("afm", "llama-f32", 1)
    assert ratios == pytest.approx([1.0, 0.8, 0.75])
    assert value == pytest.approx(0.8)
    assert r.paired("afm", "llama-q4", 1) == (None, [])
    rows = {row[0]: row for row in targets(r)}
    assert rows["afm c=1 / llama-f32 c=1"][1:] == ["0.80x", ">= 0.6x", "PASS"]
    c16 = rows["afm c=16 / llama-f32 c=16"]  # 1.0 / 0.857 / 0.833 -> 0.857
    assert c16[1:] == ["0.86x", ">= 0.8x", "PASS"]
    assert rows["afm-4bit c=16 / llama-q4 c=16"][3] == "n/a"


def test_rounds_a_peer_missed_are_left_out() -> None:
    r = _results({"afm": [(100, 400), (100, 400), (100, 400)],
                  "llama-q4": [(300, 800)]})
    r.rounds["afm-4bit"] = {0: [_wave(1, 140)], 2: [_wave(1, 150)]}
    r.rounds["llama-q4"][2] = [_wave(1, 200)]
    value, ratios = r.paired("afm-4bit", "llama-q4", 1)
    assert ratios == pytest.approx([140 / 300, 150 / 200])
    assert value == pytest.approx((140 / 300 + 150 / 200) / 2)


def test_raw_rows_count_their_prefill_like_a_server_wave() -> None:
    # a server's aggregate covers its wave's prefills; the raw row must too
    from tools.bench_lib.report import raw_row

    raw = {"batch": 8, "tokens": 64, "tok_s": 512.0, "wall_tok_s": 400.0, "step_ms": 15.6,
           "prefill_ms": 256.0}
    r = _results({"afm": [(90, 400)]})
    r.raw = [raw]
    r.waves["afm"].append(_wave(8, 360))
    assert raw_row(raw)[4] == "400.0"
    rows = {row[0]: row for row in targets(r)}
    assert rows["afm c=8 / raw engine B=8 (prefill + decode)"][1:] == ["0.90x", ">= 0.85x",
                                                                       "PASS"]


def test_afm_over_raw_is_paired_by_round() -> None:
    # the medians of the rows (afm 80, raw 100) would give 0.80; the per-round ratios
    # 0.9 / 0.9 / 0.67 give 0.90
    r = _results({"afm": [(90, 400), (45, 300), (80, 400)]})
    r.raw_rounds = {i: [{"batch": 1, "wall_tok_s": t}] for i, t in enumerate((100, 50, 120))}
    r.raw = [{"batch": 1, "wall_tok_s": 100.0}]
    value, ratios = r.paired_raw("afm", 1)
    assert ratios == pytest.approx([0.9, 0.9, 80 / 120])
    rows = {row[0]: row for row in targets(r)}
    assert rows["afm c=1 / raw engine B=1 (prefill + decode)"][1:] == ["0.90x", ">= 0.90x",
                                                                       "PASS"]
    assert r.paired_raw("afm", 8) == (None, [])


def test_gguf_prefill_rates_against_the_shortest_prompt_and_the_equal_cost_bound() -> None:
    from pathlib import Path

    from tools.bench_lib.gguf_peer import (
        Cell,
        FileResults,
        equal_cost_rate_ratio,
        prefill_work,
        rate_ratios,
        render_rates,
    )

    # SmolLM2-135M's header: 30 layers, 576 wide, MLP 1536, 9 query heads of 64, 3 KV heads
    meta = {"general.architecture": "llama", "llama.embedding_length": 576,
            "llama.block_count": 30, "llama.feed_forward_length": 1536,
            "llama.attention.head_count": 9, "llama.attention.head_count_kv": 3}
    work = prefill_work(meta)
    assert work is not None
    assert work.linear == 30 * (576 * 576 + 2 * 576 * 192 + 576 * 576 + 3 * 576 * 1536)
    assert work.attention == 30 * 9 * 128
    # a 4k prompt is ~40% attention: at one cost per multiply-add its rate is 0.62 of 256's
    assert equal_cost_rate_ratio(work, (256, 0), (4096, 0)) == pytest.approx(0.625, abs=0.002)
    assert equal_cost_rate_ratio(work, (256, 0), (256, 0)) == pytest.approx(1.0)
    # a reused chat preamble: only the tokens computed count, each attending over the whole
    # prefix, so the short prompt's rate per computed token is a little lower
    reused = equal_cost_rate_ratio(work, (256, 29), (4096, 29))
    assert 0.625 < reused < 0.64
    assert prefill_work({"general.architecture": "llama"}) is None

    res = FileResults(Path("x.gguf"))
    res.rows.append("prompt ~4096")  # rows in any order: the shortest prompt is the base
    for ttft_a, ttft_l in ((0.5, 1.0), (0.6, 1.0)):  # round 2 slower for afm only
        # 250-token prompts, 29 of them reused from the prefix cache: 221 computed
        res.add("prompt ~256", "afm", Cell(ttft_a, tokens=221, prompt=250))
        res.add("prompt ~256", "llama", Cell(ttft_l, tokens=221, prompt=250))
    res.add("prompt ~4096", "afm", Cell(10.0, tokens=4000, prompt=4000))
    res.add("prompt ~4096", "llama", Cell(20.0, tokens=4000, prompt=4000))
    res.add("prompt ~4096", "afm", Cell(0.0, error="boom"))
    res.add("prompt ~4096", "llama", Cell(18.0, tokens=4000))
    afm = rate_ratios(res, "afm")["prompt ~4096"]
    assert afm == pytest.approx([(4000 / 10.0) / (221 / 0.5)])  # the failed round is left out
    assert rate_ratios(res, "llama")["prompt ~4096"] == pytest.approx(
        [(4000 / 20) / 221, (4000 / 18) / 221])
    text = "\n".join(render_rates(res, work))
    assert "prompt ~4096 / prompt ~256" in text and "0.90 (0.90)" in text
    assert f"{equal_cost_rate_ratio(work, (250, 29), (4000, 0)):.2f}" in text
