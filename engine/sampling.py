"""Batched per-request sampling: penalties, grammar masks, temperature, top-k/top-p/min-p.

Every row of a decode batch carries its own :class:`~engine.types.SamplingParams`. One call to
:func:`sample` builds a single lazy MLX graph for the whole batch; nothing is evaluated here.

Order of operations on the raw logits of a row:

1. repetition penalty (HF meaning: every token seen in prompt + output; positive logits are
   divided by the penalty, negative ones multiplied);
2. presence / frequency penalties (OpenAI meaning, over generated tokens:
   ``logit -= presence * [count > 0] + frequency * count``);
3. the grammar mask (banned tokens become -inf; last, so no penalty can bring one back);
4. temperature (0 means greedy argmax; logprobs then use temperature 1).

Reported logprobs are the log-softmax of that distribution, *before* top-k / top-p / min-p
truncation: the distribution the token was drawn from, as OpenAI reports it. Truncation is then
applied in this order: top-k, top-p over the renormalised top-k set, min-p relative to the best
token. Sampling uses the Gumbel-max trick with noise from a per-request key chain
(``seed``, step), so a seeded request draws the same noise whatever else shares the batch.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

import mlx.core as mx
import numpy as np

from engine.types import SamplingParams

_MASK_64 = (1 << 64) - 1


@dataclass
class RowState:
    """Sampling state of one sequence: its params, key chain position and token statistics."""

    params: SamplingParams
    vocab_size: int
    seed: int = 0
    step: int = 0
    counts: np.ndarray | None = None  # generated-token counts (presence/frequency penalties)
    seen: np.ndarray | None = None  # tokens in prompt + output (repetition penalty)
    top_logprobs: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        p = self.params
        self.top_logprobs = p.top_logprobs if p.logprobs else 0
        if p.presence_penalty or p.frequency_penalty:
            self.counts = np.zeros(self.vocab_size, dtype=np.float32)
        if p.repetition_penalty != 1.0:
            self.seen = np.zeros(self.vocab_size, dtype=bool)

    @classmethod
    def create(cls, params: SamplingParams, prompt: list[int], vocab_size: int) -> RowState:
        """State for a new request; without a seed, draws a random one."""
        seed = params.seed if params.seed is not None else secrets.randbits(63)
        row = cls(params=params, vocab_size=vocab_size, seed=seed & _MASK_64)
        if row.seen is not None and prompt:
            ids = np.asarray(prompt, dtype=np.int64)
            row.seen[ids[(ids >= 0) & (ids < vocab_size)]] = True
        return row

    @property
    def greedy(self) -> bool:
        return self.params.temperature <= 0.0

    def accept(self, token: int) -> None:
        """Record a generated token and advance the key chain."""
        self.step += 1
        if 0 <= token < self.vocab_size:
            if self.counts is not None:
                self.counts[token] += 1
            if self.seen is not None:
                self.seen[token] = True

    def noise_key(self) -> mx.array:
        """The PRNG key for this step: a pure function of (seed, step)."""
        mixed = (self.seed * 0x9E3779B97F4A7C15 + self.step * 0xBF58476D1CE4E5B9) & _MASK_64
        mixed ^= mixed >> 31
        return mx.random.key(mixed)


@dataclass
class SampleOutput:
    """Lazy results of one sampling call for a batch of B rows."""

    tokens: mx.array  # [B] uint32
    logprobs: mx.array  # [B] logprob of the chosen token
    top_ids: mx.array | None  # [B, n] best tokens, best first
    top_logprobs: mx.array | None  # [B, n]

    def arrays(self) -> list[mx.array]:
        out = [self.tokens, self.logprobs]
        if self.top_ids is not None and self.top_logprobs is not None:
            out += [self.top_ids, self.top_logprobs]
        return out


def unpack_bitmask(bitmask: np.ndarray, width: int) -> np.ndarray:
    """xgrammar int32 bitmask [B, ceil(V/32)] -> bool [B, width] (bit 1 = allowed)."""
    bits = np.unpackbits(np.ascontiguousarray(bitmask).view(np.uint8), axis=-1, bitorder="little")
    if bits.shape[-1] < width:
        bits = np.pad(bits, ((0, 0), (0, width - bits.shape[-1])))
    return bits[:, :width].astype(bool)


def sample(
    logits: mx.array,
    rows: list[RowState],
    bitmask: np.ndarray | None = None,
    masked_rows: list[bool] | None = None,
) -> SampleOutput:
    """Sample one token per row of ``logits`` [B, V]; see the module docstring for the order."""
    logits = logits.astype(mx.float32)
    B, V = logits.shape
    neg_inf = mx.array(-mx.inf, dtype=mx.float32)

    if any(r.seen is not None for r in rows):
        zeros = np.zeros(V, dtype=bool)
        seen = mx.array(np.stack([_fit(r.seen, V) if r.seen is not None else zeros for r in rows]))
        pen = mx.array([[r.params.repetition_penalty] for r in rows], dtype=mx.float32)
        logits = mx.where(seen, mx.where(logits > 0, logits / pen, logits * pen), logits)

    if any(r.counts is not None for r in rows):
        zeros_f = np.zeros(V, dtype=np.float32)
        counts = mx.array(
            np.stack([_fit(r.counts, V) if r.counts is not None else zeros_f for r in rows])
        )
        presence = mx.array([[r.params.presence_penalty] for r in rows], dtype=mx.float32)
        frequency = mx.array([[r.params.frequency_penalty] for r in rows], dtype=mx.float32)
        logits = logits - presence * (counts > 0) - frequency * counts

    if bitmask is not None and masked_rows is not None and any(masked_rows):
        allowed = unpack_bitmask(bitmask, V)
        allowed[~np.asarray(masked_rows, dtype=bool)] = True
        logits = mx.where(mx.array(allowed), logits, neg_inf)

    temps = [r.params.temperature if not r.greedy else 1.0 for r in rows]
    if any(t != 1.0 for t in temps):
        logits = logits / mx.array([[t] for t in temps], dtype=mx.float32)
    logprobs = logits - mx.logsumexp(logits, axis=-1, keepdims=True)

    greedy_tokens = mx.argmax(logprobs, axis=-1)
    sampled_rows = [not r.greedy for r in rows]
    n_top = max((r.top_logprobs for r in rows), default=0)
    need_sort = n_top > 0 or any(
        s and (r.params.top_k > 0 or r.params.top_p < 1.0)
        for s, r in zip(sampled_rows, rows, strict=True)
    )
    order = sorted_lp = None
    if need_sort:
        order = mx.argsort(-logprobs, axis=-1)
        sorted_lp = mx.take_along_axis(logprobs, order, axis=-1)

    if any(sampled_rows):
        filtered = _truncate(logprobs, sorted_lp, rows, sampled_rows)
        noise = mx.stack(
            [
                mx.random.gumbel(shape=(V,), key=r.noise_key()) if s else mx.zeros((V,))
                for s, r in zip(sampled_rows, rows, strict=True)
            ]
        )
        drawn = mx.argmax(filtered + noise, axis=-1)
        tokens = mx.where(mx.array(sampled_rows), drawn, greedy_tokens)
    else:
        tokens = greedy_tokens
    tokens = tokens.astype(mx.uint32)
    chosen = mx.take_along_axis(logprobs, tokens[:, None].astype(mx.int32), axis=-1)[:, 0]

    top_ids = top_lp = None
    if n_top > 0 and order is not None and sorted_lp is not None:
        top_ids, top_lp = order[:, :n_top], sorted_lp[:, :n_top]
    return SampleOutput(tokens, chosen, top_ids, top_lp)


def _truncate(
    logprobs: mx.array, sorted_lp: mx.array | None, rows: list[RowState], sampled: list[bool]
) -> mx.array:
    """Apply top-k, top-p and min-p to the rows that sample; returns filtered logprobs."""
    B, V = logprobs.shape
    neg_inf = mx.array(-mx.inf, dtype=mx.float32)
    out = logprobs
    use_kp = [
        s and (r.params.top_k > 0 or r.params.top_p < 1.0)
        for s, r in zip(sampled, rows, strict=True)
    ]
    if any(use_kp) and sorted_lp is not None:
        ks = [
            min(r.params.top_k, V) if u and r.params.top_k > 0 else V
            for u, r in zip(use_kp, rows, strict=True)
        ]
        ps = [
            r.params.top_p if u and r.params.top_p < 1.0 else 2.0
            for u, r in zip(use_kp, rows, strict=True)
        ]
        k_arr = mx.array(ks, dtype=mx.int32)[:, None]
        positions = mx.arange(V, dtype=mx.int32)[None, :]
        in_k = positions < k_arr
        # top-p over the renormalised top-k set; always keep the best token.
        kept = mx.where(in_k, sorted_lp, neg_inf)
        probs = mx.softmax(kept, axis=-1)
        before = mx.cumsum(probs, axis=-1) - probs
        in_p = before < mx.array(ps, dtype=mx.float32)[:, None]
        n_keep = mx.maximum(mx.sum(in_k & in_p, axis=-1, keepdims=True), 1)
        threshold = mx.take_along_axis(sorted_lp, (n_keep - 1).astype(mx.int32), axis=-1)
        threshold = mx.where(mx.array(use_kp)[:, None], threshold, neg_inf)
        out = mx.where(logprobs >= threshold, out, neg_inf)
    use_min_p = [s and r.params.min_p > 0.0 for s, r in zip(sampled, rows, strict=True)]
    if any(use_min_p):
        log_min_p = mx.array(
            [
                float(np.log(r.params.min_p)) if u else -np.inf
                for u, r in zip(use_min_p, rows, strict=True)
            ],
            dtype=mx.float32,
        )[:, None]
        best = mx.max(logprobs, axis=-1, keepdims=True)
        out = mx.where(logprobs >= best + log_min_p, out, neg_inf)
    return out


def _fit(arr: np.ndarray, width: int) -> np.ndarray:
    """Pad or cut a per-token vector to the logits width."""
    if arr.shape[0] == width:
        return arr
    if arr.shape[0] > width:
        return arr[:width]
    return np.pad(arr, (0, width - arr.shape[0]))
