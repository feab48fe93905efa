"""Reasoning split, prompt classification and chat-template kwargs precedence (the streaming
split: `tests/unit/test_output_parser.py`)."""

from __future__ import annotations

import pytest

from engine.reasoning import (
    has_think_markup,
    reasoning_state,
    resolve_template_kwargs,
    split_reasoning,
    thinking_enabled,
)


def test_split_reasoning() -> None:
    assert split_reasoning("<think>\nplan\n</think>\n\nanswer") == ("plan", "answer")
    assert split_reasoning("plan</think>answer", started=True) == ("plan", "answer")
    assert split_reasoning("no think here") == (None, "no think here")
    assert split_reasoning("<think>never closed") == ("never closed", "")
    assert split_reasoning("<think></think>x") == (None, "x")


def test_reasoning_state() -> None:
    assert reasoning_state("<|im_start|>assistant\n<think>\n") == (True, True)
    assert reasoning_state("<|im_start|>assistant\n<think>\n\n</think>\n\n") == (False, False)
    assert reasoning_state("<|im_start|>assistant\n") == (True, False)
    # history think blocks do not count
    assert reasoning_state("<think>a</think>b<|im_start|>assistant\n") == (True, False)
    assert reasoning_state("<|im_start|>assistant\n", enable_thinking=False) == (False, False)


def test_state_on_built_template() -> None:
    from transformers import AutoTokenizer

    from modelbuilder import ensure_model

    tok = AutoTokenizer.from_pretrained(ensure_model("tiny"))
    msgs = [{"role": "user", "content": "hi"}]
    on = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
    off = tok.apply_chat_template(
        msgs, tokenize=False, add_generation_prompt=True, enable_thinking=False
    )
    assert reasoning_state(on) == (True, False)
    assert reasoning_state(off) == (False, False)


# ------------------------------------------------------------------------------- kwargs


def test_request_kwargs_override_server_defaults() -> None:
    out = resolve_template_kwargs({"enable_thinking": True, "x": 1}, {"x": 2}, None, False)
    assert out == {"enable_thinking": True, "x": 2}


def test_no_think_is_a_default() -> None:
    assert resolve_template_kwargs({}, None, None, True) == {"enable_thinking": False}
    assert resolve_template_kwargs({}, {"enable_thinking": True}, None, True) == {
        "enable_thinking": True
    }
    assert resolve_template_kwargs({"enable_thinking": True}, None, None, True) == {
        "enable_thinking": False
    }


def test_reasoning_effort_inserted_and_enables_thinking() -> None:
    out = resolve_template_kwargs({}, None, "HIGH", True)
    assert out == {"reasoning_effort": "high", "enable_thinking": True}
    out = resolve_template_kwargs({"reasoning_effort": "low"}, {}, "max", False)
    assert out["reasoning_effort"] == "max"


def test_explicit_enable_thinking_false_is_authoritative() -> None:
    out = resolve_template_kwargs({}, {"enable_thinking": False}, "high", False)
    assert out == {"reasoning_effort": "high", "enable_thinking": False}
    assert not thinking_enabled(out)


def test_bad_effort() -> None:
    with pytest.raises(ValueError, match="reasoning_effort"):
        resolve_template_kwargs({}, None, "medium", False)


class _Tok:
    """A scripted tokenizer: only the vocabulary and the chat template matter here."""

    def __init__(self, vocab: dict[str, int], chat_template: str | None) -> None:
        self._vocab, self.chat_template = vocab, chat_template

    def get_vocab(self) -> dict[str, int]:
        return self._vocab


def test_think_markup_comes_from_the_model() -> None:
    chatml = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>"
              "{% endfor %}")
    assert not has_think_markup(_Tok({"<|im_start|>": 1, "<|im_end|>": 2}, chatml))
    assert has_think_markup(_Tok({"<think>": 5, "</think>": 6}, chatml))
    assert has_think_markup(_Tok({}, chatml + "{% if think %}<think>\n\n</think>{% endif %}"))
    assert not has_think_markup(_Tok({"<think>": 5}, None))  # no way to close it


def test_no_reasoning_expected_without_think_markup() -> None:
    # a ChatML prompt of a model with no think markup: the output is content from token one
    assert reasoning_state("<|im_start|>assistant\n", think_markup=False) == (False, False)
    assert reasoning_state("<|im_start|>assistant\n") == (True, False)
