"""The MLX chat engine: one thread, continuous batching, streamed events per request.

:class:`ChatEngine` is the caller-facing facade. All MLX work runs on a single engine thread
(:class:`~engine.engine_loop.EngineLoop`, which holds the scheduling policy, the model runner and
the event emitter). ``generate`` (asyncio side) puts a :class:`~engine.sequence.Sequence` on a
thread-safe inbox and reads events from its own asyncio queue, which the engine thread fills
through ``loop.call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import queue
import threading
import weakref
from collections.abc import AsyncIterator
from typing import Any

from engine.config import EngineConfig
from engine.cpu_weights import WeightsChoice
from engine.detokenizer import TokenTable
from engine.engine_loop import EngineLoop
from engine.model_runner import ModelRunner
from engine.sequence import QueueTimeout, Sequence
from engine.templating import render_tokens
from engine.types import (
    EngineUnavailableError,
    GenerationEvent,
    GenerationRequest,
    ServerBusyError,
)

log = logging.getLogger(__name__)

_LIVE_ENGINES: weakref.WeakSet[ChatEngine] = weakref.WeakSet()


@atexit.register
def _shutdown_live_engines() -> None:
    """Stop engine threads before interpreter teardown (MLX aborts if one is still running)."""
    for engine in list(_LIVE_ENGINES):
        engine.shutdown()


class ChatEngine:
    """Loads a model with mlx-lm and serves generation requests from one engine thread."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.model_id = config.model
        self._inbox: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._live: dict[str, int] = {}
        self._live_lock = threading.Lock()
        self._ready = threading.Event()
        self._load_error: BaseException | None = None
        self._closed = False
        self._work: EngineLoop | None = None  # set on the engine thread once the model is loaded
        self._thread = threading.Thread(target=self._run, name="afm-engine", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._load_error is not None:
            raise self._load_error
        _LIVE_ENGINES.add(self)

    # ----------------------------------------------------------------- the loaded model

    @property
    def _runner(self) -> ModelRunner:
        assert self._work is not None, "the model is not loaded"
        return self._work.runner

    @property
    def model(self) -> Any:
        return self._runner.model

    @property
    def tokenizer(self) -> Any:
        """The mlx-lm ``TokenizerWrapper``."""
        return self._runner.tokenizer

    @property
    def model_type(self) -> str | None:
        """The config's ``model_type`` (e.g. ``qwen3``), if any."""
        return self._runner.model_type

    @property
    def think_markup(self) -> bool:
        """Whether the model has think markup (:func:`engine.reasoning.has_think_markup`)."""
        return self._runner.think_markup

    @property
    def vocab_size(self) -> int:
        return self._runner.vocab_size

    @property
    def max_context(self) -> int:
        return self._runner.max_context

    @property
    def eos_token_ids(self) -> set[int]:
        """Token ids that end generation (unless a request sets ``ignore_eos``)."""
        assert self._work is not None, "the model is not loaded"
        return self._work.emitter.eos_token_ids

    @eos_token_ids.setter
    def eos_token_ids(self, ids: set[int]) -> None:
        assert self._work is not None, "the model is not loaded"
        self._work.emitter.eos_token_ids = set(ids)

    @property
    def token_table(self) -> TokenTable:
        return self._runner.token_table

    @property
    def weights_bytes(self) -> int:
        return self._runner.weights_bytes

    @property
    def weights_choice(self) -> WeightsChoice:
        """What the CPU weight policy chose at load (:mod:`engine.cpu_weights`)."""
        return self._runner.weights_choice

    # ----------------------------------------------------------------- caller-facing API

    def render_chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        template_kwargs: dict[str, Any],
        add_generation_prompt: bool = True,
    ) -> list[int]:
        """Prompt token ids from the model's chat template."""
        return render_tokens(
            self.tokenizer, messages, tools, template_kwargs, add_generation_prompt
        )

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=add_special_tokens))

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids)

    async def generate(self, req: GenerationRequest) -> AsyncIterator[GenerationEvent]:
        """Stream events for ``req``; the last one has ``finish_reason`` and ``stats`` set.

        Raises ServerBusyError (before any event) when no slot frees within ``queue_timeout``.
        Closing the iterator early cancels the request.
        """
        if self._closed:
            raise EngineUnavailableError("the chat engine is shut down")
        if self._work is not None and self._work.lost:
            raise EngineUnavailableError(self._work.lost)
        seq = Sequence(req, asyncio.get_running_loop(), asyncio.Queue())
        with self._live_lock:
            self._live[req.request_id] = self._live.get(req.request_id, 0) + 1
        self._inbox.put(("submit", seq))
        done = False
        try:
            while True:
                item = await seq.out.get()
                if isinstance(item, QueueTimeout):
                    done = True
                    raise ServerBusyError(
                        f"no generation slot became free within {self.config.queue_timeout:g}s"
                    )
                if item.finish_reason is not None:
                    done = True
                yield item
                if done:
                    return
        finally:
            if not done:
                self._inbox.put(("cancel_seq", seq))

    def cancel(self, request_id: str) -> bool:
        """Cancel a queued or running request; it ends with finish_reason "cancelled"."""
        with self._live_lock:
            known = request_id in self._live
        if known:
            self._inbox.put(("cancel", request_id))
        return known

    def active_request_ids(self) -> set[str]:
        with self._live_lock:
            return set(self._live)

    def stats(self) -> dict[str, Any]:
        """A snapshot: running/waiting counts, memory (bytes) and last measured throughputs."""
        return dict(self._work.stats) if self._work is not None else {}

    def shutdown(self) -> None:
        """Stop the engine thread; unfinished requests end with finish_reason "cancelled"."""
        if self._closed:
            return
        self._closed = True
        self._inbox.put(("stop", None))
        self._thread.join(timeout=60)
        if not self._thread.is_alive() and self._work is not None:
            self._work.close_out()  # a request submitted while the thread was stopping

    # ----------------------------------------------------------------- engine thread

    def _run(self) -> None:
        try:
            work = EngineLoop(self.config, self._inbox, self._unregister)  # loads the model
        except BaseException as exc:  # noqa: BLE001 - reported to the constructor
            self._load_error = exc
            self._ready.set()
            return
        self._work = work
        self._ready.set()
        work.run()

    def _unregister(self, seq: Sequence) -> None:
        rid = seq.request.request_id
        with self._live_lock:
            n = self._live.get(rid, 0) - 1
            if n > 0:
                self._live[rid] = n
            else:
                self._live.pop(rid, None)
