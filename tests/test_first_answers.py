"""First answers as a new user gets them: `afm serve` with no flags (the default model at its
resolved generation defaults), asked the README's question exactly as the README writes it,
with no sampling fields.

- The README's curl commands of "Quick start" (chat completions, the Responses API, the
  Messages API), run as written 10 times each: at least 9 answers name Paris on every surface.
- The README's `openai` and `anthropic` snippets, run as written: they print Paris.
- The chat page at `/` in headless Chromium: a question typed in, with empty settings (the page
  sends no sampling field), gets an answer naming Paris.

The answers are sampled (no seed): the pass line is the issue's, 9 in 10 per surface.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT, LiveServer
from tests.real_weights import real_model

pytestmark = pytest.mark.slow

TRIES = 10
NEEDED = 9
README_URL = "http://127.0.0.1:9999"


@pytest.fixture(scope="module")
def default_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """`afm serve` as the README starts it: no `--model`, no sampling flag."""
    real_model("smollm2")  # cached by tools/setup.sh: the default start does not download
    base = tmp_path_factory.mktemp("first-answers")
    server = LiveServer(["--concurrent", "4"], base / "data", base / "server.log",
                        sampling=[])
    yield server.start(timeout=600)
    server.stop()


def quick_start_curls() -> dict[str, str]:
    """The curl commands of the README's "Quick start", by the path they post to."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### Quick start", 1)[1].split("\n### ", 1)[0]
    curls: dict[str, str] = {}
    for block in re.findall(r"```bash\n(.*?)```", section, re.S):
        for command in re.split(r"\n(?=curl )", block.strip()):
            if command.startswith("curl "):
                path = re.search(r"/v1/[a-z/_]+", command)
                assert path, command
                curls[path.group(0)] = command
    return curls


def answer(path: str, body: dict[str, Any]) -> str:
    if path == "/v1/chat/completions":
        return body["choices"][0]["message"]["content"] or ""
    if path == "/v1/responses":
        return body["output_text"] if "output_text" in body else "".join(
            part.get("text", "") for item in body["output"] if item["type"] == "message"
            for part in item["content"])
    return "".join(b.get("text", "") for b in body["content"] if b["type"] == "text")


def test_readme_curls_send_no_sampling_field() -> None:
    curls = quick_start_curls()
    assert set(curls) == {"/v1/chat/completions", "/v1/responses", "/v1/messages"}
    for command in curls.values():
        assert "capital of France" in command
        for field in ("temperature", "top_p", "top_k", "min_p", "seed"):
            assert field not in command, (field, command)


def test_readme_curls_answer_paris(default_server: LiveServer) -> None:
    """Each Quick start curl, as written, 10 times: at least 9 answers name Paris."""
    curls = quick_start_curls()

    def run(command: str) -> str:
        out = subprocess.run(command.replace(README_URL, default_server.url), shell=True,
                             capture_output=True, text=True, check=True, timeout=300).stdout
        return out

    jobs = [(path, command) for path, command in curls.items() for _ in range(TRIES)]
    with ThreadPoolExecutor(4) as pool:
        outputs = list(pool.map(lambda job: run(job[1]), jobs))
    answers: dict[str, list[str]] = {path: [] for path in curls}
    for (path, _), out in zip(jobs, outputs, strict=True):
        answers[path].append(answer(path, json.loads(out)))
    report = {path: sum("Paris" in a for a in texts) for path, texts in answers.items()}
    wrong = {path: [a for a in texts if "Paris" not in a] for path, texts in answers.items()}
    assert all(n >= NEEDED for n in report.values()), (report, wrong)


def test_readme_sdk_snippets_print_paris(default_server: LiveServer,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The `openai` and `anthropic` snippets of "From the SDKs", run as written."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### From the SDKs", 1)[1].split("\n### ", 1)[0]
    snippets = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(snippets) >= 2
    for code in snippets:
        assert "temperature" not in code and "top_p" not in code
        exec(compile(code.replace(README_URL, default_server.url), "README", "exec"), {})
        printed = capsys.readouterr().out
        assert "Paris" in printed, (code, printed)


def test_chat_page_answers_paris(default_server: LiveServer) -> None:
    """The chat page with its settings untouched: it sends no sampling field, and the answer
    names Paris."""
    from tests.test_webui import CHROMIUM, CHROMIUM_ARGS, LAST, Page

    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install -y chromium (or set "
                    "AFM_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ui = Page(browser, default_server)
        try:
            page = ui.open()
            ui.send("What is the capital of France?")
            ui.wait_done()
            text = page.locator(f"{LAST} .content").inner_text()
        finally:
            ui.close()
            browser.close()
    (body,) = ui.bodies
    assert not {"temperature", "top_p", "top_k", "min_p", "seed"} & set(body), body
    assert "Paris" in text, text


def test_models_report_the_defaults_in_use(default_server: LiveServer) -> None:
    models = httpx.get(default_server.url + "/v1/models").json()["data"]
    chat = next(m for m in models if m["type"] == "chat")
    defaults = chat["generation_defaults"]
    assert defaults["sources"]["temperature"] == "table", defaults
    assert "afm table" in defaults["model_defaults_from"]
    # the official SDK keeps the extension field on its Model objects
    from openai import OpenAI

    with OpenAI(base_url=default_server.url + "/v1", api_key="local") as client:
        listed = {m.id: m.model_dump() for m in client.models.list()}
        retrieved = client.models.retrieve(chat["id"]).model_dump()
    assert listed[chat["id"]]["generation_defaults"] == defaults
    assert retrieved["generation_defaults"] == defaults
