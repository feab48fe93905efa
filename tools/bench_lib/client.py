"""OpenAI streaming chat clients: TTFT, inter-token gaps, token counts, concurrency waves."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class StreamResult:
    """One streamed request, timed from just before the request is sent."""

    ok: bool
    ttft: float | None = None
    """Seconds to the first content (or reasoning/tool-call) delta."""
    gaps: list[float] = field(default_factory=list)
    """Seconds between consecutive content deltas."""
    chunks: int = 0
    completion_tokens: int | None = None
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    total: float = 0.0
    text: str = ""
    error: str = ""

    @property
    def tokens(self) -> int:
        """Generated tokens: the server's usage figure, else the number of content deltas."""
        return self.completion_tokens if self.completion_tokens is not None else self.chunks


def _delta_text(chunk: dict[str, Any]) -> str | None:
    """Text a chunk carries (content, reasoning or tool-call arguments); None when it has none."""
    parts: list[str] = []
    for choice in chunk.get("choices") or []:
        delta = choice.get("delta") or {}
        for key in ("content", "reasoning_content", "reasoning"):
            if delta.get(key):
                parts.append(delta[key])
        for call in delta.get("tool_calls") or []:
            fn = call.get("function") or {}
            parts.append((fn.get("name") or "") + (fn.get("arguments") or ""))
    return "".join(parts) if parts else None


async def stream_chat(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> StreamResult:
    """POST ``body`` with ``stream: true`` and time the SSE stream (parsed by hand)."""
    body = {**body, "stream": True, "stream_options": {"include_usage": True}}
    res = StreamResult(ok=False)
    start = time.perf_counter()
    last: float | None = None
    text: list[str] = []
    try:
        async with client.stream("POST", url, json=body) as resp:
            if resp.status_code != 200:
                res.error = f"HTTP {resp.status_code}: {(await resp.aread())[:300]!r}"
                return res
            async for line in resp.aiter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                now = time.perf_counter()
                chunk = json.loads(data)
                if "error" in chunk:
                    res.error = json.dumps(chunk["error"])[:300]
                    return res
                piece = _delta_text(chunk)
                if piece is not None:
                    if res.ttft is None:
                        res.ttft = now - start
                    else:
                        res.gaps.append(now - last)  # type: ignore[operator]
                    last = now
                    res.chunks += 1
                    text.append(piece)
                usage = chunk.get("usage")
                if usage:
                    res.completion_tokens = usage.get("completion_tokens")
                    res.prompt_tokens = usage.get("prompt_tokens")
                    details = usage.get("prompt_tokens_details") or {}
                    res.cached_tokens = details.get("cached_tokens")
        res.ok = res.ttft is not None
        if not res.ok:
            res.error = "no content in stream"
    except (httpx.HTTPError, json.JSONDecodeError) as exc:
        res.error = f"{type(exc).__name__}: {exc}"
    finally:
        res.total = time.perf_counter() - start
        res.text = "".join(text)
    return res


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated ``q``-th percentile (0-100); None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


@dataclass
class WaveStats:
    """Aggregate figures for ``requests`` requests run ``concurrency`` at a time."""

    concurrency: int
    requests: int
    failed: int
    tokens: int
    wall: float
    ttft_p50: float | None
    ttft_p99: float | None
    itl_p50: float | None
    errors: list[str]
    texts: list[str] = field(default_factory=list)

    @property
    def tok_s(self) -> float:
        """Aggregate generated tokens per second over the wave's wall time."""
        return self.tokens / self.wall if self.wall > 0 else 0.0


def summarize(concurrency: int, results: list[StreamResult], wall: float) -> WaveStats:
    """Fold per-request results into a :class:`WaveStats`."""
    good = [r for r in results if r.ok]
    ttfts = [r.ttft for r in good if r.ttft is not None]
    gaps = [g for r in good for g in r.gaps]
    return WaveStats(
        concurrency=concurrency,
        requests=len(results),
        failed=len(results) - len(good),
        tokens=sum(r.tokens for r in good),
        wall=wall,
        ttft_p50=percentile(ttfts, 50),
        ttft_p99=percentile(ttfts, 99),
        itl_p50=percentile(gaps, 50),
        errors=sorted({r.error for r in results if r.error})[:3],
        texts=[r.text for r in good],
    )


async def run_wave(url: str, bodies: list[dict[str, Any]], concurrency: int) -> WaveStats:
    """Send ``bodies`` with at most ``concurrency`` in flight; wall time covers all of them."""
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)
    results: list[StreamResult] = []
    limits = httpx.Limits(max_connections=concurrency + 2, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=httpx.Timeout(600.0), limits=limits) as client:

        async def worker() -> None:
            while not queue.empty():
                body = queue.get_nowait()
                results.append(await stream_chat(client, url, body))

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - start
    return summarize(concurrency, results, wall)
