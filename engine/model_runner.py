"""Model runner: the model, its forward passes and KV caches, on the engine thread.

It loads the model, checks each prompt and gives the request its KV cache (reusing a prefix-cache
hit), prefills (one chunk of one prompt, or several fresh prompts in one left-padded batch) and
steps the decode batch: every decoding request is one row of a left-padded ``BatchKVCache``.
Decode steps are software-pipelined when :func:`engine.scheduler.can_pipeline` allows it.
Finished rows' KV state goes back to the prefix cache. Sampled tokens become events elsewhere:
the runner hands each step's :class:`~engine.sampling.SampleOutput` to an ``emit`` callback
(:meth:`engine.emitter.EventEmitter.on_tokens`).

Sharded (``EngineConfig.sharded``, :mod:`engine.distributed`), each rank loads its shard; on
rank 0 every method that runs the model or changes KV state first announces itself through
:attr:`ModelRunner.channel`, and the other ranks replay it (:mod:`engine.shard_worker`).
Decode steps are then not pipelined.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import mlx.core as mx
import numpy as np
from mlx.utils import tree_flatten
from mlx_lm.models.cache import BatchKVCache, KVCache, QuantizedKVCache, make_prompt_cache

from engine import cache_join, cpu_weights, distributed, fidelity, kv_quant, metrics, model_load
from engine.config import EngineConfig
from engine.detokenizer import TokenTable
from engine.prefix_cache import PrefixCache, common_prefix, restore, supports_prefix_cache
from engine.prompt_store import PromptStore, model_identity
from engine.reasoning import has_think_markup
from engine.sampling import RowState, SampleOutput, sample
from engine.scheduler import can_pipeline
from engine.sequence import Sequence

log = logging.getLogger(__name__)

MIN_PREFIX_REUSE = 32  # prefix-cache hits shorter than this keep the prompt groupable
SHARED_PREFIX_MIN = 16  # a grouped prefill runs a common prefix this long once
SOLO_PREFIX_REUSE = 16
"""A prefix-cache hit of this many tokens (and under :data:`MIN_PREFIX_REUSE`) is used when the
prompt is prefilled alone, and dropped when it joins a grouped prefill (which runs a shared
prefix once anyway): a chat template's preamble and a short system prompt (29 tokens on
SmolLM2) are not recomputed for every lone request (~1.3 ms a token on two cores)."""
SOLO_PREFILL_STEP = 1024
"""Prompt tokens a chunk may hold when no stream is decoding (nobody waits on it): per token,
a 4096-token prompt of SmolLM2-135M prefilled 1.15x faster in chunks of 1024 than of 256, and
no faster in chunks of 2048 (tools/bench_prefill.py --step 256 512 1024 2048)."""
_DEFAULT_CONTEXT = 32768

Emit = Callable[[list[Sequence], SampleOutput], None]
"""Turns one step's sampled tokens (one per listed sequence) into events."""


def grow_once(cache: list[Any], tokens: int) -> None:
    """Make each layer's cache grow at most once more while ``tokens`` positions are added.

    mlx-lm's caches grow by ``step`` (256) positions when full, copying everything they hold
    into the new buffer: a 4096-token prompt prefilled in chunks of 1024 copied 6k positions of
    every layer's K and V (and left the allocator buffers of four sizes). A step of the remaining
    prompt, set on these caches only, sizes the buffer for all of it at the first chunk.
    """
    unit = KVCache.step  # mlx-lm's growth step (QuantizedKVCache's is the same)
    step = -(-tokens // unit) * unit
    for c in cache:
        if type(c) in (KVCache, QuantizedKVCache) and step > c.step:
            c.step = step  # an instance attribute: the class's stays 256


def _kv_bytes_per_token(args: Any) -> int:
    """Float32 K and V bytes one token takes in every layer (0 when the config does not say)."""
    try:
        layers = int(args.num_hidden_layers)
        heads = int(args.num_attention_heads)
        kv_heads = int(getattr(args, "num_key_value_heads", None) or heads)
        head_dim = int(getattr(args, "head_dim", None) or args.hidden_size // heads)
    except (AttributeError, TypeError, ValueError, ZeroDivisionError):
        return 0
    return 2 * layers * kv_heads * head_dim * 4


class ModelRunner:
    """Loads a model with mlx-lm and runs prefill and batched decode for the engine thread."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        # rank 0 of a sharded server announces each operation to the other ranks through it
        self.channel: distributed.StepChannel | None = None
        if config.sharded:
            group = distributed.world()
            model, tokenizer = distributed.load_sharded(config.model, group, config.shard_mode)
            if int(group.rank()) == 0:
                self.channel = distributed.StepChannel(group)
        else:
            model, tokenizer = model_load.load(config.model)
        self.weights_choice = cpu_weights.prepare(model, config.cpu_weights, what=config.model,
                                                  int8=fidelity.int8_measured(config.model),
                                                  sharded=config.sharded)
        self.model = model
        self.tokenizer = tokenizer
        args = getattr(model, "args", None)
        self.model_type: str | None = getattr(args, "model_type", None) or None
        self.vocab_size = int(getattr(args, "vocab_size", 0) or len(tokenizer))
        self.max_context = int(getattr(args, "max_position_embeddings", 0) or _DEFAULT_CONTEXT)
        if config.max_context > 0:
            self.max_context = min(self.max_context, config.max_context)
        self.kv_bytes_per_token = _kv_bytes_per_token(args)
        if self.kv_bytes_per_token:
            slot = self.kv_bytes_per_token * self.max_context
            log.info("KV cache: %.0f KiB a token (float32); up to %.0f MiB a slot at the "
                     "%d-token context, %.1f GiB for %d slots (the decode batch pads each row "
                     "to its longest)", self.kv_bytes_per_token / 2**10, slot / 2**20,
                     self.max_context, slot * config.concurrent / 2**30, config.concurrent)
        self.eos_token_ids = set(tokenizer.eos_token_ids)
        self.think_markup = has_think_markup(tokenizer)
        self.token_table = TokenTable(tokenizer)
        self.weights_bytes = sum(v.nbytes for _, v in tree_flatten(model.parameters()))
        # plain KV caches can be prefilled together in one left-padded batch (and cut at any
        # prefix, which the prefix cache needs)
        self.plain_kv = supports_prefix_cache(make_prompt_cache(model))
        self.kv_bits: int | None = None
        if config.kv_bits:
            if config.sharded:
                raise ValueError("--kv-bits is not supported for a sharded model")
            kv_quant.make_quantized_cache(model, make_prompt_cache(model), config.kv_bits)
            # quantized caches are prefilled one prompt at a time (no grouped prefill)
            self.kv_bits, self.plain_kv = config.kv_bits, False
            log.info("KV cache quantized to %d bits (group size %d)", self.kv_bits,
                     kv_quant.GROUP_SIZE)
        self.prefix: PrefixCache | None = None
        self.store: PromptStore | None = None
        if config.prefix_cache and supports_prefix_cache(self._new_cache()):
            self.store = self._open_store()
            self.prefix = PrefixCache(config.prefix_cache_bytes,
                                      self.store.save if self.store is not None else None)
        self.decoding: list[Sequence] = []  # the decode batch, one row each
        self.batch_cache: list[Any] | None = None
        self._pending: tuple[list[Sequence], SampleOutput] | None = None
        self.last_prefill_tps = 0.0
        self.last_decode_tps = 0.0
        self.max_decode_batch = 0

    # ----------------------------------------------------------------- admission

    def prepare(self, seq: Sequence) -> None:
        """Validate the prompt; create the sampling state and the (prefix-reused) KV cache.

        Raises ValueError for a prompt the model cannot take.
        """
        prompt = seq.prompt
        if not prompt:
            raise ValueError("empty prompt")
        bad = [t for t in prompt if not (0 <= int(t) < self.vocab_size)]
        if bad:
            raise ValueError(f"token id {bad[0]} outside the vocabulary (0..{self.vocab_size - 1})")
        if len(prompt) >= self.max_context:
            raise ValueError(
                f"prompt of {len(prompt)} tokens does not fit the context of {self.max_context}"
            )
        seq.row = RowState.create(seq.request.params, prompt, self.vocab_size)
        metrics.prompt_tokens.inc(len(prompt))
        reused, cache = 0, None
        seq.solo_prefix = None
        if self.prefix is not None:
            reused, cache = self.prefix.lookup(prompt, limit=len(prompt) - 1)
            if self.store is not None:  # a longer prefix on disk (e.g. after a restart)
                n, disk = self.store.lookup(prompt, len(prompt) - 1,
                                            better_than=max(reused, MIN_PREFIX_REUSE - 1))
                if disk is not None:
                    reused, cache = n, disk
            if reused < MIN_PREFIX_REUSE:  # keeps the prompt groupable (prefill_together)
                if reused >= SOLO_PREFIX_REUSE and cache is not None:
                    seq.solo_prefix = (reused, cache)  # taken if it is prefilled alone
                reused, cache = 0, None
            metrics.prefix_cache_queries.inc(len(prompt))
            metrics.prefix_cache_hits.inc(reused)
        seq.cache = cache if cache is not None else self._new_cache()
        seq.prefill_pos = seq.cached_tokens = reused
        self._op(distributed.PREPARE, [seq.order, *prompt])

    def _new_cache(self) -> list[Any]:
        """A fresh batch-1 cache per layer (quantized under ``--kv-bits``)."""
        plain = make_prompt_cache(self.model)
        if self.kv_bits is None:
            return plain
        return kv_quant.make_quantized_cache(self.model, plain, self.kv_bits)

    def _open_store(self) -> PromptStore | None:
        """The persistent prompt cache of ``--prompt-cache-dir`` (not for sharded models: every
        rank would need the same entries)."""
        config = self.config
        if not config.prompt_cache_dir:
            return None
        if config.sharded:
            log.warning("--prompt-cache-dir is ignored for a sharded model")
            return None
        choice = self.weights_choice
        variant = f"weights={choice.weights};source={choice.source};kv_bits={self.kv_bits}"
        return PromptStore(config.prompt_cache_dir, model_identity(config.model, variant),
                           config.prompt_cache_bytes)

    def _op(self, op: int, args: list[int], tokens: int = 0) -> None:
        """Announce an operation that runs ``tokens`` tokens through the model to the other
        ranks of a sharded server (no-op otherwise); its budget derives from them."""
        if self.channel is not None:
            self.channel.send(op, args, tokens)

    def release(self, seqs: list[Sequence]) -> None:
        """Forget the caches of admitted requests that leave before joining the decode batch."""
        self._op(distributed.RELEASE, [s.order for s in seqs])
        for s in seqs:
            s.cache = None

    def heartbeat(self) -> None:
        """Sharded and idle: a no-op round trip that fails when another rank is gone."""
        self._op(distributed.NOP, [])

    def close(self) -> None:
        """The engine stops: the other ranks of a sharded server leave their worker loop;
        queued prompt-cache writes finish."""
        self._op(distributed.STOP, [])
        if self.store is not None:
            self.store.close()

    # ----------------------------------------------------------------- prefill

    def prefill_together(self, group: list[Sequence]) -> tuple[SampleOutput, list[Any]]:
        """Prefill several fresh prompts in one left-padded batch and sample their first tokens.

        When the prompts open with the same tokens (a shared system prompt, the chat template's
        preamble), that prefix runs once and only the rest of each prompt runs batched
        (:meth:`_shared_prefix_cache`). Returns the sample and the group's batch cache; hand both
        to :meth:`join_group` once the tokens are events.
        """
        longest = max(len(s.prompt) for s in group)
        for seq in group:
            seq.solo_prefix = None  # the group runs its shared prefix once instead
        self._op(distributed.PREFILL_TOGETHER, [s.order for s in group], len(group) * longest)
        tic = time.perf_counter()
        mx.reset_peak_memory()
        shared = shared_prefix(group)
        if shared:
            cache, width = self._shared_prefix_cache(group, shared), longest - shared
            inputs = mx.array([s.prompt[len(s.prompt) - width:] for s in group])
        else:
            pads = [longest - len(s.prompt) for s in group]
            cache = [BatchKVCache(pads) for _ in make_prompt_cache(self.model)]
            inputs = mx.array([[0] * pad + s.prompt for s, pad in zip(group, pads, strict=True)])
        if inputs.shape[1] > 1:
            # all but the last column only fill the caches: their logits are never evaluated,
            # so the LM head runs for the last position alone (B rows, not B x longest)
            self.model(inputs[:, :-1], cache=cache)
        logits = self.model(inputs[:, -1:], cache=cache)[:, -1, :]
        bitmask, masked = self.fill_masks(group)
        out = sample(logits, [s.row for s in group if s.row is not None], bitmask, masked)
        mx.eval(out.arrays(), [c.state for c in cache])
        for i, seq in enumerate(group):
            seq.prefill_pos = len(seq.prompt)
            self._note_prefill(seq, len(seq.prompt), tic)
            if self.prefix is not None:
                self.prefix.insert(seq.prompt, [c.extract(i) for c in cache])
        return out, cache

    def _shared_prefix_cache(self, group: list[Sequence], shared: int) -> list[Any]:
        """Batch caches holding the group's first ``shared`` tokens, computed once.

        The rows stay left-padded to the longest prompt (length ``longest``): row i's first
        ``longest - shared`` columns past the cache are the last tokens of its prompt, so a
        shorter row re-runs the tail of the prefix (``pad`` tokens, at most ``shared``:
        :func:`shared_prefix`) and its cache holds the prefix up to there.
        """
        base = make_prompt_cache(self.model)
        self.model(mx.array([group[0].prompt[:shared]]), cache=base)
        longest = max(len(s.prompt) for s in group)
        held = [shared - (longest - len(s.prompt)) for s in group]
        return [BatchKVCache.merge([restore([c.keys], [c.values], n, None)[0] for n in held])
                for c in base]

    def join_group(self, group: list[Sequence], cache: list[Any]) -> None:
        """Move the unfinished sequences of a batched prefill into the decode batch."""
        keep = [i for i, s in enumerate(group) if not s.finished]
        self._op(distributed.JOIN_GROUP, [group[i].order for i in keep])
        if not keep:
            return
        if len(keep) < len(group):
            for c in cache:
                c.filter(keep)
        if self.batch_cache is None:
            self.batch_cache = cache
        else:
            for batch_c, new_c in zip(self.batch_cache, cache, strict=True):
                cache_join.extend(batch_c, new_c)
        for i in keep:
            group[i].cache = None
            self.decoding.append(group[i])

    def chunk_size(self) -> int:
        """Prompt tokens in the next prefill chunk: ``prefill_step_size`` while streams decode
        (it bounds how long they wait), at least :data:`SOLO_PREFILL_STEP` when none does."""
        step = self.config.prefill_step_size
        return step if self.decoding else max(step, SOLO_PREFILL_STEP)

    def prefill_chunk(self, seq: Sequence, tokens: int | None = None) -> SampleOutput | None:
        """Prefill the next chunk of ``seq``'s prompt (``tokens`` of them, else
        :meth:`chunk_size`); after the last chunk, sample its first token and return the sample
        (None before)."""
        assert seq.cache is not None
        if seq.solo_prefix is not None and seq.prefill_pos == 0:
            reused, seq.cache = seq.solo_prefix
            seq.prefill_pos = seq.cached_tokens = reused
            metrics.prefix_cache_hits.inc(reused)
        seq.solo_prefix = None
        prompt, step = seq.prompt, tokens or self.chunk_size()
        start = seq.prefill_pos
        end = min(start + step, len(prompt))
        grow_once(seq.cache, len(prompt) - start)
        self._op(distributed.PREFILL_CHUNK, [seq.order, end - start], end - start)
        last = end == len(prompt)
        tic = time.perf_counter()
        mx.reset_peak_memory()
        if not last:
            self.model(mx.array([prompt[start:end]]), cache=seq.cache)
            mx.eval([c.state for c in seq.cache])
            seq.prefill_pos = end
            self._note_prefill(seq, end - start, tic)
            return None
        if end - 1 > start:
            self.model(mx.array([prompt[start : end - 1]]), cache=seq.cache)
        logits = self.model(mx.array([prompt[end - 1 :]]), cache=seq.cache)[:, -1, :]
        bitmask, masked = self.fill_masks([seq])
        out = sample(logits, [seq.row], bitmask, masked)
        mx.eval(out.arrays(), [c.state for c in seq.cache])
        seq.prefill_pos = end
        self._note_prefill(seq, end - start, tic)
        if self.prefix is not None:
            self.prefix.insert(prompt, seq.cache)
        return out

    def join(self, seq: Sequence) -> None:
        """Move a sequence whose prompt is prefilled (alone) into the decode batch."""
        assert seq.cache is not None
        self._op(distributed.JOIN, [seq.order])
        if self.kv_bits is not None:
            single = [kv_quant.BatchQuantizedKVCache.merge([c]) for c in seq.cache]
        else:
            single = [c.merge([c]) for c in seq.cache]
        if self.batch_cache is None:
            self.batch_cache = single
        else:
            for batch_c, new_c in zip(self.batch_cache, single, strict=True):
                if self.kv_bits is not None:
                    batch_c.extend(new_c)
                else:
                    cache_join.extend(batch_c, new_c)
        seq.cache = None
        self.decoding.append(seq)

    def _note_prefill(self, seq: Sequence, n: int, tic: float) -> None:
        dt = time.perf_counter() - tic
        if dt > 0:
            self.last_prefill_tps = n / dt
        seq.peak_memory = max(seq.peak_memory, mx.get_peak_memory())

    # ----------------------------------------------------------------- decode batch

    def drop_rows(self, rows: list[int]) -> None:
        """Remove decode-batch rows (their sequences already finished)."""
        self._op(distributed.DROP, list(rows))
        drop = set(rows)
        keep = [i for i in range(len(self.decoding)) if i not in drop]
        self.decoding = [self.decoding[i] for i in keep]
        if not keep:
            self.batch_cache = None
            self._pending = None
        elif self.batch_cache is not None:
            for c in self.batch_cache:
                c.filter(keep)

    def reset(self) -> None:
        """Forget the decode batch (after its sequences were finished)."""
        self._op(distributed.RESET, [])
        self.decoding = []
        self.batch_cache = None
        self._pending = None

    def decode_step(self, emit: Emit, *, newcomers: bool, pipeline: bool = True) -> None:
        """One decode step for the batch, software-pipelined when the batch allows it.

        When no row needs its previous token before the next step can be built (no grammar,
        no penalties) and the batch is stable (``newcomers``: a request is prefilling to join
        it), step k+1 is launched with ``mx.async_eval`` from step k's still-lazy tokens *before*
        step k's tokens are turned into events, so Python work (detokenising, stop matching,
        event hand-off, the HTTP side) overlaps the model's compute. Rows that finish at step k
        get one discarded extra step. ``pipeline=False`` launches nothing ahead (the next step
        may be a speculative one, :mod:`engine.speculative`).
        """
        seqs = self.decoding
        self.max_decode_batch = max(self.max_decode_batch, len(seqs))
        tic = time.perf_counter()
        mx.reset_peak_memory()
        pending = self._pending
        self._pending = None
        if pending is None:
            self._op(distributed.DECODE, [s.last_token for s in seqs], len(seqs))
            inputs = mx.array([[s.last_token] for s in seqs], dtype=mx.uint32)
            pending = (list(seqs), self._launch(seqs, inputs, ahead=0))
        p_seqs, p_out = pending
        if self.channel is not None or not pipeline:
            pass  # sharded: no pipelining, every rank must run the same steps in order
        elif can_pipeline(seqs, p_seqs, newcomers=newcomers, lazy=True,
                          max_context=self.max_context):
            self._pending = (list(seqs), self._launch(seqs, p_out.tokens[:, None], ahead=1))
        elif can_pipeline(seqs, p_seqs, newcomers=newcomers, lazy=False,
                          max_context=self.max_context):
            self._pending = (list(seqs), self._launch_after_accept(seqs, p_out))
        self._collect(p_seqs, p_out, tic, emit)
        if any(s.finished for s in self.decoding) and self._pending is not None:
            # the step already launched includes rows that just finished: take it now
            q_seqs, q_out = self._pending
            self._pending = None
            self._collect(q_seqs, q_out, time.perf_counter(), emit)
        done = [i for i, s in enumerate(self.decoding) if s.finished]
        if done:
            self._store_finished([self.decoding[i] for i in done], done)
            self.drop_rows(done)

    def _launch(self, seqs: list[Sequence], inputs: mx.array, ahead: int) -> SampleOutput:
        """Build one decode step's graph and start evaluating it (asynchronously)."""
        bitmask, masked = self.fill_masks(seqs) if ahead == 0 else (None, None)
        logits = self.model(inputs, cache=self.batch_cache)[:, -1, :]
        out = sample(logits, [s.row for s in seqs if s.row is not None], bitmask, masked,
                     ahead=ahead)
        mx.async_eval(out.arrays())
        return out

    def _collect(self, seqs: list[Sequence], out: SampleOutput, tic: float, emit: Emit) -> None:
        """Wait for a launched step and turn its tokens into events."""
        mx.eval(out.arrays())
        dt = time.perf_counter() - tic
        if dt > 0:
            self.last_decode_tps = len(seqs) / dt
        peak = mx.get_peak_memory()
        for s in seqs:
            s.peak_memory = max(s.peak_memory, peak)
        emit(seqs, out)

    def _launch_after_accept(self, seqs: list[Sequence], out: SampleOutput) -> SampleOutput:
        """Read step k's tokens, feed them to each row's sampling state and grammar, then launch
        step k+1 (with fresh masks) before step k's text and events are produced."""
        tokens = out.tokens.tolist()
        for seq, token in zip(seqs, tokens, strict=True):
            if seq.row is None:
                continue
            seq.row.accept(int(token))
            constraint = seq.request.constraint
            if constraint is not None:
                try:
                    constraint.accept(int(token))
                except Exception as exc:  # noqa: BLE001 - fails only this request
                    seq.error = f"grammar: {type(exc).__name__}: {exc}"
            seq.pre_accepted = True
        return self._launch(seqs, out.tokens[:, None], ahead=0)

    def _store_finished(self, seqs: list[Sequence], rows: list[int]) -> None:
        """Keep the KV state (prompt + output) of cleanly finished rows in the prefix cache."""
        if self.prefix is None or self.batch_cache is None:
            return
        kept = [(row, seq.prompt + seq.generated[:-1]) for seq, row in zip(seqs, rows, strict=True)
                if seq.error is None and seq.request.constraint is None]
        self._op(distributed.STORE, [v for row, tokens in kept for v in (row, len(tokens))])
        self.store_rows(kept)

    def store_rows(self, kept: list[tuple[int, list[int]]]) -> None:
        """Insert decode-batch rows (row, the tokens its KV state holds) into the prefix cache."""
        if self.prefix is None or self.batch_cache is None:
            return
        for row, tokens in kept:
            try:
                cache = [c.extract(row) for c in self.batch_cache]
                for c in cache:  # a pipelined step may have run one token past the end
                    if c.offset > len(tokens) and c.is_trimmable():
                        c.trim(c.offset - len(tokens))
                if all(c.offset == len(tokens) for c in cache):
                    self.prefix.insert(tokens, cache)
            except Exception:  # noqa: BLE001 - caching is best effort
                log.exception("prefix cache store failed")

    def fill_masks(self, seqs: list[Sequence]) -> tuple[np.ndarray | None, list[bool] | None]:
        """Ask each constraint for its allowed tokens; a raising constraint fails its request."""
        if not any(s.request.constraint is not None for s in seqs):
            return None, None
        words = (self.vocab_size + 31) // 32
        bitmask = np.full((len(seqs), words), -1, dtype=np.int32)
        masked = [False] * len(seqs)
        for i, s in enumerate(seqs):
            constraint = s.request.constraint
            if constraint is None or s.error is not None:
                continue
            try:
                masked[i] = bool(constraint.fill_bitmask(bitmask, i))
            except Exception as exc:  # noqa: BLE001
                s.error = f"grammar: {type(exc).__name__}: {exc}"
        return bitmask, masked

    # ----------------------------------------------------------------- memory

    def kv_bytes(self, prefilling: list[Sequence]) -> int:
        """Bytes held by the decode batch's KV cache and the prefilling requests' caches."""
        kv = 0
        if self.batch_cache is not None:
            kv += sum(c.nbytes for c in self.batch_cache)
        for s in prefilling:
            if s.cache is not None:
                kv += sum(c.nbytes for c in s.cache if c.keys is not None)
        return kv


def shared_prefix(group: list[Sequence]) -> int:
    """Leading tokens every prompt of a grouped prefill shares, to run once: 0 when fewer than
    :data:`SHARED_PREFIX_MIN`, or when a prompt is shorter than the longest by more than the
    prefix (left padding would then reach past it). At most the shortest prompt less one, so
    every row runs at least its last token."""
    if len(group) < 2:
        return 0
    lengths = [len(s.prompt) for s in group]
    first = np.asarray(group[0].prompt, dtype=np.int64)
    n = min(lengths) - 1
    for seq in group[1:]:
        n = min(n, common_prefix(first, np.asarray(seq.prompt, dtype=np.int64)))
    if n < SHARED_PREFIX_MIN or max(lengths) - min(lengths) > n:
        return 0
    return n

