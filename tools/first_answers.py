"""First answers as people send them: a fixed set of plain questions, no sampling fields.

Starts `afm serve` on a model with no sampling flags (so the model's resolved generation
defaults apply; see "Generation defaults" in the README), asks each question N times on chat
completions, the Responses API and the Messages API, sending only the question and an output
limit, and counts an answer right when it holds the expected keyword(s) and reads as English.
Prints one table: right in English / total per surface, and per question with -v.

    .venv/bin/python tools/first_answers.py                      # the default model, N=5
    .venv/bin/python tools/first_answers.py --model qwen-0.5b -n 2
    .venv/bin/python tools/first_answers.py --serve-arg=--temperature=0.1   # try a setting
    .venv/bin/python tools/first_answers.py --url http://127.0.0.1:9999     # a running server

`--model` takes a packaged real model's name (`smollm2`, `qwen-0.5b`, `qwen-1.5b`, from the
cache `tools/setup.sh` fills) or anything `afm serve --model` takes. A script, not a test: it
prints numbers for a person to judge (the README test holds the pass line for the default).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
SURFACES = ("chat", "responses", "messages")


@dataclass(frozen=True)
class Question:
    text: str
    rule: tuple[tuple[str, ...], ...]
    """Alternatives: the answer is right when every word of one alternative appears in it
    (whole words, case-insensitive)."""


def q(text: str, *alternatives: str) -> Question:
    return Question(text, tuple(tuple(a.split("+")) for a in alternatives))


QUESTIONS: tuple[Question, ...] = (
    # facts
    q("What is the capital of France?", "paris"),
    q("What is the capital of Japan?", "tokyo"),
    q("What is the capital of Italy?", "rome"),
    q("What is the capital of Germany?", "berlin"),
    q("What is the capital of Spain?", "madrid"),
    q("Which planet is the largest in our solar system?", "jupiter"),
    q("Who wrote Romeo and Juliet?", "shakespeare"),
    q("What color is the sky on a clear day?", "blue"),
    q("How many days are there in a week?", "7", "seven"),
    q("How many legs does a spider have?", "8", "eight"),
    q("What is the chemical formula of water?", "h2o", "h₂o"),
    q("At what temperature in Celsius does water freeze?", "0", "zero"),
    # arithmetic
    q("What is 2 + 2?", "4", "four"),
    q("What is 10 minus 3?", "7", "seven"),
    q("What is 5 times 6?", "30", "thirty"),
    q("What is 100 divided by 4?", "25", "twenty-five", "twenty+five"),
    # short instructions
    q("Say hello in one word.", "hello", "hi"),
    q("What is the opposite of hot? Answer in one word.", "cold"),
    q("Name the three primary colors.", "red+blue+yellow", "red+green+blue"),
    q("Translate 'thank you' into Spanish.", "gracias"),
)

def _vocabulary(text: str) -> frozenset[str]:
    return frozenset(text.split())


ENGLISH = _vocabulary(
    "the is are was of and a an to in it this that for on with as by at be from or which "
    "there its has have not can answer capital city")
FOREIGN = _vocabulary(
    # French, Spanish, German, Italian, Portuguese function words rarely seen in English text
    "le la les de est une des du et il elle sont avec pour dans qui que pas ce cette nous vous "
    "el los las es y por con una del para su al lo como pero muy "
    "der das und ist nicht ein eine ich sie wir mit auf dem den zu "
    "il di che è sono gli della per non "
    "o os um uma não são com")


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:[-'][^\W_]+)*|[₀-₉]", text.lower())


def is_english(text: str) -> bool:
    """Reads as English: few letters outside ASCII, and not more foreign function words than
    English ones (two or more foreign ones decide)."""
    letters = [c for c in text if c.isalpha()]
    if letters and sum(not c.isascii() for c in letters) / len(letters) > 0.1:
        return False
    ws = words(text)
    foreign = sum(w in FOREIGN for w in ws)
    english = sum(w in ENGLISH for w in ws)
    return not (foreign >= 2 and foreign > english)


def is_right(question: Question, text: str) -> bool:
    found = set(words(text.replace("H₂O", "h2o").replace("h₂o", "h2o")))
    return any(all(w in found for w in alt) for alt in question.rule)


def request(surface: str, model: str, text: str, max_tokens: int) -> tuple[str, dict[str, Any]]:
    """The path and body of one question on ``surface``: the question and an output limit,
    no sampling field."""
    if surface == "chat":
        return "/v1/chat/completions", {"model": model, "max_tokens": max_tokens,
                                        "messages": [{"role": "user", "content": text}]}
    if surface == "responses":
        return "/v1/responses", {"model": model, "input": text, "store": False,
                                 "max_output_tokens": max_tokens}
    return "/v1/messages", {"model": model, "max_tokens": max_tokens,
                            "messages": [{"role": "user", "content": text}]}


def answer_text(surface: str, body: dict[str, Any]) -> str:
    if surface == "chat":
        return body["choices"][0]["message"].get("content") or ""
    if surface == "responses":
        return "".join(part.get("text", "") for item in body.get("output", [])
                       if item.get("type") == "message" for part in item.get("content", []))
    return "".join(b.get("text", "") for b in body.get("content", []) if b.get("type") == "text")


async def ask_all(url: str, model: str, n: int, surfaces: list[str], max_tokens: int,
                  parallel: int, questions: tuple[Question, ...] = QUESTIONS
                  ) -> list[tuple[str, Question, str]]:
    """Every question ``n`` times on every surface; (surface, question, answer) each."""
    gate = asyncio.Semaphore(parallel)
    async with httpx.AsyncClient(base_url=url, timeout=600,
                                 headers={"x-api-key": "local"}) as client:
        async def one(surface: str, question: Question) -> tuple[str, Question, str]:
            path, body = request(surface, model, question.text, max_tokens)
            async with gate:
                reply = await client.post(path, json=body)
            if reply.status_code != 200:
                return surface, question, f"<HTTP {reply.status_code}: {reply.text[:200]}>"
            return surface, question, answer_text(surface, reply.json())

        jobs = [one(s, qu) for _ in range(n) for qu in questions for s in surfaces]
        return list(await asyncio.gather(*jobs))


def table(results: list[tuple[str, Question, str]], surfaces: list[str], verbose: bool) -> str:
    per_surface: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    per_question: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    wrong: list[str] = []
    for surface, question, text in results:
        right, english = is_right(question, text), is_english(text)
        row = per_surface[surface]
        row[0] += right and english
        row[1] += english
        row[2] += 1
        per_question[(question.text, surface)][0] += right and english
        per_question[(question.text, surface)][1] += 1
        if not (right and english):
            why = "not English" if not english else "wrong"
            wrong.append(f"  [{surface}] {question.text} ({why}): {text.strip()[:100]!r}")
    lines = ["| surface | right, in English | in English | total | share right |",
             "|---|---|---|---|---|"]
    totals = [0, 0, 0]
    for s in surfaces:
        r = per_surface[s]
        totals = [a + b for a, b in zip(totals, r, strict=True)]
        lines.append(f"| {s} | {r[0]} | {r[1]} | {r[2]} | {r[0] / max(r[2], 1):.0%} |")
    lines.append(f"| all | {totals[0]} | {totals[1]} | {totals[2]} | "
                 f"{totals[0] / max(totals[2], 1):.0%} |")
    if verbose:
        lines += ["", "| question | " + " | ".join(surfaces) + " |",
                  "|---|" + "---|" * len(surfaces)]
        for question in dict.fromkeys(qu.text for _, qu, _ in results):
            cells = [f"{per_question[(question, s)][0]}/{per_question[(question, s)][1]}"
                     for s in surfaces]
            lines.append(f"| {question} | " + " | ".join(cells) + " |")
        if wrong:
            lines += ["", "not right:", *wrong]
    return "\n".join(lines)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def model_source(model: str | None) -> str | None:
    """A packaged real model's cached file for its name; anything else as given."""
    if model is None:
        return None
    from afm.real_models import MODELS, cached_path

    if model in MODELS:
        path = cached_path(model)
        if path is None:
            sys.exit(f"{model} is not cached: run `.venv/bin/afm fetch-models {model}`")
        return str(path)
    return model


def start_server(model: str | None, extra: list[str], concurrent: int, log: Path
                 ) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "afm", "serve", "--port", str(port), "--data-dir",
           str(log.parent / "data"), "--concurrent", str(concurrent), *extra]
    if model is not None:
        cmd += ["--model", model]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"afm serve exited:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    sys.exit("afm serve did not become healthy in 900 s")


def describe_defaults(url: str) -> str:
    models = httpx.get(url + "/v1/models", timeout=30).json()["data"]
    chat = next((m for m in models if m.get("type") == "chat"), models[0])
    return f"{chat['id']}: generation defaults {chat.get('generation_defaults')}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a packaged real model's name or an `afm serve "
                        "--model` value (default: the server's default model)")
    parser.add_argument("-n", type=int, default=5, help="tries per question and surface")
    parser.add_argument("--surfaces", default=",".join(SURFACES))
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--parallel", type=int, default=4,
                        help="requests in flight (and the server's --concurrent)")
    parser.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                        help="an extra `afm serve` argument (repeatable), e.g. "
                        "--serve-arg=--temperature=0.1 to try a setting")
    parser.add_argument("--url", help="ask a running server instead of starting one")
    parser.add_argument("--only", help="ask only the questions containing this text")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="per question counts and the answers not counted right")
    args = parser.parse_args(argv)
    surfaces = [s for s in args.surfaces.split(",") if s]
    bad = sorted(set(surfaces) - set(SURFACES))
    if bad:
        parser.error(f"unknown surfaces {bad}; known: {', '.join(SURFACES)}")
    questions = tuple(qu for qu in QUESTIONS if not args.only or args.only in qu.text)
    proc = None
    with tempfile.TemporaryDirectory(prefix="afm-first-answers-") as tmp:
        if args.url:
            url = args.url.rstrip("/")
        else:
            proc, url = start_server(model_source(args.model), args.serve_arg, args.parallel,
                                     Path(tmp) / "server.log")
        try:
            print(describe_defaults(url))
            model = httpx.get(url + "/v1/models", timeout=30).json()["data"][0]["id"]
            started = time.monotonic()
            results = asyncio.run(ask_all(url, model, args.n, surfaces, args.max_tokens,
                                          args.parallel, questions))
            print(f"{len(questions)} questions x {args.n} tries x {len(surfaces)} surfaces, "
                  f"max_tokens {args.max_tokens}, no sampling fields, "
                  f"extra serve args {args.serve_arg or 'none'}: "
                  f"{time.monotonic() - started:.0f} s")
            print(table(results, surfaces, args.verbose))
        finally:
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
