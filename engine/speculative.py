"""Speculative decoding: propose several tokens, verify them in one forward of the target model.

Two proposers, both off by default (``EngineConfig.spec_ngram``, ``EngineConfig.draft_model``):

- **Prompt lookup (n-gram)**: the last ``n`` tokens (``n`` = :data:`NGRAM_MAX` down to
  :data:`NGRAM_MIN`) of prompt + output so far are looked up earlier in that same sequence (the
  most recent occurrence wins); the tokens that followed it are the draft. No second model.
- **Draft model**: a small model sharing the target's tokenizer proposes one token per forward
  from its own KV cache (per sequence, rolled back to the accepted prefix each step): its argmax
  for a greedy request, else a draw from its own distribution q under the request's sampling
  parameters.

Verification (:meth:`Speculator.decode`): the target runs ``[last_token, d1..dk]`` in one
forward over the decode batch's KV cache, giving ``k + 1`` distributions. Position ``j`` is
sampled exactly as a plain decode step would sample it had ``d1..dj`` been generated: the same
penalties (a copy of the row's token statistics advanced by the drafted tokens), temperature,
top-k/top-p/min-p, and the same per-request key ``(seed, step + j)``. The longest prefix of the
draft that equals these target tokens is accepted, plus the target's token after it; the KV
entries of the rejected positions are trimmed off.

Exactness. At temperature 0 the target tokens are its argmaxes, so the output is the plain
greedy output token for token. At temperature > 0:

- prompt-lookup drafts are deterministic (point-mass proposals), and "sample y from the target
  distribution p, accept the draft x when y == x, else emit y" (:func:`verify`) accepts x with
  probability p(x) and, on rejection, emits a token drawn from p with x removed and
  renormalised: speculative rejection sampling for a point-mass draft. Because the draw reuses
  the request's own key chain, a seeded request gives the same tokens with and without
  speculation (up to floating-point differences between a k+1-token and a 1-token forward, as
  for batched decode);
- draft-model drafts x ~ q use standard speculative sampling (Leviathan et al. 2023, Chen et al.
  2023; :func:`verify_sampled`): keep x with probability min(1, p(x)/q(x)), else emit a draw from
  norm(max(0, p - q)) and stop; after k kept tokens one more is drawn from p. Every emitted token
  follows p (the same distribution, not the same draws as without speculation).

Each emitted token goes through the ordinary emitter one at a time, so stop strings inside a
drafted run, EOS, ``max_tokens``, logprobs (of the accepted tokens) and penalties behave as
without speculation; tokens after a stop are dropped. Requests with a grammar constraint are
not speculated (the matcher would need a rollback per rejected token): they decode plainly.

Policy: speculation runs only while the decode batch holds a single sequence (c=1, the
memory-bound case it helps); with two or more rows the batch already reads the weights once for
several tokens and the plain batched step runs. Sharded servers and models whose KV cache cannot
be trimmed never speculate.
"""

from __future__ import annotations

import copy
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import mlx.core as mx
import numpy as np
from mlx_lm.models.cache import can_trim_prompt_cache, make_prompt_cache, trim_prompt_cache

from engine import cpu_weights, metrics, model_load
from engine.sampling import RowState, SampleOutput, _keep_mask, apply_penalties, sample
from engine.sequence import Sequence

if TYPE_CHECKING:
    from engine.model_runner import Emit, ModelRunner

log = logging.getLogger(__name__)

NGRAM_MAX = 3  # longest suffix looked up
NGRAM_MIN = 2  # shortest; a single-token match proposes too much noise


class DraftModelError(ValueError):
    """The draft model cannot serve the target (tokenizer mismatch, untrimmable cache); the
    message says why, without naming the model."""


def ngram_draft(tokens: list[int], k: int, n_max: int = NGRAM_MAX, n_min: int = NGRAM_MIN
                ) -> list[int]:
    """Up to ``k`` tokens that followed the most recent earlier occurrence of the longest suffix
    of ``tokens`` (``n_max`` down to ``n_min`` tokens long); [] when none recurs."""
    size = len(tokens)
    if k <= 0 or size < n_min + 1:
        return []
    arr = np.asarray(tokens, dtype=np.int64)
    for n in range(min(n_max, size - 1), n_min - 1, -1):
        suffix = arr[size - n:]
        # candidate starts s with s + n < size (so at least one token follows the match)
        windows = np.lib.stride_tricks.sliding_window_view(arr[: size - 1], n)
        hits = np.nonzero((windows == suffix).all(axis=1))[0]
        if hits.size:
            start = int(hits[-1]) + n
            return [int(t) for t in arr[start : start + k]]
    return []


@dataclass
class _DraftState:
    """One sequence's draft-model KV cache and the tokens it holds."""

    cache: list[Any]
    tokens: list[int] = field(default_factory=list)


class DraftModel:
    """A small model that proposes tokens greedily from its own per-sequence caches."""

    def __init__(self, source: str, target_tokenizer: Any, target_vocab: int,
                 weights_mode: str, prefill_step: int) -> None:
        model, tokenizer = model_load.load(source)
        cpu_weights.prepare(model, weights_mode, what=source, sharded=False)
        check_compatible(tokenizer, target_tokenizer, source)
        if not can_trim_prompt_cache(make_prompt_cache(model)):
            raise DraftModelError("its KV cache cannot be rolled back (not a plain attention "
                                  "model)")
        self.source = source
        self.model = model
        self.target_vocab = target_vocab
        self.prefill_step = max(1, prefill_step)
        self.states: dict[Sequence, _DraftState] = {}

    def forget(self, keep: list[Sequence]) -> None:
        """Drop the caches of sequences not in ``keep``."""
        for seq in [s for s in self.states if s not in keep]:
            del self.states[seq]

    def propose(self, seq: Sequence, context: list[int], k: int
                ) -> tuple[list[int], mx.array | None]:
        """Draft ``k`` tokens after ``context`` (prompt + output, last token last): greedy for a
        greedy request, else drawn from the draft's own distribution q (same sampling params),
        returned as ``q`` [k, V] for :func:`verify_sampled`."""
        state = self.states.get(seq)
        if state is None:
            state = self.states[seq] = _DraftState(make_prompt_cache(self.model))
        held = state.tokens
        same = 0
        limit = min(len(held), len(context) - 1)  # feed at least the last token
        while same < limit and held[same] == context[same]:
            same += 1
        if len(held) > same:
            trim_prompt_cache(state.cache, len(held) - same)
        feed = context[same:]
        while len(feed) > self.prefill_step:  # catch up (the prompt, at first) in chunks
            self.model(mx.array([feed[: self.prefill_step]]), cache=state.cache)
            mx.eval([c.state for c in state.cache])
            feed = feed[self.prefill_step:]
        logits = self._fit(self.model(mx.array([feed]), cache=state.cache)[:, -1, :])
        assert seq.row is not None
        if seq.row.greedy:
            token = mx.argmax(logits, axis=-1)
            drafted = [token]
            for _ in range(k - 1):
                logits = self._fit(self.model(token[:, None], cache=state.cache)[:, -1, :])
                token = mx.argmax(logits, axis=-1)
                drafted.append(token)
            out = [int(t) for t in mx.concatenate(drafted).tolist()]
            q = None
        else:
            out, qs, row = [], [], seq.row
            for i in range(k):
                if i:
                    row = advanced(row, out[-1])
                    logits = self._fit(self.model(mx.array([[out[-1]]]), cache=state.cache)
                                       [:, -1, :])
                dist = probs(logits, [row])
                keys = mx.random.split(row.noise_key(), 3)
                u = mx.random.uniform(shape=(1,), key=keys[2])
                token = mx.minimum(mx.sum(mx.cumsum(dist, axis=-1) < u[:, None], axis=-1),
                                   dist.shape[-1] - 1)
                mx.eval(token, dist)
                out.append(int(token.item()))
                qs.append(dist)
            q = mx.concatenate(qs)
        state.tokens = list(context) + out[:-1]  # the last draft was never fed
        return out, q

    def _fit(self, logits: mx.array) -> mx.array:
        """Draft logits [1, Vd] over the target's vocabulary width."""
        width = logits.shape[-1]
        if width >= self.target_vocab:
            return logits[:, : self.target_vocab]
        pad = mx.full((logits.shape[0], self.target_vocab - width), -mx.inf, dtype=logits.dtype)
        return mx.concatenate([logits, pad], axis=-1)


def check_compatible(draft_tok: Any, target_tok: Any, source: str) -> None:
    """Raise :class:`DraftModelError` unless both tokenizers map the same strings to the same
    ids (the draft's ids must mean the target's tokens)."""
    a = getattr(draft_tok, "_tokenizer", draft_tok)
    b = getattr(target_tok, "_tokenizer", target_tok)
    if a.get_vocab() != b.get_vocab():
        raise DraftModelError("its tokenizer differs from the model's (another vocabulary); "
                              "use a draft model of the same family")


class Speculator:
    """Runs speculative decode steps for a :class:`~engine.model_runner.ModelRunner`."""

    def __init__(self, runner: ModelRunner, *, ngram: bool, num_draft_tokens: int,
                 draft: DraftModel | None) -> None:
        self.runner = runner
        self.ngram = ngram
        self.num_draft_tokens = max(1, num_draft_tokens)
        self.draft = draft
        self.method = "draft_model" if draft is not None else "ngram"

    @classmethod
    def create(cls, runner: ModelRunner) -> Speculator | None:
        """The runner's speculator, or None when speculation is off or cannot run."""
        config = runner.config
        if not (config.spec_ngram or config.draft_model):
            return None
        if runner.channel is not None or config.sharded:
            log.warning("speculative decoding is off: not supported on a sharded server")
            return None
        if not runner.plain_kv:
            log.warning("speculative decoding is off: the model's KV cache cannot be rolled back")
            return None
        draft = None
        if config.draft_model:
            draft = DraftModel(config.draft_model, runner.tokenizer, runner.vocab_size,
                               config.cpu_weights, config.prefill_step_size)
            log.info("speculative decoding: draft model %s, %d draft tokens",
                     config.draft_model, config.num_draft_tokens)
        else:
            log.info("speculative decoding: prompt lookup, %d draft tokens",
                     config.num_draft_tokens)
        return cls(runner, ngram=config.spec_ngram, num_draft_tokens=config.num_draft_tokens,
                   draft=draft)

    def eligible(self, seqs: list[Sequence]) -> bool:
        """Whether this batch speculates: one unconstrained row (see the module policy)."""
        if len(seqs) != 1:
            return False
        seq = seqs[0]
        return (seq.request.constraint is None and seq.row is not None and not seq.finished
                and seq.error is None)

    def decode(self, emit: Emit, *, newcomers: bool) -> None:
        """One decode round: speculative when the batch allows it, else the plain step."""
        runner = self.runner
        seqs = runner.decoding
        if self.draft is not None:
            self.draft.forget(seqs)
        if not self.eligible(seqs) or runner._pending is not None:
            # a pipelined step in flight (batch just shrank) is collected plainly first
            runner.decode_step(emit, newcomers=newcomers, pipeline=not self.eligible(seqs))
            return
        seq = seqs[0]
        params = seq.request.params
        done = len(seq.prompt) + len(seq.generated)
        k = min(self.num_draft_tokens, params.max_tokens - len(seq.generated) - 1,
                runner.max_context - done - 1)
        draft, q = self._propose(seq, k) if k > 0 else ([], None)
        if not draft:
            runner.decode_step(emit, newcomers=newcomers, pipeline=False)
            return
        self._verify(seq, draft, q, emit)

    def _propose(self, seq: Sequence, k: int) -> tuple[list[int], mx.array | None]:
        context = seq.prompt + seq.generated
        draft: list[int] = []
        if self.ngram:
            draft = ngram_draft(context, k)
        if not draft and self.draft is not None:
            return self.draft.propose(seq, context, k)
        return draft, None

    def _verify(self, seq: Sequence, draft: list[int], q: mx.array | None, emit: Emit
                ) -> None:
        runner = self.runner
        assert seq.row is not None and runner.batch_cache is not None
        runner.max_decode_batch = max(runner.max_decode_batch, 1)
        tic = time.perf_counter()
        mx.reset_peak_memory()
        k = len(draft)
        inputs = mx.array([[seq.last_token, *draft]], dtype=mx.uint32)
        logits = runner.model(inputs, cache=runner.batch_cache)[0]  # [k + 1, V]
        if q is None:
            out, accepted = verify(logits, seq.row, draft)
        else:
            out, accepted = verify_sampled(logits, seq.row, draft, q)
        trim_prompt_cache(runner.batch_cache, k - accepted)
        metrics.spec_draft_tokens.inc(k)
        metrics.spec_accepted_tokens.inc(accepted)
        seq.spec_draft_tokens += k
        seq.spec_accepted_tokens += accepted
        dt = time.perf_counter() - tic
        if dt > 0:
            runner.last_decode_tps = (accepted + 1) / dt
        seq.peak_memory = max(seq.peak_memory, mx.get_peak_memory())
        for j in range(accepted + 1):
            emit([seq], row_of(out, j))
            if seq.finished:
                break
        if seq.finished:
            runner._store_finished([seq], [0])
            runner.drop_rows([0])


def verify(logits: mx.array, row: RowState, draft: list[int]) -> tuple[SampleOutput, int]:
    """Sample the target's token at each of the ``k + 1`` positions of ``logits`` [k + 1, V]
    (position j as if ``draft[:j]`` were generated) and count the accepted draft prefix.

    Returns the evaluated sample (emit rows ``0..accepted``) and ``accepted``; see the module
    docstring for why the emitted tokens follow the target distribution.
    """
    out = sample(logits, draft_rows(row, draft))
    mx.eval(out.arrays())
    tokens = out.tokens.tolist()
    accepted = 0
    while accepted < len(draft) and int(tokens[accepted]) == draft[accepted]:
        accepted += 1
    return out, accepted


def verify_sampled(logits: mx.array, row: RowState, draft: list[int], q: mx.array
                   ) -> tuple[SampleOutput, int]:
    """Standard speculative sampling for a draft drawn from q [k, V]: draft token x at
    position j is kept with probability min(1, p_j(x) / q_j(x)); the first one rejected is
    replaced by a draw from norm(max(0, p_j - q_j)); when all are kept, one more token is drawn
    from p_k. p is the target's distribution after penalties, temperature and truncation,
    exactly what a plain step samples from. Uniforms come from the request's key chain."""
    rows = draft_rows(row, draft)
    p = probs(logits, rows)
    ref = sample(logits, rows)  # for the logprobs of the emitted tokens
    keys = [mx.random.split(r.noise_key(), 3) for r in rows]
    u_accept = mx.concatenate([mx.random.uniform(shape=(1,), key=k[0]) for k in keys])
    u_draw = mx.concatenate([mx.random.uniform(shape=(1,), key=k[1]) for k in keys])
    mx.eval(p, q, u_accept, u_draw, ref.arrays())
    p_np, q_np = np.array(p), np.array(q)
    ua, ud = u_accept.tolist(), u_draw.tolist()
    tokens: list[int] = []
    accepted = 0
    for j, x in enumerate(draft):
        if ua[j] * q_np[j, x] < p_np[j, x]:  # u < p/q, with q(x) > 0 since x ~ q
            tokens.append(x)
            accepted += 1
            continue
        resid = np.maximum(p_np[j] - q_np[j], 0.0)
        tokens.append(_draw(resid if resid.sum() > 0 else p_np[j], ud[j]))
        break
    else:
        tokens.append(_draw(p_np[len(draft)], ud[len(draft)]))
    n = len(tokens)
    ids = mx.array(tokens, dtype=mx.uint32)
    logprobs = None
    if ref.logprobs is not None:
        logits32 = apply_penalties(logits.astype(mx.float32), rows)
        temps = mx.array([[r.params.temperature if not r.greedy else 1.0] for r in rows])
        lsm = logits32 / temps
        lsm = lsm - mx.logsumexp(lsm, axis=-1, keepdims=True)
        logprobs = mx.take_along_axis(lsm[:n], ids[:, None].astype(mx.int32), axis=-1)[:, 0]
        mx.eval(logprobs)
    top_ids = ref.top_ids[:n] if ref.top_ids is not None else None
    top_lp = ref.top_logprobs[:n] if ref.top_logprobs is not None else None
    return SampleOutput(ids, logprobs, top_ids, top_lp), accepted


def _draw(weights: np.ndarray, u: float) -> int:
    """Inverse-CDF draw from unnormalised ``weights``."""
    cdf = np.cumsum(weights, dtype=np.float64)
    return int(min(np.searchsorted(cdf, u * cdf[-1], side="right"), len(weights) - 1))


def probs(logits: mx.array, rows: list[RowState]) -> mx.array:
    """The distribution :func:`engine.sampling.sample` draws from for each (sampled) row of
    ``logits`` [B, V]: penalties, temperature, top-k / top-p / min-p, normalised."""
    logits = apply_penalties(logits.astype(mx.float32), rows)
    temps = mx.array([[r.params.temperature if not r.greedy else 1.0] for r in rows],
                     dtype=mx.float32)
    logits = logits / temps
    peak = mx.max(logits, axis=-1, keepdims=True)
    weights = mx.exp(logits - peak)
    lse = peak + mx.log(mx.sum(weights, axis=-1, keepdims=True))
    keep = _keep_mask(logits, peak, lse, rows, [not r.greedy for r in rows])
    if keep is not None:
        weights = mx.where(keep, weights, mx.array(0.0, dtype=mx.float32))
    return weights / mx.sum(weights, axis=-1, keepdims=True)


def advanced(row: RowState, token: int) -> RowState:
    """A copy of ``row`` after ``token`` was generated (the original is untouched)."""
    nxt = copy.copy(row)
    if row.counts is not None:
        nxt.counts = row.counts.copy()
    if row.seen is not None:
        nxt.seen = row.seen.copy()
    nxt.accept(token)
    return nxt


def draft_rows(row: RowState, draft: list[int]) -> list[RowState]:
    """Sampling states for verification positions 0..k: position j sees ``draft[:j]`` as
    generated (key chain step and penalty statistics), as a plain step after them would."""
    rows = [row]
    for token in draft:
        rows.append(advanced(rows[-1], token))
    return rows


def row_of(out: SampleOutput, j: int) -> SampleOutput:
    """Row ``j`` of an evaluated sample as a one-row sample."""
    def pick(a: mx.array | None) -> mx.array | None:
        return None if a is None else a[j : j + 1]

    return SampleOutput(out.tokens[j : j + 1], pick(out.logprobs), pick(out.top_ids),
                        pick(out.top_logprobs))
