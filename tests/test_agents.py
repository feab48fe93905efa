"""Coding agents end to end: Claude Code (Messages API) and Codex CLI (Responses API), at the
versions pinned in package.json, headless, against a real `afm serve`, each working in a
temporary folder. Every request of a session must be 2xx in the server's access log.

On the real coder model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M, fetched by tools/setup.sh) the
agents complete small file-editing tasks (create a file with given content; change one
function), checked on disk; the prompts name the tool and spell the change out, as a 0.5B model
does no planning. `AFM_AGENTS_MODEL=random` runs the same sessions on the project's
random-weight model (a 32k window, as agents' prompts need) and checks only the protocol: every
request the agent sends is accepted.

Prompts are trimmed so a session fits the CI budget on two cores: Claude Code gets
`--tools Write,Edit,Read` and a one-line `--system-prompt` (~1.5k prompt tokens instead of
~9.5k); Codex gets `model_instructions_file`, `web_search = "disabled"`, `[agents] enabled =
false` and `[features] goals = false` (~2.5k instead of ~10k). Their outside traffic is off.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, LiveServer
from tests.real_weights import real_model

pytestmark = pytest.mark.slow

CLAUDE = ROOT / "node_modules" / ".bin" / "claude"
CODEX = ROOT / "node_modules" / ".bin" / "codex"
SESSION_TIMEOUT = 480.0
PROTOCOL_TIMEOUT = 150.0
"""A session checked for the protocol only is stopped after this long (the model may loop)."""
PROTOCOL_REQUESTS = 2
"""A protocol-only session is judged on its first requests on the agent's surface: once this many
have completed (the opening request and the one carrying the first tool result or retry), it is
stopped instead of running to the timeout (a 0.5B model may repeat a rejected call)."""
DONE_GRACE = 3.0
SYSTEM = ("You are a coding agent. Use the tools to create and edit files in the working "
          "directory. Be brief.")
ACCESS = re.compile(r"afm\.access: (?P<method>[A-Z]+) (?P<path>\S+) (?P<status>\d{3}) ")

if not (CLAUDE.exists() and CODEX.exists()):
    pytest.skip("the agents are not installed (npm ci)", allow_module_level=True)


REAL = os.environ.get("AFM_AGENTS_MODEL") != "random"
"""`AFM_AGENTS_MODEL=random` runs the sessions on the random-weight model (protocol only)."""


@pytest.fixture(scope="module")
def agent_server(live_server: Callable[..., LiveServer],
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    flags = ("--temperature", "0", "--max-tokens", "512", "--concurrent", "2")
    if REAL:
        yield live_server(*flags, model=real_model("qwen-0.5b"))
        return
    from modelbuilder import ensure_model

    model = tmp_path_factory.mktemp("models") / "tiny-32k"
    shutil.copytree(ensure_model("tiny"), model)
    for name, key in (("config.json", "max_position_embeddings"),
                      ("tokenizer_config.json", "model_max_length")):
        data = json.loads((model / name).read_text())
        data[key] = 32768
        (model / name).write_text(json.dumps(data))
    # Random weights rarely stop by themselves: keep each turn short.
    yield live_server("--temperature", "0", "--max-tokens", "48", "--concurrent", "2",
                      model=model)


@dataclass
class Session:
    """One agent run: its exit status, output, the access-log lines it caused, its time."""

    returncode: int | None
    output: str
    requests: list[dict[str, str]]
    seconds: float

    def summary(self) -> str:
        return f"{len(self.requests)} requests in {self.seconds:.0f} s"


def model_id(server: LiveServer) -> str:
    return str(httpx.get(server.url + "/v1/models").json()["data"][0]["id"])


Done = Callable[[list[dict[str, str]]], bool]
"""Whether a session may stop, given the requests it has completed so far."""


def _requests(log: Path, start: int) -> list[dict[str, str]]:
    """The access-log lines written since byte ``start``, as dicts."""
    with log.open("rb") as f:
        f.seek(start)
        lines = f.read().decode(errors="replace").splitlines()
    return [m.groupdict() for line in lines if (m := ACCESS.search(line))]


def run_agent(server: LiveServer, cmd: list[str], env: dict[str, str], cwd: Path,
              timeout: float, done: Done) -> Session:
    """Run the agent until it ends, ``done(requests)`` holds (the task is on disk: a 0.5B model
    tends to repeat its last call instead of stopping; or enough requests for a protocol check)
    or ``timeout`` seconds pass; then stop its whole process group (returncode None). The
    requests it sent are what it is judged on."""
    log = server.log_path
    start = log.stat().st_size
    began = time.monotonic()
    base = {k: os.environ[k] for k in ("PATH", "LANG", "TERM") if k in os.environ}
    proc = subprocess.Popen(cmd, cwd=cwd, env={**base, **env}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    returncode: int | None = None
    while (time.monotonic() - began < timeout and proc.poll() is None
           and not done(_requests(log, start))):
        time.sleep(1)
    if proc.poll() is None:
        time.sleep(DONE_GRACE if done(_requests(log, start)) else 0)  # the request in flight
        os.killpg(proc.pid, signal.SIGKILL)
    else:
        returncode = proc.returncode
    output, _ = proc.communicate()
    seconds = time.monotonic() - began
    time.sleep(0.5)  # the access line follows the response's last byte
    return Session(returncode, output, _requests(log, start), seconds)


def claude(server: LiveServer, task: str, cwd: Path, home: Path, timeout: float,
           done: Done) -> Session:
    name = model_id(server)
    env = {"HOME": str(home), "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "unused",
           "ANTHROPIC_MODEL": name, "ANTHROPIC_SMALL_FAST_MODEL": name,
           **{f"ANTHROPIC_DEFAULT_{tier}_MODEL": name for tier in ("HAIKU", "SONNET", "OPUS")},
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
           "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "256"}
    tools = "Write,Edit,Read"
    cmd = [str(CLAUDE), "-p", task, "--output-format", "json", "--tools", tools,
           "--allowedTools", tools, "--permission-mode", "acceptEdits", "--system-prompt",
           SYSTEM, "--disable-slash-commands", "--strict-mcp-config",
           "--no-session-persistence"]
    return run_agent(server, cmd, env, cwd, timeout, done)


def codex(server: LiveServer, task: str, cwd: Path, home: Path, timeout: float,
          done: Done) -> Session:
    home.mkdir(parents=True, exist_ok=True)
    (home / "instructions.md").write_text(
        "You are a coding agent. Run shell commands with exec_command to create and edit "
        "files in the working directory. Be brief.\n")
    (home / "config.toml").write_text(f"""\
model = "{model_id(server)}"
model_provider = "afm"
check_for_update_on_startup = false
model_instructions_file = "{home / 'instructions.md'}"
web_search = "disabled"
model_context_window = 32768
[agents]
enabled = false
[features]
goals = false
[analytics]
enabled = false
[model_providers.afm]
name = "afm"
base_url = "{server.url}/v1"
wire_api = "responses"
env_key = "AFM_KEY"
""")
    env = {"HOME": str(home), "CODEX_HOME": str(home), "AFM_KEY": "unused"}
    cmd = [str(CODEX), "exec", "--skip-git-repo-check",
           "--dangerously-bypass-approvals-and-sandbox", "-C", str(cwd), task]
    return run_agent(server, cmd, env, cwd, timeout, done)


AGENTS = {"claude": (claude, "/v1/messages"), "codex": (codex, "/v1/responses")}
CALC = "def add(a, b):\n    return a * b\n\n\ndef sub(a, b):\n    return a - b\n"
TASKS = {
    # (prompt per agent, file, its content before, what it must contain after). The prompts
    # name the tool and spell the change out: a 0.5B model does no planning.
    "create": ({"claude": "Use the Write tool to create the file {work}/hello.py with this "
                          "content: print('hello')",
                "codex": "Call exec_command to run this shell command: echo hello > hello.py"},
               "hello.py", None, {"claude": "print('hello')", "codex": None}),
    "edit": ({"claude": "Use the Read tool on {work}/calc.py, then use the Edit tool on it to "
                        "replace 'return a * b' with 'return a + b'.",
              "codex": "Call exec_command to run this shell command: "
                       "sed -i 's/return a [*] b/return a + b/' calc.py"},
             "calc.py", CALC, {"claude": "def add(a, b):\n    return a + b", "codex": None}),
}
"""Codex's sessions are checked for the protocol only. Edit: the 0.5B model writes the right
`sed` command but also fills exec_command's optional fields from their descriptions
(`sandbox_permissions: require_escalated`, a copied `justification`), which Codex rejects under
approval `never`, and it retries the same call. Create: it ran `echo hello > hello.py` on the
Xeon machines here, but on AMD Zen 4 (other float rounding in the float32 BLAS and kernels, at
temperature 0) its first reply rambles to the 512-token limit before any tool call, the same at
the commit before issue 31's kernel changes and on each kernel path; a sentence of other words
("Call exec_command with cmd set to: ...") did no better. (Quoting `printf "print('hello')"`
also defeats it: it drops the inner quotes, hence `echo`.)"""


@pytest.mark.parametrize("task", sorted(TASKS))
@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_agent_session(agent_server: LiveServer, tmp_path: Path, agent: str,
                       task: str) -> None:
    run, surface = AGENTS[agent]
    prompts, name, before, expectations = TASKS[task]
    expected = expectations[agent]
    work = tmp_path / "work"
    work.mkdir()
    if before is not None:
        (work / name).write_text(before)
    timeout = SESSION_TIMEOUT if expected is not None and REAL else PROTOCOL_TIMEOUT

    def done(requests: list[dict[str, str]]) -> bool:
        if expected is None or not REAL:  # protocol only: its first requests on the surface
            return sum(r["path"] == surface for r in requests) >= PROTOCOL_REQUESTS
        path = work / name
        return path.exists() and expected in path.read_text()

    session = run(agent_server, prompts[agent].format(work=work), work, tmp_path / "home",
                  timeout, done)
    print(f"{agent} {name}: {session.summary()}, exit {session.returncode}")
    assert session.requests, session.output[-2000:]
    assert any(r["path"] == surface for r in session.requests), session.requests
    failed = [r for r in session.requests if not r["status"].startswith("2")]
    assert not failed, (failed, session.output[-2000:])
    if not REAL or expected is None:
        return  # the protocol is all there is to check (random weights, or beyond the model)
    # The exit status is not checked: after its last tool call the 0.5B model may ramble up to
    # the output limit, and Codex reports a `max_output_tokens` response as an error.
    text = (work / name).read_text() if (work / name).exists() else ""
    assert expected in text, (text, session.output[-2000:])
    if before is not None:
        assert "def sub(a, b):\n    return a - b" in text  # the rest left alone
