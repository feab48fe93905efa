"""`GET /docs` in a real browser: headless Chromium (Debian's package, driven by the `playwright`
Python package; no browser download) opens Swagger UI on a live server, finds every operation of
the contract, runs "Try it out" on GET /v1/models and sees the answer. The page must load
nothing from outside the server. A screenshot lands in artifacts/docs.png.

Needs `apt-get install -y chromium` (or AFM_CHROMIUM=/path/to/chrome).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import ROOT, LiveServer
from tests.contract_support import load_spec

pytestmark = pytest.mark.slow

CHROMIUM = os.environ.get("AFM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOT = ROOT / "artifacts" / "docs.png"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install -y chromium (or set AFM_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def test_docs_lists_every_operation_and_try_it_works(browser: object, server: LiveServer
                                                     ) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    page.goto(f"{server.url}/docs")  # redirects to /docs/
    page.wait_for_selector(".opblock", timeout=60_000)

    listed = set()
    for block in page.query_selector_all(".opblock"):
        method = block.query_selector(".opblock-summary-method").inner_text().strip().lower()
        path = block.query_selector(".opblock-summary-path").get_attribute("data-path")
        listed.add((method, path))
    contract = {(m, p) for p, item in load_spec()["paths"].items() for m in item if m in METHODS}
    assert listed == contract

    block = page.locator("#operations-Models-listModels")
    block.locator(".opblock-summary").click()
    try_it = block.locator("button.try-out__btn")
    if try_it.count() and "Cancel" not in try_it.inner_text():
        try_it.click()
    block.locator("button.execute").click()
    live = block.locator(".live-responses-table tr.response .response-col_status").first
    live.wait_for(timeout=60_000)
    assert live.inner_text().strip() == "200"
    body_text = block.locator(".live-responses-table tr.response .response-col_description pre"
                              ).first
    payload = json.loads(body_text.inner_text())
    assert payload["object"] == "list"
    assert {m["id"] for m in payload["data"]} >= {"sentence-transformers/all-MiniLM-L6-v2"}

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    block.screenshot(path=str(SCREENSHOT))  # the operation, with the live response

    server_origin = urlsplit(server.url).netloc
    outside = [u for u in requested
               if urlsplit(u).scheme in ("http", "https") and urlsplit(u).netloc != server_origin]
    assert outside == [], "the docs page reached outside the server"
    assert errors == []
    page.close()
