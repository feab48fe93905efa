"""The serving layer: HTTP-free translation between API surfaces and the engine.

Per surface, a translator turns the generated (typed) request model into the engine's
:class:`engine.types.GenerationRequest`, and a shaper turns the engine's events into that
surface's objects and stream events. Handlers (HTTP) call these; the engine knows none of them.

Shared pieces, written once:

- :mod:`serving.values`      generated-model field values as plain Python
- :mod:`serving.ids`         response ids, timestamps, system fingerprint
- :mod:`serving.sampling`    request fields -> SamplingParams (request > flags > defaults)
- :mod:`serving.prepare`     a surface-neutral chat spec -> prompt tokens, constraint, parsing
- :mod:`serving.run`         running a request on the engine (capacity errors, whole output)
- :mod:`serving.usage`       usage, llama.cpp timings and the X-AFM-Profile payload

Surfaces: :mod:`serving.chat`, :mod:`serving.completions`, :mod:`serving.responses` (with
:mod:`serving.conversation` and :mod:`serving.response_output`), :mod:`serving.messages` (with
:mod:`serving.messages_stream`), :mod:`serving.embeddings`, :mod:`serving.tokens`;
:mod:`serving.batch` runs batch lines through the same functions.
"""
