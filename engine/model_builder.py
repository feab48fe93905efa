"""Offline, deterministic builder of small Qwen3-architecture models.

No machine here reaches a model hub, so the project makes its own models: seeded random weights
in a Qwen3 layout, a byte-level BPE tokenizer trained by ``tokenizers`` on a seeded synthetic
corpus, and a Qwen3-style chat template with think markup and one of four tool-call formats.
The folder loads with ``mlx_lm.load`` and with HF transformers.

Use :func:`ensure_model` for a cached build of a preset and :func:`build_model` for a one-off.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

BUILDER_VERSION = "1"
BUILD_INFO_FILE = "afm_build.json"
TOOL_FORMATS = ("hermes", "qwen3_xml", "llama3_json", "mistral")

# Special tokens take ids 0.. in this order, the same for every preset.
SPECIAL_TOKENS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
)
SPECIAL_TOKEN_IDS: dict[str, int] = {tok: i for i, tok in enumerate(SPECIAL_TOKENS)}
# Control tokens (skipped by ``skip_special_tokens``); the others stay visible in decoded text
# so that reasoning and tool-call parsers see them, as in Qwen3's own tokenizer.
CONTROL_TOKENS = frozenset({"<|endoftext|>", "<|im_start|>", "<|im_end|>"})
EOS_TOKEN = "<|im_end|>"
PAD_TOKEN = "<|endoftext|>"

# Qwen2/Qwen3 pre-tokenizer regex (the one transformers' Qwen2Tokenizer uses).
_PRETOKENIZE_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


@dataclass(frozen=True)
class ModelSpec:
    """Shape and flavour of a built model; ``vocab_size`` is the target tokenizer size."""

    name: str
    hidden_size: int = 64
    num_layers: int = 2
    intermediate_size: int = 128
    num_heads: int = 4
    num_kv_heads: int = 2
    head_dim: int = 16
    vocab_size: int = 4096
    max_position_embeddings: int = 4096
    tool_format: str = "hermes"
    seed: int = 0
    dtype: str = "float32"
    tie_word_embeddings: bool = True
    rope_theta: float = 1_000_000.0
    rms_norm_eps: float = 1e-6


def _tiny(name: str, tool_format: str = "hermes") -> ModelSpec:
    return ModelSpec(name=name, tool_format=tool_format)


PRESETS: dict[str, ModelSpec] = {
    "tiny": _tiny("tiny"),
    "tiny-qwen3-xml": _tiny("tiny-qwen3-xml", "qwen3_xml"),
    "tiny-llama3": _tiny("tiny-llama3", "llama3_json"),
    "tiny-mistral": _tiny("tiny-mistral", "mistral"),
    "default": ModelSpec(
        name="default",
        hidden_size=256,
        num_layers=4,
        intermediate_size=768,
        num_heads=4,
        num_kv_heads=2,
        head_dim=64,
        vocab_size=8192,
    ),
    "bench": ModelSpec(
        name="bench",
        hidden_size=512,
        num_layers=8,
        intermediate_size=1536,
        num_heads=8,
        num_kv_heads=4,
        head_dim=64,
        vocab_size=32000,
    ),
}


# --------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------

_ONSETS = (
    "", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "qu", "r", "s", "t", "v",
    "w", "y", "z", "bl", "br", "ch", "cl", "cr", "dr", "fl", "fr", "gl", "gr", "pl", "pr", "sc",
    "sh", "sk", "sl", "sm", "sn", "sp", "st", "str", "sw", "th", "tr", "wh",
)  # fmt: skip
_NUCLEI = ("a", "e", "i", "o", "u", "ai", "ea", "ee", "ie", "io", "oa", "oo", "ou", "ue", "y")
_CODAS = (
    "", "", "", "b", "ck", "d", "ft", "g", "l", "ld", "m", "n", "nd", "ng", "nt", "p", "r",
    "rd", "rk", "rn", "rs", "rt", "s", "sh", "st", "t", "th", "x",
)  # fmt: skip
_SUFFIXES = ("", "", "", "", "s", "ed", "ing", "er", "ly", "tion", "ness", "ment", "able")
_ENGLISH_TEXT = (
    "the of and to in is that it for was on are as with his they at be this have from or one "
    "had by word but not what all were we when your can said there use an each which she do how "
    "their if will up other about out many then them these so some her would make like him into "
    "time has look two more write go see number no way could people my than first water been "
    "call who oil its now find long down day did get come made may part model server token "
    "request response stream json schema function value error data file user system assistant "
    "message content tool call name arguments result weather city temperature search query "
    "hello world please thank you yes"
)
_FOREIGN = (
    "Der schnelle braune Fuchs springt über den faulen Hund. Größe, Straße, Mädchen, Übung.",
    "Le café est très bon à Paris; où est la bibliothèque? Déjà vu, naïve, façade, élève.",
    "El niño pequeño comió mañana una piña. ¿Dónde está la estación? ¡Qué bien, señor!",
    "Быстрая коричневая лиса прыгает через ленивую собаку. Привет, мир! Спасибо большое.",
    "我们今天去北京吃饭。你好，世界！这是一个测试。天气很好，我很高兴。",
    "今日は良い天気ですね。こんにちは、世界！ありがとうございます。東京へ行きます。",
    "안녕하세요 세계! 오늘 날씨가 좋네요. 감사합니다.",
    "مرحبا بالعالم! كيف حالك اليوم؟ شكرا جزيلا.",
    "שלום עולם! מה שלומך היום?",
    "नमस्ते दुनिया! आप कैसे हैं? धन्यवाद।",
    "Γειά σου κόσμε! Καλημέρα, ευχαριστώ πολύ.",
    "Merhaba dünya! Günaydın, teşekkür ederim. Çok güzel.",
    "Xin chào thế giới! Cảm ơn bạn rất nhiều.",
    "Emoji: 😀 😂 🎉 🚀 ❤️ 👍 🔥 ✨ 🌍 🤖 ✅ ❌ 💡 🙏 👋🏽 👨‍👩‍👧",
)
_CJK = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切"  # noqa: E501
_EMOJI = "😀😃😄😁😆😅😂🤣😊😇🙂🙃😉😌😍🥰😘😗😙😚😋😛😝😜🤪🤨🧐🤓😎🥳😏😒😞😔😟😕🙁😣😖😫😩🥺😢😭😤😠😡🤬🤯😳🥵🥶😱😨😰😥😓🤗🤔🤭🤫🤥😶😐😑😬🙄😯😦😧😮😲🥱😴🤤😪😵🤐🥴🤢🤮🤧😷🤒🤕🤑🤠😈👿👹👺🤡💩👻💀👽👾🤖🎃😺😸😹😻😼😽🙀😿😾👋🤚🖐✋🖖👌🤏✌🤞🤟🤘🤙👈👉👆🖕👇👍👎✊👊🤛🤜👏🙌👐🤲🤝🙏✍💅🤳💪🦾🦵🦿🦶👂🦻👃🧠🦷🦴👀👁👅👄💋🩸🔥✨🌟💫💥💢💦💧💤🎉🎊🎈🎁🏆🥇🚀🌍🌎🌏✅❌💡⭐"  # noqa: E501
_CYRILLIC = str.maketrans("abcdefghijklmnopqrstuvwxyz", "абцдефгхийклмнопкрстуввхыз")


def _zipf_choice(rng: np.random.Generator, n_items: int, size: int, a: float = 1.05) -> np.ndarray:
    """Indices in ``[0, n_items)`` drawn with Zipf-like weights."""
    weights = 1.0 / np.power(np.arange(n_items) + 2.7, a)
    return rng.choice(n_items, size=size, p=weights / weights.sum())


def _pseudo_word(rng: np.random.Generator) -> str:
    n_syll = int(rng.choice([1, 2, 2, 3, 3, 4]))
    parts = [
        _ONSETS[rng.integers(len(_ONSETS))]
        + _NUCLEI[rng.integers(len(_NUCLEI))]
        + _CODAS[rng.integers(len(_CODAS))]
        for _ in range(n_syll)
    ]
    return "".join(parts) + _SUFFIXES[rng.integers(len(_SUFFIXES))]


def _lexicon(rng: np.random.Generator, size: int) -> list[str]:
    """English words first (most frequent), then distinct pseudo-words."""
    words = list(dict.fromkeys(_ENGLISH_TEXT.split()))
    seen = set(words)
    while len(words) < size:
        word = _pseudo_word(rng)
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def _prose(rng: np.random.Generator, lex: list[str], n_lines: int) -> Iterator[str]:
    idx = _zipf_choice(rng, len(lex), n_lines * 12)
    lengths = rng.integers(4, 20, size=n_lines)
    pos = 0
    for n in lengths:
        words = [lex[i] for i in idx[pos : pos + n]]
        pos += n
        if rng.random() < 0.3:
            words[int(rng.integers(n))] += ","
        if rng.random() < 0.1:
            words = [w.translate(_CYRILLIC) for w in words]
        text = " ".join(words)
        yield text[0].upper() + text[1:] + str(rng.choice([".", ".", ".", "?", "!", ":", ";"]))


def _json_snippets(rng: np.random.Generator, lex: list[str], n: int) -> Iterator[str]:
    keys = lex[:400]
    for _ in range(n):
        obj: dict[str, Any] = {}
        for _ in range(int(rng.integers(1, 6))):
            key = keys[int(rng.integers(len(keys)))]
            kind = int(rng.integers(6))
            if kind == 0:
                obj[key] = int(rng.integers(-1000, 100000))
            elif kind == 1:
                obj[key] = round(float(rng.normal(0, 100)), int(rng.integers(1, 5)))
            elif kind == 2:
                obj[key] = bool(rng.integers(2))
            elif kind == 3:
                obj[key] = None
            elif kind == 4:
                obj[key] = [keys[int(i)] for i in rng.integers(len(keys), size=3)]
            else:
                obj[key] = " ".join(keys[int(i)] for i in rng.integers(len(keys), size=3))
        indent = [None, None, 2, 4][int(rng.integers(4))]
        yield json.dumps(obj, indent=indent, ensure_ascii=bool(rng.integers(2)))


def _code_snippets(rng: np.random.Generator, lex: list[str], n: int) -> Iterator[str]:
    names = lex[:600]
    for _ in range(n):
        a, b, c = (names[int(i)] for i in rng.integers(len(names), size=3))
        k = int(rng.integers(1000))
        yield str(
            rng.choice(
                [
                    f"def {a}_{b}({c}, n={k}):\n    return [{c}[i] for i in range(n)]\n",
                    f"for {a} in range({k}):\n    if {a} % 2 == 0:\n        {b}.append({a})\n",
                    f"class {a.title()}{b.title()}:\n    def __init__(self):\n"
                    f"        self.{c} = {k}\n",
                    f"const {a} = await fetch(`/api/{b}/${{{c}}}`);\nconsole.log({a}.status);\n",
                    f"if ({a} != null && {b}.length > {k}) {{\n    {c}({a});\n}}\n",
                    f"SELECT {a}, {b} FROM {c} WHERE id = {k} ORDER BY {a} DESC;\n",
                    f"import {a}\nfrom {b} import {c}\n\nprint({a}.{c}({k}))\n",
                    f'<div class="{a}"><span id="{b}">{c}</span></div>\n',
                ]
            )
        )


def _numbers(rng: np.random.Generator, n: int) -> Iterator[str]:
    for _ in range(n):
        y, mo, d = int(rng.integers(1900, 2100)), int(rng.integers(1, 13)), int(rng.integers(1, 29))
        h, mi = int(rng.integers(24)), int(rng.integers(60))
        val = float(rng.normal(0, 1000))
        yield f"{y}-{mo:02d}-{d:02d} {h:02d}:{mi:02d} {val:.2f} {int(rng.integers(10**9))} {val:e}"


def _multilingual(rng: np.random.Generator, n: int) -> Iterator[str]:
    for _ in range(n):
        kind = int(rng.integers(3))
        if kind == 0:
            yield _FOREIGN[int(rng.integers(len(_FOREIGN)))]
        elif kind == 1:
            chars = rng.integers(len(_CJK), size=int(rng.integers(4, 20)))
            yield "".join(_CJK[int(i)] for i in chars) + "。"
        else:
            chars = rng.integers(len(_EMOJI), size=int(rng.integers(1, 6)))
            yield " ".join(_EMOJI[int(i)] for i in chars)


def build_corpus(vocab_size: int, seed: int = 0) -> list[str]:
    """Seeded synthetic training corpus, big enough for a ``vocab_size`` BPE vocabulary."""
    rng = np.random.default_rng([seed, vocab_size, 20250101])
    lex = _lexicon(rng, max(2000, int(vocab_size * 1.5)))
    n_prose = max(2000, vocab_size * 3)
    lines = list(_prose(rng, lex, n_prose))
    lines += list(_json_snippets(rng, lex, n_prose // 10))
    lines += list(_code_snippets(rng, lex, n_prose // 10))
    lines += list(_numbers(rng, n_prose // 20))
    lines += list(_multilingual(rng, n_prose // 10))
    order = rng.permutation(len(lines))
    return [lines[int(i)] for i in order]


# --------------------------------------------------------------------------------------------
# Tokenizer
# --------------------------------------------------------------------------------------------


def train_tokenizer(vocab_size: int, seed: int = 0) -> Any:
    """Train a Qwen2-style byte-level BPE ``tokenizers.Tokenizer`` of about ``vocab_size``."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(fuse_unk=False, byte_fallback=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(_PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        show_progress=False,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(build_corpus(vocab_size, seed), trainer=trainer)
    return tok


def _tokenizer_json(tok: Any) -> dict[str, Any]:
    """Serialized tokenizer with non-control specials marked non-special (as in Qwen3)."""
    data = json.loads(tok.to_str())
    for added in data["added_tokens"]:
        added["special"] = added["content"] in CONTROL_TOKENS
        added["normalized"] = False
    return data


# --------------------------------------------------------------------------------------------
# Chat template
# --------------------------------------------------------------------------------------------

_TOOLS_INTRO = (
    "{{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n"
    "You are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}\n"
    "{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}\n"
    "{{- '\\n</tools>\\n\\n' }}\n"
)

_TOOLS_INSTRUCTIONS: dict[str, str] = {
    "hermes": (
        "{{- 'For each function call, return a json object with function name and arguments "
        'within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{"name": <function-name>, '
        '"arguments": <args-json-object>}\\n</tool_call>\' }}\n'
    ),
    "qwen3_xml": (
        "{{- 'If you choose to call a function ONLY reply in the following format with NO "
        "suffix:\\n\\n<tool_call>\\n<function=example_function_name>\\n"
        "<parameter=example_parameter_1>\\nvalue_1\\n</parameter>\\n"
        "<parameter=example_parameter_2>\\nThis is the value for the second parameter\\n"
        "that can span\\nmultiple lines\\n</parameter>\\n</function>\\n</tool_call>' }}\n"
    ),
    "llama3_json": (
        "{{- 'To call a function, respond with <|python_tag|> followed by a JSON object "
        '{"name": function name, "parameters": dictionary of argument name and its value}. '
        'Separate several calls with "; ". Do not use variables.\' }}\n'
    ),
    "mistral": (
        "{{- 'To call functions, respond with [TOOL_CALLS] followed by a JSON list of calls: "
        '[TOOL_CALLS][{"name": <function-name>, "arguments": <args-json-object>}]\' }}\n'
    ),
}

# Each renders the list ``message.tool_calls`` right after the assistant content.
_TOOL_CALLS_RENDER: dict[str, str] = {
    "hermes": """\
{%- for tool_call in message.tool_calls %}
{%- if (loop.first and content) or (not loop.first) %}{{- '\\n' }}{%- endif %}
{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '<tool_call>\\n{"name": "' }}{{- tool_call.name }}{{- '", "arguments": ' }}
{%- if tool_call.arguments is string %}{{- tool_call.arguments }}
{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}
{{- '}\\n</tool_call>' }}
{%- endfor %}
""",
    "qwen3_xml": """\
{%- for tool_call in message.tool_calls %}
{%- if (loop.first and content) or (not loop.first) %}{{- '\\n' }}{%- endif %}
{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}
{%- if tool_call.arguments is mapping %}
{%- for args_name, args_value in tool_call.arguments | items %}
{{- '<parameter=' + args_name + '>\\n' }}
{%- if args_value is string %}{{- args_value }}{%- else %}{{- args_value | tojson }}{%- endif %}
{{- '\\n</parameter>\\n' }}
{%- endfor %}
{%- elif tool_call.arguments is string %}{{- tool_call.arguments + '\\n' }}
{%- endif %}
{{- '</function>\\n</tool_call>' }}
{%- endfor %}
""",
    "llama3_json": """\
{%- if content %}{{- '\\n' }}{%- endif %}
{{- '<|python_tag|>' }}
{%- for call in message.tool_calls %}
{%- if not loop.first %}{{- '; ' }}{%- endif %}
{%- if call.function %}{%- set call = call.function %}{%- endif %}
{{- '{"name": "' + call.name + '", "parameters": ' }}
{%- if call.arguments is string %}{{- call.arguments }}
{%- else %}{{- call.arguments | tojson }}{%- endif %}
{{- '}' }}
{%- endfor %}
""",
    "mistral": """\
{%- if content %}{{- '\\n' }}{%- endif %}
{{- '[TOOL_CALLS][' }}
{%- for call in message.tool_calls %}
{%- if not loop.first %}{{- ', ' }}{%- endif %}
{%- if call.function %}{%- set call = call.function %}{%- endif %}
{{- '{"name": "' + call.name + '", "arguments": ' }}
{%- if call.arguments is string %}{{- call.arguments }}
{%- else %}{{- call.arguments | tojson }}{%- endif %}
{{- '}' }}
{%- endfor %}
{{- ']' }}
""",
}

_TEMPLATE_HEAD = """\
{#- afm-tool-format: @FORMAT@ -#}
{%- macro text_of(c) -%}
{%- if c is string -%}{{ c }}
{%- elif c is iterable and c is not mapping -%}
{%- for p in c -%}{%- if p is string -%}{{ p }}{%- elif p.text is defined -%}{{ p.text }}{%- endif -%}{%- endfor -%}
{%- endif -%}
{%- endmacro -%}
{%- set has_system = messages and messages[0].role == 'system' %}
{%- if tools %}
{{- '<|im_start|>system\\n' }}
{%- if has_system and text_of(messages[0].content) %}{{- text_of(messages[0].content) + '\\n\\n' }}{%- endif %}
@TOOLS@
{{- '<|im_end|>\\n' }}
{%- elif has_system %}
{{- '<|im_start|>system\\n' + text_of(messages[0].content) + '<|im_end|>\\n' }}
{%- endif %}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
{%- set index = (messages|length - 1) - loop.index0 %}
{%- set mtext = text_of(message.content) %}
{%- if ns.multi_step_tool and message.role == 'user' and not (mtext.startswith('<tool_response>') and mtext.endswith('</tool_response>')) %}
{%- set ns.multi_step_tool = false %}
{%- set ns.last_query_index = index %}
{%- endif %}
{%- endfor %}
"""  # noqa: E501

_TEMPLATE_BODY = """\
{%- for message in messages %}
{%- set content = text_of(message.content) %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}
{{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>\\n' }}
{%- elif message.role == 'assistant' %}
{%- set reasoning_content = '' %}
{%- if message.reasoning_content is string %}
{%- set reasoning_content = message.reasoning_content %}
{%- elif '</think>' in content %}
{%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}
{%- set content = content.split('</think>')[-1].lstrip('\\n') %}
{%- endif %}
{%- if loop.index0 > ns.last_query_index and (loop.last or reasoning_content) %}
{{- '<|im_start|>assistant\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}
{%- else %}
{{- '<|im_start|>assistant\\n' + content }}
{%- endif %}
{%- if message.tool_calls %}
@TOOL_CALLS@
{%- endif %}
{{- '<|im_end|>\\n' }}
{%- elif message.role == 'tool' %}
{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}
{{- '\\n<tool_response>\\n' + content + '\\n</tool_response>' }}
{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}{{- '<|im_end|>\\n' }}{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\\n' }}
{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}
{%- endif %}
"""  # noqa: E501


def chat_template(tool_format: str = "hermes") -> str:
    """The Qwen3-style Jinja chat template for ``tool_format`` (one of :data:`TOOL_FORMATS`)."""
    if tool_format not in TOOL_FORMATS:
        raise ValueError(f"unknown tool_format {tool_format!r}; expected one of {TOOL_FORMATS}")
    tools = _TOOLS_INTRO + _TOOLS_INSTRUCTIONS[tool_format]
    head = _TEMPLATE_HEAD.replace("@FORMAT@", tool_format).replace("@TOOLS@", tools.rstrip("\n"))
    body = _TEMPLATE_BODY.replace("@TOOL_CALLS@", _TOOL_CALLS_RENDER[tool_format].rstrip("\n"))
    return head + body


def detect_tool_format(template: str | None) -> str | None:
    """Tool-call format of a chat template, from its markers (works for real models too)."""
    if not template:
        return None
    if "[TOOL_CALLS]" in template:
        return "mistral"
    if "<|python_tag|>" in template:
        return "llama3_json"
    if "<function=" in template:
        return "qwen3_xml"
    if "<tool_call>" in template:
        return "hermes"
    return None


# --------------------------------------------------------------------------------------------
# Config files
# --------------------------------------------------------------------------------------------


def _model_config(spec: ModelSpec, vocab_size: int) -> dict[str, Any]:
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": SPECIAL_TOKEN_IDS[PAD_TOKEN],
        "eos_token_id": SPECIAL_TOKEN_IDS[EOS_TOKEN],
        "pad_token_id": SPECIAL_TOKEN_IDS[PAD_TOKEN],
        "head_dim": spec.head_dim,
        "hidden_act": "silu",
        "hidden_size": spec.hidden_size,
        "initializer_range": 0.02,
        "intermediate_size": spec.intermediate_size,
        "max_position_embeddings": spec.max_position_embeddings,
        "max_window_layers": spec.num_layers,
        "num_attention_heads": spec.num_heads,
        "num_hidden_layers": spec.num_layers,
        "num_key_value_heads": spec.num_kv_heads,
        "rms_norm_eps": spec.rms_norm_eps,
        "rope_scaling": None,
        "rope_theta": spec.rope_theta,
        "sliding_window": None,
        "use_sliding_window": False,
        "tie_word_embeddings": spec.tie_word_embeddings,
        "torch_dtype": spec.dtype,
        "use_cache": True,
        "vocab_size": vocab_size,
    }


def _generation_config() -> dict[str, Any]:
    return {
        "bos_token_id": SPECIAL_TOKEN_IDS[PAD_TOKEN],
        "eos_token_id": [SPECIAL_TOKEN_IDS[EOS_TOKEN], SPECIAL_TOKEN_IDS[PAD_TOKEN]],
        "pad_token_id": SPECIAL_TOKEN_IDS[PAD_TOKEN],
        "do_sample": True,
        "temperature": 0.6,
        "top_p": 0.95,
        "top_k": 20,
    }


def _tokenizer_config(spec: ModelSpec) -> dict[str, Any]:
    added = {
        str(i): {
            "content": tok,
            "lstrip": False,
            "normalized": False,
            "rstrip": False,
            "single_word": False,
            "special": tok in CONTROL_TOKENS,
        }
        for tok, i in SPECIAL_TOKEN_IDS.items()
    }
    return {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": added,
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
        "bos_token": None,
        "chat_template": chat_template(spec.tool_format),
        "clean_up_tokenization_spaces": False,
        "eos_token": EOS_TOKEN,
        "errors": "replace",
        "model_max_length": spec.max_position_embeddings,
        "pad_token": PAD_TOKEN,
        "split_special_tokens": False,
        "tokenizer_class": "Qwen2Tokenizer",
        "unk_token": None,
    }


def _special_tokens_map() -> dict[str, Any]:
    def entry(tok: str) -> dict[str, Any]:
        return {"content": tok, "lstrip": False, "normalized": False, "rstrip": False,
                "single_word": False}  # fmt: skip

    return {
        "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
        "eos_token": entry(EOS_TOKEN),
        "pad_token": entry(PAD_TOKEN),
    }


# --------------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------------


def _weight_shapes(spec: ModelSpec, vocab_size: int) -> dict[str, tuple[int, ...]]:
    """HF Qwen3 tensor names and shapes, in a fixed order (the order random draws follow)."""
    h, q, kv = spec.hidden_size, spec.num_heads * spec.head_dim, spec.num_kv_heads * spec.head_dim
    shapes: dict[str, tuple[int, ...]] = {"model.embed_tokens.weight": (vocab_size, h)}
    for n in range(spec.num_layers):
        p = f"model.layers.{n}."
        shapes |= {
            p + "input_layernorm.weight": (h,),
            p + "self_attn.q_proj.weight": (q, h),
            p + "self_attn.k_proj.weight": (kv, h),
            p + "self_attn.v_proj.weight": (kv, h),
            p + "self_attn.o_proj.weight": (h, q),
            p + "self_attn.q_norm.weight": (spec.head_dim,),
            p + "self_attn.k_norm.weight": (spec.head_dim,),
            p + "post_attention_layernorm.weight": (h,),
            p + "mlp.gate_proj.weight": (spec.intermediate_size, h),
            p + "mlp.up_proj.weight": (spec.intermediate_size, h),
            p + "mlp.down_proj.weight": (h, spec.intermediate_size),
        }
    shapes["model.norm.weight"] = (h,)
    if not spec.tie_word_embeddings:
        shapes["lm_head.weight"] = (vocab_size, h)
    return shapes


def make_weights(spec: ModelSpec, vocab_size: int) -> dict[str, np.ndarray]:
    """Seeded float32 weights: N(0, 0.02) for matrices, ones for norms."""
    rng = np.random.default_rng(spec.seed)
    weights: dict[str, np.ndarray] = {}
    for name, shape in _weight_shapes(spec, vocab_size).items():
        if len(shape) == 1:
            weights[name] = np.ones(shape, dtype=np.float32)
        else:
            weights[name] = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
    return weights


def _save_weights(weights: dict[str, np.ndarray], path: Path, dtype: str) -> None:
    metadata = {"format": "pt"}
    if dtype == "bfloat16":
        import torch
        from safetensors.torch import save_file as save_torch

        tensors = {k: torch.from_numpy(v).to(torch.bfloat16) for k, v in weights.items()}
        save_torch(tensors, str(path), metadata=metadata)
        return
    from safetensors.numpy import save_file

    np_dtype = {"float32": np.float32, "float16": np.float16}[dtype]
    save_file({k: v.astype(np_dtype) for k, v in weights.items()}, str(path), metadata=metadata)


# --------------------------------------------------------------------------------------------
# Build and cache
# --------------------------------------------------------------------------------------------


def spec_hash(spec: ModelSpec) -> str:
    """Short hash of the spec and builder version (names cache folders)."""
    payload = json.dumps([BUILDER_VERSION, dataclasses.asdict(spec)], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:10]


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _write_model_files(folder: Path, spec: ModelSpec) -> None:
    tok_data = _tokenizer_json(train_tokenizer(spec.vocab_size, spec.seed))
    n_tokens = len(tok_data["model"]["vocab"])
    vocab_size = max(spec.vocab_size, n_tokens)
    vocab_size = -(-vocab_size // 64) * 64  # pad the embedding to a multiple of 64
    (folder / "tokenizer.json").write_text(json.dumps(tok_data, ensure_ascii=False), "utf-8")
    _write_json(folder / "tokenizer_config.json", _tokenizer_config(spec))
    _write_json(folder / "special_tokens_map.json", _special_tokens_map())
    _write_json(folder / "config.json", _model_config(spec, vocab_size))
    _write_json(folder / "generation_config.json", _generation_config())
    _save_weights(make_weights(spec, vocab_size), folder / "model.safetensors", spec.dtype)
    info = {
        "builder_version": BUILDER_VERSION,
        "spec": dataclasses.asdict(spec),
        "tokenizer_size": n_tokens,
        "special_token_ids": SPECIAL_TOKEN_IDS,
    }
    _write_json(folder / BUILD_INFO_FILE, info)
    for path in folder.iterdir():
        path.chmod(0o644)
    folder.chmod(0o755)  # mkdtemp made it private; the cache may be shared


def _validate(spec: ModelSpec) -> None:
    if spec.tool_format not in TOOL_FORMATS:
        raise ValueError(f"unknown tool_format {spec.tool_format!r}")
    if spec.dtype not in ("float32", "float16", "bfloat16"):
        raise ValueError(f"unsupported dtype {spec.dtype!r}")
    if spec.num_heads % spec.num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    if spec.vocab_size < 512:
        raise ValueError("vocab_size must be at least 512")


def _build_atomic(out_dir: Path, spec: ModelSpec, replace: bool) -> Path:
    """Build in a sibling temp folder, then rename into place."""
    _validate(spec)
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    try:
        _write_model_files(tmp, spec)
        if replace and out_dir.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
            os.replace(out_dir, old / "m")
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.rename(tmp, out_dir)
        except OSError:
            if not (out_dir / BUILD_INFO_FILE).exists():
                raise
            # Another process finished the same build first: keep theirs.
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir


def build_model(out_dir: Path, spec: ModelSpec) -> Path:
    """Build ``spec`` into ``out_dir`` (replacing it) atomically; return the folder."""
    return _build_atomic(Path(out_dir), spec, replace=True)


def default_cache_dir() -> Path:
    """``$AFM_CACHE_DIR`` or the platform's user cache folder for "afm"."""
    env = os.environ.get("AFM_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("afm"))


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock (POSIX); a no-op where fcntl is missing."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def model_cache_path(name: str, cache_dir: Path | None = None) -> Path:
    """Where :func:`ensure_model` keeps preset ``name``."""
    spec = _preset(name)
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return root / "models" / f"{spec.name}-{spec_hash(spec)}"


def _preset(name: str) -> ModelSpec:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown model preset {name!r}; known: {sorted(PRESETS)}") from None


def ensure_model(name: str = "default", cache_dir: Path | None = None) -> Path:
    """Path of preset ``name``, built into the cache on first use (safe across processes)."""
    target = model_cache_path(name, cache_dir)
    if (target / BUILD_INFO_FILE).exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(target.parent / f"{target.name}.lock"):
        if not (target / BUILD_INFO_FILE).exists():
            if target.exists():  # a half-written folder from a crash before rename
                shutil.rmtree(target, ignore_errors=True)
            _build_atomic(target, _preset(name), replace=False)
    return target
