"""The README for users against the real command line and server: every `afm` flag it names
exists in `afm serve --help`, `afm --help` points at the serve flags in its first lines, and
`/docs` answers with the page itself."""

from __future__ import annotations

import re
import subprocess
import sys

import httpx
import pytest

from tests.conftest import ROOT, LiveServer

OTHER_TOOLS = {
    "--local-dir": "hf download",
    "--check": "tools/gen_client.py, datamodel-codegen",
    "--test": "node --test",
    "--strict": "tsc --strict",
    "--quick": "tools/bench.py",
    "--deep-decode": "tools/bench.py --gguf",
    "--staggered": "tools/bench.py --gguf",
    "--tokens": "tools/bench.py",
    "--only": "tools/mutate.py",
    "--list": "tools/mutate.py",
    "--variants": "tools/bench_step.py",
    "--help-json": "afm --help-json (checked below)",
    "--hostfile": "mlx.launch",
    "--all": "python -m afm.speech_models",
    "--find-links": "afm fetch-models",
    "--convert": "afm fetch-models",
    "--rows": "tools/bench_prefill.py",
    "--attention": "tools/bench_prefill.py",
    "--gguf": "tools/bench.py",
    "--long": "tools/bench.py --gguf",
    "--jinja": "llama-server",
    "--no-deps": "pip download",
    "--merge": "llama-gguf-split",
    "--dequant": "tools/gguf_fidelity.py",
    "--models": "tools/gguf_fidelity.py",
    "--paths": "tools/gguf_fidelity.py",
    "--tools": "claude",
    "--permission-mode": "claude",
    "--system-prompt": "claude",
    "--skip-git-repo-check": "codex exec",
    "--draft": "tools/bench_spec.py",
    "--llama": "tools/bench_spec.py",
    "--serve-arg": "tools/first_answers.py",
}
"""`--flags` the README names that belong to other commands, with the command."""


def _help(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "afm", *args], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


def test_every_flag_the_readme_names_exists() -> None:
    readme = (ROOT / "README.md").read_text()
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", readme))
    assert {"--model", "--api-key", "--host", "--data-dir", "--port"} <= named
    serve_flags = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", _help("serve", "--help")))
    missing = sorted(named - serve_flags - set(OTHER_TOOLS))
    assert missing == [], f"README names flags `afm serve --help` lacks: {missing}"
    assert "--help-json" in _help("--help")


def test_top_level_help_points_at_serve_flags() -> None:
    first = "\n".join(_help("--help").splitlines()[:6])
    assert "afm serve --help" in first


def test_docs_answers_directly(server: LiveServer) -> None:
    docs = httpx.get(server.url + "/docs")  # no redirect followed
    assert docs.status_code == 200, (docs.status_code, docs.headers)
    assert docs.headers["content-type"].startswith("text/html")
    assert int(docs.headers["content-length"]) == len(docs.content)
    assert '<base href="/docs/">' in docs.text and "swagger-ui" in docs.text
    head = httpx.head(server.url + "/docs")
    assert head.status_code == 200 and head.headers["content-length"] == str(len(docs.content))
    asset = re.search(r'src="\./(swagger-ui-bundle\.js)"', docs.text)
    assert asset, docs.text[:500]
    # the page's relative links resolve under /docs/ through the base element
    assert httpx.get(f"{server.url}/docs/{asset.group(1)}").status_code == 200


def _using_it_blocks(language: str) -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Using it", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)


def test_readme_snippets_run(server: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    """The SDK snippets of "Using it", run as written against a live server (its port in place
    of the default one)."""
    snippets = _using_it_blocks("python")
    assert len(snippets) >= 2
    for code in snippets:
        exec(compile(code.replace("http://127.0.0.1:9999", server.url), "README", "exec"), {})
    printed = capsys.readouterr().out
    assert "CompletionUsage(" in printed  # the streamed usage chunk, reached without an error
    curl = next(block for block in _using_it_blocks("bash") if block.startswith("curl "))
    out = subprocess.run(curl.replace("http://127.0.0.1:9999", server.url), shell=True,
                         capture_output=True, text=True, check=True).stdout
    assert '"chat.completion"' in out
