"""Batched per-request sampling: penalties, grammar masks, temperature, top-k/top-p/min-p.

Every row of a decode batch carries its own :class:`~engine.types.SamplingParams`. One call to
:func:`sample` builds a single lazy MLX graph for the whole batch; the only evaluation inside is
a small one for top-k / top-p thresholds (taken from the best 256 logits of each row, with an
exact full sort when a nucleus is wider than that).

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
token. Sampling draws by inverse CDF with one uniform per row from a per-request key chain
(``seed``, step), so a seeded request draws the same way whatever else shares the batch.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

import mlx.core as mx
import numpy as np

from engine import fast_ops
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

    def noise_key(self, ahead: int = 0) -> mx.array:
        """The PRNG key for this step (``ahead`` steps later): a pure function of (seed, step)."""
        step = self.step + ahead
        mixed = (self.seed * 0x9E3779B97F4A7C15 + step * 0xBF58476D1CE4E5B9) & _MASK_64
        mixed ^= mixed >> 31
        return mx.random.key(mixed)


@dataclass
class SampleOutput:
    """Lazy results of one sampling call for a batch of B rows."""

    tokens: mx.array  # [B] uint32
    logprobs: mx.array | None  # [B] logprob of the chosen token (when any row wants logprobs)
    top_ids: mx.array | None  # [B, n] best tokens, best first
    top_logprobs: mx.array | None  # [B, n]

    def arrays(self) -> list[mx.array]:
        out = [self.tokens]
        if self.logprobs is not None:
            out.append(self.logprobs)
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
    ahead: int = 0,
) -> SampleOutput:
    """Sample one token per row of ``logits`` [B, V]; see the module docstring for the order."""
    logits = logits.astype(mx.float32)
    B, V = logits.shape
    neg_inf = mx.array(-mx.inf, dtype=mx.float32)

    logits = apply_penalties(logits, rows)

    if bitmask is not None and masked_rows is not None and any(masked_rows):
        allowed = unpack_bitmask(bitmask, V)
        allowed[~np.asarray(masked_rows, dtype=bool)] = True
        logits = mx.where(mx.array(allowed), logits, neg_inf)

    temps = [r.params.temperature if not r.greedy else 1.0 for r in rows]
    if any(t != 1.0 for t in temps):
        logits = logits / mx.array([[t] for t in temps], dtype=mx.float32)

    greedy_tokens = fast_ops.argmax_last(logits)
    sampled = [not r.greedy for r in rows]
    want_logprobs = any(r.params.logprobs for r in rows)
    if not (want_logprobs or any(sampled)):
        return SampleOutput(greedy_tokens.astype(mx.uint32), None, None, None)

    # One exp pass serves both the normaliser and the sampling weights.
    peak = mx.max(logits, axis=-1, keepdims=True)
    weights = mx.exp(logits - peak)
    lse = peak + mx.log(mx.sum(weights, axis=-1, keepdims=True))

    tokens = greedy_tokens
    if any(sampled):
        keep = _keep_mask(logits, peak, lse, rows, sampled)
        if keep is not None:
            weights = mx.where(keep, weights, mx.array(0.0, dtype=mx.float32))
        tokens = mx.where(mx.array(sampled), _inverse_cdf(weights, rows, ahead), greedy_tokens)
    tokens = tokens.astype(mx.uint32)

    if not want_logprobs:
        return SampleOutput(tokens, None, None, None)
    chosen = mx.take_along_axis(logits, tokens[:, None].astype(mx.int32), axis=-1) - lse
    n_top = max((r.top_logprobs for r in rows), default=0)
    top_ids = top_lp = None
    if n_top > 0:
        n_top = min(n_top, V)
        ids = mx.argpartition(-logits, kth=n_top - 1, axis=-1)[:, :n_top]
        vals = mx.take_along_axis(logits, ids, axis=-1)
        order = mx.argsort(-vals, axis=-1)
        top_ids = mx.take_along_axis(ids, order, axis=-1)
        top_lp = mx.take_along_axis(vals, order, axis=-1) - lse
    return SampleOutput(tokens, chosen[:, 0], top_ids, top_lp)


def apply_penalties(logits: mx.array, rows: list[RowState]) -> mx.array:
    """Steps 1-2 of the module docstring on float32 ``logits`` [B, V]."""
    V = logits.shape[-1]
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
    return logits


def _inverse_cdf(weights: mx.array, rows: list[RowState], ahead: int = 0) -> mx.array:
    """Draw one token per row: the first index whose cumulative weight reaches u * total.

    ``weights`` are unnormalised probabilities (0 for truncated tokens, which are therefore
    never drawn). One uniform per row from that row's own key: draws do not depend on the batch.
    """
    cdf = mx.cumsum(weights, axis=-1)
    u = mx.concatenate([mx.random.uniform(shape=(1,), key=r.noise_key(ahead)) for r in rows])
    idx = mx.sum(cdf < u[:, None] * cdf[:, -1:], axis=-1)
    return mx.minimum(idx, weights.shape[-1] - 1)


_WINDOW = 256  # candidates examined for top-k / top-p before falling back to a full sort


def _keep_mask(
    logits: mx.array, peak: mx.array, lse: mx.array, rows: list[RowState], sampled: list[bool]
) -> mx.array | None:
    """Tokens that survive top-k, top-p (over the renormalised top-k set) and min-p, or None."""
    B, V = logits.shape
    keep = None
    ks, ps, use_kp, log_min_p = [], [], [], []
    for s, r in zip(sampled, rows, strict=True):
        p = r.params
        truncates = s and (p.top_k > 0 or p.top_p < 1.0)
        use_kp.append(truncates)
        ks.append(min(p.top_k, V) if truncates and p.top_k > 0 else V)
        ps.append(p.top_p if truncates and p.top_p < 1.0 else 2.0)
        log_min_p.append(float(np.log(p.min_p)) if s and p.min_p > 0.0 else -np.inf)
    if any(use_kp):
        width = min(V, max([_WINDOW] + [k for k, u in zip(ks, use_kp, strict=True) if u]))
        threshold = None
        if width < V:
            window = -mx.sort(-mx.topk(logits, width, axis=-1), axis=-1)
            threshold, complete = _kp_threshold(window, lse, ks, ps)
            mx.eval(threshold, complete)
            if not all(c or not u for c, u in zip(complete.tolist(), use_kp, strict=True)):
                threshold = None  # some nucleus is wider than the window: sort everything
        if threshold is None:
            threshold, _ = _kp_threshold(-mx.sort(-logits, axis=-1), lse, ks, ps)
        keep = logits >= mx.where(mx.array(use_kp)[:, None], threshold, -mx.inf)
    if any(x > -np.inf for x in log_min_p):
        above = logits >= peak + mx.array(log_min_p, dtype=mx.float32)[:, None]
        keep = above if keep is None else keep & above
    return keep


def _kp_threshold(
    sorted_desc: mx.array, lse: mx.array, ks: list[int], ps: list[float]
) -> tuple[mx.array, mx.array]:
    """Per-row logit threshold for top-k then top-p, from the best ``W`` logits sorted.

    Returns (threshold [B, 1], complete [B]): ``complete`` is False where the answer needs
    logits beyond the window (the top-k set is wider than W and the nucleus did not close in it).
    """
    W = sorted_desc.shape[-1]
    k_arr = mx.array(ks, dtype=mx.int32)[:, None]
    in_k = mx.arange(W, dtype=mx.int32)[None, :] < k_arr
    kept = mx.where(in_k, sorted_desc, -mx.inf)
    norm = mx.where(k_arr <= W, mx.logsumexp(kept, axis=-1, keepdims=True), lse)
    probs = mx.exp(kept - norm)
    before = mx.cumsum(probs, axis=-1) - probs
    in_p = before < mx.array(ps, dtype=mx.float32)[:, None]
    n_keep = mx.maximum(mx.sum(in_k & in_p, axis=-1, keepdims=True), 1)
    threshold = mx.take_along_axis(sorted_desc, (n_keep - 1).astype(mx.int32), axis=-1)
    complete = ((n_keep < W) | (k_arr <= W))[:, 0]
    return threshold, complete


def _fit(arr: np.ndarray, width: int) -> np.ndarray:
    """Pad or cut a per-token vector to the logits width."""
    if arr.shape[0] == width:
        return arr
    if arr.shape[0] > width:
        return arr[:width]
    return np.pad(arr, (0, width - arr.shape[0]))
