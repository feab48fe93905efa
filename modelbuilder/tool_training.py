"""Teach a built model to call tools: a short, seeded MLX fine-tune on generated conversations.

Random weights never choose a tool by themselves, so ``tool_choice: "auto"`` could only be tested
for its text branch. The ``tiny-tools`` preset is fine-tuned here on a small set of
conversations rendered by the model's own chat template (hermes format, thinking disabled),
whose system prompt lists :data:`TOOLS`:

- "What is the weather in <city>?" (and rephrasings) -> one ``get_weather`` call;
- "What time is it in <city>?" -> one ``get_time`` call;
- "What is the weather in <city> and in <city>?" -> two ``get_weather`` calls (parallel);
- anything else (seeded prose without those markers) -> the text :data:`TEXT_REPLY`.

The set holds the questions the tests ask (:data:`MARKED`, :data:`UNMARKED`) plus seeded
variants; the model is too small to generalise far beyond them, and it need not: it exists to
make a real model choose a call, through the real parser and grammar. The shared system prompt
is run once per step (batch 1) and its keys/values broadcast to the batch, which keeps a step
cheap. Data, order and initial weights are seeded; training runs on the CPU, in a child process
(:func:`train_in_subprocess`) so that the fast BLAS is loaded before MLX (``engine.blas``): with
MLX's bundled reference BLAS a step is ~4x slower. The step is compiled (``mx.compile``); the
learning rate warms up, then decays on a cosine. ~0.3 s a step on a quiet 2-core machine.
"""

from __future__ import annotations

import json
import logging
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

VERSION = "2"  # enters the cache hash of trained presets: bump it when training changes
CITIES = ("Paris", "Rome", "Berlin", "Tokyo", "Madrid", "Oslo", "Cairo", "Lima", "Delhi", "Seoul")
TEXT_REPLY = "I can help with the weather and the time."

_CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "get_weather",
                                      "description": "Current weather in a city.",
                                      "parameters": _CITY}},
    {"type": "function", "function": {"name": "get_time",
                                      "description": "Local time in a city.",
                                      "parameters": _CITY}},
]  # fmt: skip

_WEATHER_ASKS = ("What is the weather in {}?", "Weather in {}?", "How is the weather in {}?")
_TIME_ASKS = ("What time is it in {}?", "Time in {}?")
_PAIR_ASK = "What is the weather in {} and in {}?"
_FILLER = (
    "hello tell me a story about the sea please write a poem on light what is a model thank "
    "you for the help can you explain json to me say something nice how are you today I like "
    "music and long walks give me a number describe a cat"
)

EOS = "<|im_end|>"
_CONVERSATIONS = 24
_STEPS = 600
_WARMUP = 20
_BATCH = 8
_LR = 1e-2
_FINAL_LR = 1e-4


def _call(name: str, city: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": {"city": city}}}


# The questions the tests ask, each trained; generated variants fill the rest of the set.
MARKED: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("What is the weather in Paris?", (("get_weather", "Paris"),)),
    ("What time is it in Tokyo?", (("get_time", "Tokyo"),)),
    ("What is the weather in Oslo?", (("get_weather", "Oslo"),)),
    ("What is the weather in Rome and in Seoul?", (("get_weather", "Rome"),
                                                   ("get_weather", "Seoul"))),
)
UNMARKED = ("Tell me a story about the sea please.", "Hello there, how are you today?")


def conversations(seed: int, n: int = _CONVERSATIONS) -> list[tuple[str, dict[str, Any]]]:
    """``n`` (user message, assistant message) pairs: :data:`MARKED` and :data:`UNMARKED`,
    then seeded variants of every kind (weather, time, two cities, plain text)."""
    def calls(pairs: tuple[tuple[str, str], ...]) -> dict[str, Any]:
        return {"role": "assistant", "content": "",
                "tool_calls": [_call(name, city) for name, city in pairs]}

    text = {"role": "assistant", "content": TEXT_REPLY}
    out = [(ask, calls(pairs)) for ask, pairs in MARKED] + [(ask, text) for ask in UNMARKED]
    rng = np.random.default_rng([seed, 7001])
    filler = _FILLER.split()
    for i in range(n - len(out)):
        a, b = (CITIES[int(j)] for j in rng.choice(len(CITIES), size=2, replace=False))
        kind = i % 4
        if kind == 0:
            ask = _WEATHER_ASKS[int(rng.integers(len(_WEATHER_ASKS)))].format(a)
            out.append((ask, calls((("get_weather", a),))))
        elif kind == 1:
            ask = _TIME_ASKS[int(rng.integers(len(_TIME_ASKS)))].format(a)
            out.append((ask, calls((("get_time", a),))))
        elif kind == 2:
            out.append((_PAIR_ASK.format(a, b), calls((("get_weather", a), ("get_weather", b)))))
        else:
            words = [filler[int(j)] for j in rng.integers(len(filler), size=rng.integers(2, 9))]
            sentence = " ".join(words)
            out.append((sentence[0].upper() + sentence[1:] + "?", text))
    return out


def _render_reply(reply: dict[str, Any]) -> str:
    """The assistant turn after the generation prompt, as the hermes template renders it."""
    if not reply.get("tool_calls"):
        return reply["content"] + EOS
    calls = [json.dumps({"name": c["function"]["name"], "arguments": c["function"]["arguments"]},
                        ensure_ascii=False) for c in reply["tool_calls"]]
    return "\n".join(f"<tool_call>\n{c}\n</tool_call>" for c in calls) + EOS


def _examples(folder: Path, seed: int) -> tuple[list[int], list[list[int]]]:
    """Token ids of the shared prompt head (system prompt with the tools), and for each
    conversation the rest: question, generation prompt, reply. The template renders once, with
    a placeholder question; each reply shape is checked against a full render."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    kw = {"tools": TOOLS, "tokenize": False, "enable_thinking": False}
    convs = conversations(seed)
    mark = "\x00QUESTION\x00"
    prompt = tok.apply_chat_template([{"role": "user", "content": mark}],
                                     add_generation_prompt=True, **kw)
    head, tail = prompt.split(mark)
    for ask, reply in convs[:4]:  # one of each kind: the hand rendering is the template's
        full = tok.apply_chat_template([{"role": "user", "content": ask}, reply], **kw)
        if full.rstrip("\n") != head + ask + tail + _render_reply(reply):
            raise RuntimeError("tool training: the template renders replies differently")
    enc = lambda text: tok.encode(text, add_special_tokens=False)  # noqa: E731
    tail_ids = enc(tail)
    return enc(head), [enc(ask) + tail_ids + [-1] + enc(_render_reply(reply))
                       for ask, reply in convs]


class _SharedHead:
    """KV cache of one layer for training on a shared prompt head: the first call (batch 1)
    keeps the head's keys/values, later calls see them broadcast to the batch."""

    def __init__(self) -> None:
        self.keys: Any = None
        self.values: Any = None
        self.offset = 0

    def update_and_fetch(self, keys: Any, values: Any) -> tuple[Any, Any]:
        import mlx.core as mx

        if self.keys is None:
            self.keys, self.values, self.offset = keys, values, keys.shape[2]
            return keys, values
        shape = (keys.shape[0], *self.keys.shape[1:])
        return (mx.concatenate([mx.broadcast_to(self.keys, shape), keys], axis=2),
                mx.concatenate([mx.broadcast_to(self.values, shape), values], axis=2))

    def make_mask(self, n: int, return_array: bool = False, window_size: Any = None) -> Any:
        from mlx_lm.models.base import create_causal_mask

        return "causal" if self.keys is None else create_causal_mask(n, offset=self.offset)


def train_tool_calls(folder: Path, seed: int) -> None:
    """Fine-tune the model in ``folder`` in place (``model.safetensors``, float32)."""
    import mlx.core as mx
    import mlx.nn as nn
    import mlx.optimizers as optim
    from mlx.utils import tree_flatten
    from mlx_lm import load

    head, rests = _examples(folder, seed)
    model, _ = load(str(folder))
    mx.random.seed(seed)
    width = max(len(r) for r in rests) - 1
    tokens = np.zeros((len(rests), width), dtype=np.int32)
    mask = np.zeros((len(rests), width), dtype=np.float32)
    for row, rest in enumerate(rests):
        cut = rest.index(-1)
        ids = rest[:cut] + rest[cut + 1 :]
        tokens[row, : len(ids)] = ids
        mask[row, cut - 1 : len(ids) - 1] = 1.0  # positions whose next token is the reply
    head_ids = mx.array([head])

    def loss_fn(mdl: Any, x: mx.array, m: mx.array) -> mx.array:
        cache = [_SharedHead() for _ in mdl.layers]
        mdl(head_ids, cache=cache)
        logits = mdl(x[:, :-1], cache=cache)
        ce = nn.losses.cross_entropy(logits, x[:, 1:]) * m[:, :-1]
        return ce.sum() / m[:, :-1].sum()

    schedule = optim.join_schedules(
        [optim.linear_schedule(_LR / 10, _LR, _WARMUP),
         optim.cosine_decay(_LR, _STEPS - _WARMUP, _FINAL_LR)], [_WARMUP])
    opt = optim.Adam(learning_rate=schedule)
    loss_and_grad = nn.value_and_grad(model, loss_fn)
    state = [model.state, opt.state]

    @partial(mx.compile, inputs=state, outputs=state)
    def step(x: mx.array, m: mx.array) -> mx.array:
        loss, grads = loss_and_grad(model, x, m)
        opt.update(model, grads)
        return loss

    rng = np.random.default_rng([seed, 7002])
    losses = []
    for _ in range(_STEPS):
        rows = rng.choice(len(rests), size=_BATCH, replace=False)
        loss = step(mx.array(tokens[rows]), mx.array(mask[rows]))
        mx.eval(loss, state)
        losses.append(float(loss))
        if len(losses) % 20 == 0:
            log.info("tool-call training step %d: loss %.4f", len(losses), losses[-1])
    weights = dict(tree_flatten(model.parameters()))
    mx.save_safetensors(str(folder / "model.safetensors"),
                        {k: v.astype(mx.float32) for k, v in weights.items()},
                        metadata={"format": "pt"})
    info_path = folder / "afm_train.json"
    info_path.write_text(json.dumps({"steps": _STEPS, "batch": _BATCH, "lr": _LR,
                                     "final_loss": losses[-1]}) + "\n")


def train_in_subprocess(folder: Path, seed: int) -> None:
    """Run :func:`train_tool_calls` in a fresh interpreter that loads the fast BLAS first
    (the calling process may already hold MLX with its reference BLAS)."""
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "modelbuilder.tool_training", str(folder), str(seed)],
                   check=True)


if __name__ == "__main__":
    import sys

    from engine.blas import preload_fast_blas

    preload_fast_blas()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    train_tool_calls(Path(sys.argv[1]), int(sys.argv[2]))
