"""The chat page at `/` in a real browser: headless Chromium (Debian's package driven by the
`playwright` Python package, as in test_docs_browser.py) against a real `afm serve`, with every
request to another host aborted. It streams, stops a long generation through the cancel
endpoint (the slot shows free in /metrics), switches model, shows the parsed object of a
JSON-schema answer, renders a forced tool call and shows an injected `<script>` answer as text.
Screenshots land in artifacts/webui-chat.png and artifacts/webui-tool-call.png.

The random-weight test model writes noise, so the tests control what matters with the grammar
(a schema `enum`, a named tool_choice) or with `ignore_eos` for length.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import ROOT, LiveServer
from tests.waiting import eventually

pytestmark = pytest.mark.slow

CHROMIUM = os.environ.get("AFM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / "artifacts"
PAYLOAD = ("<img src=x onerror=alert(1)><script>alert(2)</script> **bold** "
           "[link](javascript:alert(3))")
WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 8},
                   "days": {"type": "integer", "minimum": 1, "maximum": 7}},
    "required": ["city", "days"],
    "additionalProperties": False,
}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather.",
                                           "parameters": WEATHER, "strict": True}},
         {"type": "function", "function": {"name": "ping"}}]
LAST = "#messages li.assistant:last-child"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install -y chromium (or set AFM_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Page:
    """A fresh browser context (empty storage) on the page, recording what it did."""

    def __init__(self, browser: Any, server: LiveServer, width: int = 1280, height: int = 900
                 ) -> None:
        self.server = server
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.outside: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.expected_errors: list[str] = []  # substrings of console errors a test provokes
        self.bodies: list[dict[str, Any]] = []
        origin = urlsplit(server.url).netloc
        self.context.route("**/*", lambda route: self._gate(route, origin))
        self.page = self.context.new_page()
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("request", self._record)

    def _gate(self, route: Any, origin: str) -> None:
        url = urlsplit(route.request.url)
        if url.scheme in ("http", "https") and url.netloc != origin:
            self.outside.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    def _record(self, request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/v1/chat/completions"):
            self.bodies.append(json.loads(request.post_data))

    def open(self) -> Any:
        self.page.goto(self.server.url + "/")
        self.page.wait_for_selector("body[data-ready=true]", timeout=30_000)
        return self.page

    def settings(self, **fields: str | bool) -> None:
        """Fill settings fields by id (a bool ticks a checkbox; format= picks a radio)."""
        page = self.page
        if not page.locator("#settings").is_visible():
            page.click("#toggle-settings")
        for name, value in fields.items():
            if name == "format":
                page.check(f"input[name=format][value={value}]")
            elif isinstance(value, bool):
                page.set_checked(f"#{name}", value)
            elif name == "tool_choice":
                page.select_option("#tool_choice", value)
            else:
                page.fill(f"#{name}", value)

    def send(self, text: str) -> None:
        self.page.fill("#prompt", text)
        self.page.press("#prompt", "Enter")

    def wait_done(self, timeout: float = 120_000) -> Any:
        usage = self.page.locator(f"{LAST} .usage")
        usage.wait_for(timeout=timeout)
        self.page.wait_for_selector("#send:not([hidden])")
        return usage

    def close(self) -> None:
        self.context.close()  # first: a failed test must not leave a generation streaming
        assert self.outside == [], "the page reached outside the server"
        # filtered after the context closed: console events arrive asynchronously
        unexpected = [e for e in self.errors if not any(x in e for x in self.expected_errors)]
        assert unexpected == []


@pytest.fixture
def ui(browser: Any, server: LiveServer) -> Iterator[Page]:
    page = Page(browser, server)
    yield page
    page.close()


def running(server: LiveServer) -> float:
    for line in httpx.get(server.url + "/metrics").text.splitlines():
        if line.startswith("afm:num_requests_running"):
            return float(line.split()[-1])
    raise AssertionError("no afm:num_requests_running in /metrics")


WATCH = """() => {
  window.__seen = [];
  new MutationObserver(() => {
    const li = document.querySelector('#messages li.assistant:last-child');
    const content = li && li.querySelector('.content');
    if (content) window.__seen.push([li.classList.contains('streaming'),
                                     content.textContent.length]);
  }).observe(document.querySelector('#messages'), {childList: true, subtree: true,
                                                  characterData: true});
}"""


# ---------------------------------------------------------------------------- HTTP, no browser

def test_page_is_served_with_a_strict_csp(server: LiveServer) -> None:
    r = httpx.get(server.url + "/", headers={"Origin": "http://elsewhere.test"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert r.headers["x-request-id"] and r.headers["access-control-allow-origin"] == "*"
    assert not re.search(r"<script(?![^>]*\bsrc=)", r.text), "an inline script"
    assert not re.search(r"\son\w+=", r.text), "an inline event handler"
    assets = re.findall(r'(?:src|href)="(webui/[^"]+)"', r.text)
    assert {"webui/app.js", "webui/style.css"} <= set(assets)
    for asset in [*assets, "webui/markdown.js"]:
        a = httpx.get(f"{server.url}/{asset}")
        assert a.status_code == 200, asset
        assert "content-security-policy" in a.headers
    js = httpx.get(server.url + "/webui/app.js")
    assert js.headers["content-type"].startswith("text/javascript")
    assert "innerHTML" not in js.text + httpx.get(server.url + "/webui/markdown.js").text
    assert httpx.head(server.url + "/").status_code == 200
    again = httpx.get(server.url + "/", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304


def test_page_paths_answer_with_envelopes(server: LiveServer) -> None:
    missing = httpx.get(server.url + "/webui/nope.js")
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "not_found_error"
    post = httpx.post(server.url + "/", json={})
    assert post.status_code == 405 and post.headers["allow"] == "GET, HEAD"
    assert post.json()["error"]["type"] == "method_not_allowed"
    # the API around it is untouched
    assert httpx.get(server.url + "/v1/nothing").json()["error"]["type"] == "not_found_error"
    assert httpx.get(server.url + "/v1/models").status_code == 200


def test_no_webui_gives_the_404_envelope(live_server: Callable[..., LiveServer]) -> None:
    server = live_server("--no-webui", "--concurrent", "1")
    for path in ("/", "/webui/app.js"):
        r = httpx.get(server.url + path)
        assert r.status_code == 404, path
        assert r.json()["error"]["type"] == "not_found_error"
        assert r.headers["x-request-id"]
    assert httpx.get(server.url + "/v1/models").status_code == 200


# ---------------------------------------------------------------------------- in the browser

def test_chat_streams_tokens_and_keeps_the_conversation(ui: Page) -> None:
    page = ui.open()
    ui.settings(thinking=False, max_tokens="600", seed="3", temperature="0.8",
                system="You are terse.", extra='{"ignore_eos": true}')
    page.evaluate(WATCH)
    # 600 tokens: a stream long enough that a browser sharing two busy cores renders it more
    # than once before it ends (200 tokens were sometimes shown in one partial frame)
    ui.send("Write a **short** poem.")
    usage = ui.wait_done()

    seen = page.evaluate("window.__seen")
    final = max(length for _, length in seen)
    partial = {length for streaming, length in seen if streaming and 0 < length < final}
    assert len(partial) >= 2, f"no tokens shown before the stream ended: {seen[:20]}"
    assert usage.get_attribute("data-completion-tokens") == "600"
    assert usage.get_attribute("data-finish") == "length"
    assert re.search(r"\d+ prompt tokens \(\d+ cached\) · 600 completion tokens · [\d.]+ tok/s",
                     usage.inner_text())
    body = ui.bodies[-1]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [{"role": "system", "content": "You are terse."},
                                {"role": "user", "content": "Write a **short** poem."}]
    assert (body["max_tokens"], body["seed"], body["temperature"]) == (600, 3, 0.8)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "webui-chat.png"))

    # a second turn reuses the prompt prefix: the server reports cached tokens
    ui.settings(max_tokens="4")
    ui.send("Again.")
    usage = ui.wait_done()
    assert int(usage.get_attribute("data-cached-tokens")) > 0
    assert len(ui.bodies[-1]["messages"]) == 4

    # conversations live in the browser's storage
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("#messages li.user").count() == 2
    assert page.locator("#messages li.assistant").count() == 2
    assert page.locator("#chat-list .chat-link").inner_text() == "Write a **short** poem."
    page.click("#new-chat")
    assert page.locator("#messages li").count() == 0
    assert page.locator("#chat-list li").count() == 2


@pytest.mark.parametrize("how", ["button", "escape"])
def test_stop_cancels_and_frees_the_slot(ui: Page, how: str) -> None:
    page = ui.open()
    ui.settings(thinking=False, max_tokens="3000", extra='{"ignore_eos": true}')
    ui.send("Go on forever.")
    # (a function, not an expression string: the page's CSP forbids eval, even Playwright's)
    page.wait_for_function(
        f"() => document.querySelector('{LAST}.streaming .content')?.textContent.length > 0")
    assert running(ui.server) >= 1
    if how == "button":
        page.click("#stop")
    else:
        page.keyboard.press("Escape")
    usage = ui.wait_done(timeout=30_000)
    assert usage.get_attribute("data-finish") == "cancelled"
    assert int(usage.get_attribute("data-completion-tokens")) < 3000
    eventually(lambda: running(ui.server) == 0, 10, "the slot is freed after Stop",
               interval=0.1)


def test_model_picker_lists_chat_models_and_sends_the_choice(ui: Page) -> None:
    """A process serves one chat model (plus embedding models), so to switch between two the
    test adds a second chat entry to the real /v1/models answer on its way to the page (the
    only stubbed part); the chat request itself goes to the real server."""
    served = httpx.get(ui.server.url + "/v1/models").json()["data"]
    chat_ids = [m["id"] for m in served if m.get("type") == "chat"]
    assert len(chat_ids) == 1 and any(m.get("type") == "embedding" for m in served)

    def more_models(route: Any) -> None:
        real = route.fetch()
        data = real.json()
        data["data"].append({**data["data"][0], "id": "second-chat-model"})
        route.fulfill(response=real, json=data)

    ui.page.route("**/v1/models", more_models)
    page = ui.open()
    options = page.locator("#model option").all_inner_texts()
    assert options == [*chat_ids, "second-chat-model"]  # no embedding model
    assert page.input_value("#model") == chat_ids[0]
    ui.settings(thinking=False, max_tokens="4")
    ui.send("hi")
    ui.wait_done()
    page.select_option("#model", "second-chat-model")
    ui.send("hi again")
    ui.wait_done()
    assert [b["model"] for b in ui.bodies] == [chat_ids[0], "second-chat-model"]
    # the header names the model that answered (this server has one)
    assert page.locator(f"{LAST} .who").inner_text() == f"Assistant · {chat_ids[0]}"
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.input_value("#model") == "second-chat-model"  # the choice is remembered


def test_json_schema_mode_shows_the_parsed_object(ui: Page) -> None:
    schema = {"type": "object",
              "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9},
                             "ok": {"type": "boolean"},
                             "tag": {"enum": ["red", "green"]}},
              "required": ["n", "ok", "tag"], "additionalProperties": False}
    page = ui.open()
    ui.settings(thinking=False, max_tokens="64", temperature="1", seed="5", format="json_schema",
                schema=json.dumps(schema))
    ui.send("Give me an object.")
    ui.wait_done()
    parsed = json.loads(page.locator(f"{LAST} .parsed-json").inner_text())
    assert set(parsed) == {"n", "ok", "tag"}
    assert 0 <= parsed["n"] <= 9 and isinstance(parsed["ok"], bool)
    assert parsed["tag"] in ("red", "green")
    fmt = ui.bodies[-1]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"] == schema


def test_forced_tool_call_is_rendered_and_answered(ui: Page) -> None:
    page = ui.open()
    ui.settings(thinking=False, max_tokens="96", temperature="1", seed="2",
                tools=json.dumps(TOOLS), tool_choice="get_weather")
    ui.send("What is the weather in Paris?")
    usage = ui.wait_done()
    assert usage.get_attribute("data-finish") == "tool_calls"
    call = page.locator(f"{LAST} .tool-call")
    assert call.count() == 1
    assert call.locator(".tool-name").inner_text() == "get_weather"
    assert re.fullmatch(r"call_\w+", call.locator(".tool-id").inner_text())
    args = json.loads(call.locator(".tool-args").inner_text())
    assert set(args) == {"city", "days"} and 1 <= args["days"] <= 7
    assert ui.bodies[-1]["tool_choice"] == {"type": "function",
                                            "function": {"name": "get_weather"}}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator(LAST).screenshot(path=str(ARTIFACTS / "webui-tool-call.png"))

    # answer the call: the tool message goes back with the call's id and the model goes on
    ui.settings(tool_choice="none")
    call.locator("textarea").fill('{"temp_c": 21}')
    call.locator("button").click()
    ui.wait_done()
    sent = ui.bodies[-1]["messages"]
    assert sent[-2]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert sent[-1] == {"role": "tool", "tool_call_id": sent[-2]["tool_calls"][0]["id"],
                        "content": '{"temp_c": 21}'}
    assert page.locator("#messages li.tool").count() == 1


def test_injected_markup_is_shown_as_text(ui: Page) -> None:
    schema = {"type": "object", "properties": {"a": {"enum": [PAYLOAD]}}, "required": ["a"],
              "additionalProperties": False}
    page = ui.open()
    ui.settings(thinking=False, max_tokens="96", format="json_schema", schema=json.dumps(schema))
    ui.send("Say the thing.")
    ui.wait_done()
    page.wait_for_timeout(300)  # time for an onerror to fire, were the <img> ever real
    content = page.locator(f"{LAST} .content")
    text = content.inner_text()
    assert "<img src=x onerror=alert(1)><script>alert(2)</script>" in text
    assert json.loads(page.locator(f"{LAST} .parsed-json").inner_text()) == {"a": PAYLOAD}
    assert ui.dialogs == []
    assert page.locator("#messages img, #messages script").count() == 0
    assert content.locator("strong").inner_text() == "bold"  # markdown still renders
    assert content.locator("a").count() == 0  # a javascript: link stays text
    assert not any(u.endswith("/x") for u in ui.outside)


def test_api_key_is_asked_for_on_401(browser: Any,
                                     live_server: Callable[..., LiveServer]) -> None:
    """A server started with `--api-key`: the page itself loads without the key, a request
    without it gets the real 401, the page asks for the key and then sends it as a bearer
    token."""
    ui = Page(browser, live_server("--api-key", "sk-test"))
    try:
        ui.expected_errors.append("401 (Unauthorized)")  # the browser logs refused fetches
        page = ui.open()
        ui.settings(thinking=False, max_tokens="4")
        ui.send("hello")
        # the model list's own 401 at load may have marked the field already, and a send
        # clears the status line first: wait for the send's 401 to say so
        page.wait_for_selector("#status:has-text('API key')")
        assert page.locator("#api_key.needed").count() == 1
        assert page.evaluate("document.activeElement.id") == "api_key"
        page.fill("#api_key", "sk-test")
        page.fill("#prompt", "hello again")
        page.press("#prompt", "Enter")
        usage = ui.wait_done()
        assert usage.get_attribute("data-completion-tokens") == "4"
    finally:
        ui.close()


def test_phone_width_and_keyboard(browser: Any, server: LiveServer) -> None:
    ui = Page(browser, server, width=390, height=844)
    page = ui.open()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    assert page.locator("#settings").is_hidden() and page.locator("#prompt").is_visible()
    page.click("#toggle-settings")
    assert page.locator("#settings").is_visible()
    assert page.get_attribute("#toggle-settings", "aria-expanded") == "true"
    ui.settings(thinking=False, max_tokens="4")
    page.keyboard.press("Escape")  # closes the drawer when nothing runs
    assert page.locator("#settings").is_hidden()
    page.fill("#prompt", "line one")
    page.press("#prompt", "Shift+Enter")
    page.keyboard.type("line two")
    assert page.input_value("#prompt") == "line one\nline two"
    page.press("#prompt", "Enter")
    ui.wait_done()
    assert page.locator("#messages li.user .content").inner_text() == "line one\nline two"
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    # every control has an accessible name
    unnamed = page.evaluate("""() => [
        ...document.querySelectorAll('input, select, textarea, button')].filter(
        e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                     && !e.textContent.trim()).map(e => e.id || e.outerHTML)""")
    assert unnamed == []
    ui.close()


def test_a_wheel_carries_the_page(tmp_path: Path) -> None:
    """A non-editable install: build the wheel from a copy of the sources, unpack it and load
    the page's files through afm.webui from there (importlib.resources, not the source tree)."""
    import shutil
    import subprocess
    import sys
    import zipfile

    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "tools/afm_build_backend.py"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, src / name)  # (no setup.py: no native build, no contract)
    for package in ("afm", "engine", "handlers", "generated", "serving"):
        shutil.copytree(ROOT / package, src / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                    str(tmp_path / "dist"), str(src)], check=True, timeout=300)
    (wheel,) = (tmp_path / "dist").glob("afm-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    page = sorted(n for n in names if n.startswith("afm/static/webui/"))
    shipped = sorted(f"afm/static/webui/{p.name}"
                     for p in (ROOT / "afm" / "static" / "webui").iterdir())
    assert page == shipped
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = ("import afm, afm.webui as w; a = w.load_assets(); "
             "print(afm.__file__); print(len(a['/'][0]), sorted(a))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, check=True,
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(site)}).stdout.splitlines()
    assert out[0].startswith(str(site))
    assert "'/webui/app.js'" in out[1] and "'/'" in out[1]
    assert int(out[1].split()[0]) == (ROOT / "afm/static/webui/index.html").stat().st_size


def test_reasoning_is_shown_apart_and_collapsible(browser: Any, live_server: Callable[..., Any],
                                                  tmp_path_factory: pytest.TempPathFactory
                                                  ) -> None:
    """On `tiny-think` (test_compat_reasoning's model: it opens <think> and closes it soon),
    the reasoning arrives as reasoning_content and the answer, shaped by a schema, after it."""
    from tests.test_compat_reasoning import build_think_model

    model = build_think_model(tmp_path_factory.mktemp("models") / "tiny-think")
    ui = Page(browser, live_server(model=model))
    page = ui.open()
    schema = {"type": "object", "properties": {"level": {"enum": ["low", "high"]}},
              "required": ["level"], "additionalProperties": False}
    ui.settings(thinking=True, max_tokens="200", seed="1", temperature="1",
                format="json_schema", schema=json.dumps(schema))
    ui.send("Is it raining?")
    ui.wait_done()
    details = page.locator(f"{LAST} details.reasoning")
    assert details.count() == 1
    assert page.locator(f"{LAST} .reasoning-text").text_content().strip()
    assert json.loads(page.locator(f"{LAST} .parsed-json").inner_text())["level"] in (
        "low", "high")
    was_open = details.evaluate("d => d.open")
    details.locator("summary").click()
    assert details.evaluate("d => d.open") is not was_open
    assert ui.bodies[-1].get("chat_template_kwargs") is None  # thinking on: the default
    ui.close()


MARKDOWN = """# Title
Some *em*, **strong**, `code`, ~~gone~~ and [a link](https://example.org/x).

- one
- two with <b>tags</b>
  - nested

1. first
2. second

> quoted <script>alert(4)</script>

```python
print("<img src=x onerror=alert(5)>")
```

| a | b |
|---|---|
| <i>1</i> | [bad](javascript:alert(6)) |
"""


def test_markdown_renderer_builds_only_safe_nodes(ui: Page) -> None:
    """markdown.js on its own, in the page: the structure it builds, and that every piece of
    HTML in the source stays text."""
    page = ui.open()
    tags = page.evaluate("""async (text) => {
        const { renderMarkdown } = await import('/webui/markdown.js');
        const root = renderMarkdown(text);
        document.querySelector('#messages').appendChild(root);
        return [...root.querySelectorAll('*')].map(e => e.tagName.toLowerCase());
    }""", MARKDOWN)
    assert set(tags) <= {"h3", "p", "em", "strong", "code", "del", "a", "ul", "ol", "li", "pre",
                         "blockquote", "div", "table", "thead", "tbody", "tr", "th", "td"}
    for tag in ("h3", "em", "strong", "del", "ul", "ol", "blockquote", "pre", "table"):
        assert tag in tags, tag
    assert tags.count("li") == 5
    links = page.locator(".md a")
    assert links.count() == 1 and links.get_attribute("href") == "https://example.org/x"
    assert links.get_attribute("rel") == "noopener noreferrer"
    text = page.locator(".md").inner_text()
    for raw in ("<b>tags</b>", "<script>alert(4)</script>", '<img src=x onerror=alert(5)>',
                "<i>1</i>", "[bad](javascript:alert(6))"):
        assert raw in text, raw
    assert page.locator(".md pre code").get_attribute("data-lang") == "python"
    page.wait_for_timeout(200)
    assert ui.dialogs == []
