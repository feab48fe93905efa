"""Text completions through the whole app on a scripted engine."""

from __future__ import annotations

import json

from tests.api.conftest import Api
from tests.scripted import script


async def test_completion_json_and_token_prompt(api: Api) -> None:
    api.engine.scripts.append(script("four", finish="length"))
    r = await api.post("/v1/completions", {"model": "tiny", "prompt": [1, 2, 3], "max_tokens": 1})
    assert r.status_code == 200, r.text
    choice = r.json()["choices"][0]
    assert (choice["text"], choice["finish_reason"]) == ("four", "length")
    assert api.engine.requests[0].prompt_tokens == [1, 2, 3]


async def test_completion_stream_with_logprobs(api: Api) -> None:
    api.engine.scripts.append(script("ab", "c", logprobs=True))
    r = await api.post("/v1/completions", {"model": "tiny", "prompt": "x", "stream": True,
                                           "logprobs": 1})
    chunks = [json.loads(line[6:]) for line in r.text.splitlines()
              if line.startswith("data: {")]
    texts = [c["choices"][0]["text"] for c in chunks if c["choices"]]
    assert texts == ["ab", "c", ""]
    assert chunks[1]["choices"][0]["logprobs"]["text_offset"] == [2]
    assert chunks[-1]["usage"]["completion_tokens"] == 2


async def test_out_of_vocabulary_token_is_400(api: Api) -> None:
    r = await api.post("/v1/completions", {"model": "tiny", "prompt": [10**9]})
    assert r.status_code == 400 and r.json()["error"]["param"] == "prompt"
