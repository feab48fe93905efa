"""Grammar-constrained vs. unconstrained decode speed, in process, on the ``bench`` model.

One :class:`engine.chat_engine.ChatEngine` (batch 1, no prefix cache), the same chat prompt, greedy
decoding, ``--tokens`` tokens per run: a ``json_schema`` response format (compiled the way the
server does, outside the timed decode) against no constraint, ``--runs`` times each, interleaved
so that machine noise hits both alike. The schema asks for at least 20 objects, so the grammar
never completes before the token budget; the unconstrained run ignores EOS for the same reason.
Decode tok/s is (tokens - 1) / (time from the first to the last token). Prints a table; exits 1
when the constrained median is below ``--target`` of the unconstrained median. ``--mask`` also
prints the per-step mask cost (:mod:`tools.bench_lib.mask_overhead`) on the same tokenizer. ::

    python tools/bench_constrained.py [--runs 3] [--tokens 128] [--target 0.9] [--mask]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.blas import preload_fast_blas  # noqa: E402

preload_fast_blas()  # before mlx loads

SCHEMA: dict[str, Any] = {
    "type": "array",
    "minItems": 20,
    "items": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 16},
            "score": {"type": "integer", "minimum": 0, "maximum": 100},
            "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 3},
            "ok": {"type": "boolean"},
        },
        "required": ["name", "score", "tags", "ok"],
        "additionalProperties": False,
    },
}
RESPONSE_FORMAT = {"type": "json_schema",
                   "json_schema": {"name": "items", "schema": SCHEMA, "strict": True}}


async def run_once(engine: Any, cache: Any, prompt: list[int], tokens: int,
                   constrained: bool, n: int) -> dict[str, Any]:
    """One greedy request; its decode speed and output."""
    from engine.grammar import build_constraint
    from engine.types import GenerationRequest, GenerationStats, SamplingParams

    constraint = None
    build_ms = 0.0
    if constrained:
        tic = time.perf_counter()
        constraint = build_constraint(
            cache, response_format=RESPONSE_FORMAT, tools=None, tool_choice=None,
            parallel_tool_calls=True, tool_format="hermes", reasoning=False)
        build_ms = (time.perf_counter() - tic) * 1e3
    params = SamplingParams(temperature=0.0, max_tokens=tokens, ignore_eos=not constrained)
    req = GenerationRequest(request_id=f"bench-{n}", prompt_tokens=prompt, params=params,
                            constraint=constraint)
    text: list[str] = []
    stats = GenerationStats()
    finish = None
    async for event in engine.generate(req):
        text.append(event.text)
        if event.finish_reason is not None:
            finish, stats = event.finish_reason, event.stats or stats
    n_tok = stats.completion_tokens
    tok_s = (n_tok - 1) / stats.completion_time if stats.completion_time > 0 else 0.0
    return {"tokens": n_tok, "tok_s": tok_s, "finish": finish, "build_ms": build_ms,
            "text": "".join(text)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--model", default=None, help="model folder (default: the bench preset)")
    parser.add_argument("--mask", action="store_true",
                        help="also measure the per-step mask cost (fill, accept, apply, builds)")
    args = parser.parse_args(argv)

    from engine.chat_engine import ChatEngine
    from engine.config import EngineConfig
    from engine.grammar import GrammarCompilerCache
    from modelbuilder import ensure_model

    model = args.model or str(ensure_model("bench"))
    engine = ChatEngine(EngineConfig(model=model, concurrent=1, prefix_cache=False))
    try:
        cache = GrammarCompilerCache(engine.tokenizer, engine.vocab_size)
        prompt = engine.render_chat(
            [{"role": "user", "content": "List twenty scored items as JSON."}], None,
            {"enable_thinking": False})

        async def bench() -> dict[str, list[dict[str, Any]]]:
            out: dict[str, list[dict[str, Any]]] = {"none": [], "json_schema": []}
            await run_once(engine, cache, prompt, 16, False, -1)  # warm-up both paths
            await run_once(engine, cache, prompt, 16, True, -2)
            for i in range(args.runs):
                out["none"].append(await run_once(engine, cache, prompt, args.tokens, False, i))
                out["json_schema"].append(
                    await run_once(engine, cache, prompt, args.tokens, True, i))
            return out

        results = asyncio.run(bench())
    finally:
        engine.shutdown()

    def stat(fn: Any) -> dict[str, float]:
        return {k: fn([r["tok_s"] for r in v]) for k, v in results.items()}

    mean, median, best = stat(statistics.mean), stat(statistics.median), stat(max)
    ratio = median["json_schema"] / median["none"] if median["none"] else 0.0
    print(f"model {Path(model).name}, vocab {engine.vocab_size}, greedy, batch 1, "
          f"{args.runs} x {args.tokens} tokens, interleaved; decode tok/s")
    print("| mode | median | mean | best | runs | tokens | finish |")
    print("|---|---:|---:|---:|---|---|---|")
    for mode, rows in results.items():
        runs = ", ".join(f"{r['tok_s']:.1f}" for r in rows)
        toks = ",".join(str(r["tokens"]) for r in rows)
        finishes = ",".join(sorted({str(r["finish"]) for r in rows}))
        print(f"| {mode} | {median[mode]:.1f} | {mean[mode]:.1f} | {best[mode]:.1f} | {runs} "
              f"| {toks} | {finishes} |")
    builds = [r["build_ms"] for r in results["json_schema"]]
    print(f"constrained / unconstrained (medians): {ratio:.3f} (target >= {args.target:.2f}); "
          f"means {mean['json_schema'] / mean['none']:.3f}, "
          f"best {best['json_schema'] / best['none']:.3f}; "
          f"cached constraint build {statistics.mean(builds):.2f} ms")
    print(f"constrained output starts: {results['json_schema'][0]['text'][:80]!r}")
    if args.mask:
        from tools.bench_lib.mask_overhead import measure_mask_overhead, print_overhead

        print("per-step mask cost (us; builds in ms):")
        print_overhead(measure_mask_overhead(cache))
    return 0 if ratio >= args.target else 1


if __name__ == "__main__":
    raise SystemExit(main())
