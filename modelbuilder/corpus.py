"""Seeded synthetic corpus the tokenizer is trained on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

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
