"""The Batch API through the whole app, its lines run by an injected executor (create_app's
``batch_executor``): the worker validates, runs and records each line, and the output and
error files hold what the executor answered."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import httpx

from afm.settings import Settings
from afm.storage import Store
from tests.api.conftest import lifespan
from tests.waiting import eventually_async as eventually

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "jsonschema", DeprecationWarning)
    from afm.app import create_app


def _line(custom_id: str, text: str) -> str:
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
                       "body": {"model": "m", "max_tokens": 4,
                                "messages": [{"role": "user", "content": text}]}})


async def test_batch_lines_run_on_the_injected_executor(tmp_path: Path) -> None:
    calls: list[tuple[str, dict[str, Any], str]] = []

    async def executor(endpoint: str, body: dict[str, Any],
                       request_id: str) -> tuple[int, dict[str, Any]]:
        calls.append((endpoint, body, request_id))
        text = body["messages"][0]["content"]
        if text == "refuse":
            return 400, {"error": {"message": "scripted refusal", "type": "invalid_request_error",
                                   "code": None, "param": None, "request_id": request_id}}
        return 200, {"echo": text}

    settings = Settings(data_dir=tmp_path, grammar_constraints=False, webui=False,
                        no_speech=True, backend="foundation")  # no chat model: lines are scripted
    content = "\n".join([_line("a", "hello"), _line("b", "refuse")]) + "\n"
    with Store(tmp_path) as store:  # stored before the start (uploads are not the subject)
        file_id = store.files.create("in.jsonl", "batch", content.encode())["id"]
    app = create_app(settings, batch_executor=executor)
    async with lifespan(app) as served:
        transport = httpx.ASGITransport(app=served)
        async with httpx.AsyncClient(transport=transport, base_url="http://afm.test") as client:
            created = await client.post("/v1/batches", json={
                "input_file_id": file_id, "endpoint": "/v1/chat/completions",
                "completion_window": "24h"})
            assert created.status_code == 200, created.text
            batch_id = created.json()["id"]
            batch: dict[str, Any] = {}

            async def finished() -> bool:
                batch.update((await client.get(f"/v1/batches/{batch_id}")).json())
                return batch["status"] == "completed"

            await eventually(finished, 20, "the batch completes")
            assert batch["request_counts"] == {"total": 2, "completed": 1, "failed": 1}
            out = (await client.get(f"/v1/files/{batch['output_file_id']}/content")).text
            errors = (await client.get(f"/v1/files/{batch['error_file_id']}/content")).text
    (ok,), (bad,) = [[json.loads(x) for x in text.splitlines()] for text in (out, errors)]
    assert ok["custom_id"] == "a" and ok["response"]["body"] == {"echo": "hello"}
    assert bad["custom_id"] == "b" and bad["response"]["status_code"] == 400
    assert [c[0] for c in calls] == ["/v1/chat/completions"] * 2
