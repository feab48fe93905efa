"""Mutation harness: one-line bugs in observable behaviour must each fail an end-to-end test.

``python tools/mutate.py`` copies the repository's files (tracked and untracked, not ignored)
into a temporary folder, checks that the unmutated copy passes every listed test, then applies
each mutation of :data:`MUTATIONS` on its own (file, exact old text -> new text), runs only the
tests named for it, and restores the file. It prints a table (mutation, caught by, result) and
exits non-zero when a mutation survives or its old text is not found exactly once (so the list
fails loudly when code moves: update ``file``/``old`` then).

Options: ``--only ID[,ID]``, ``--list``, ``--keep`` (leave the copy for inspection).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    """A one-line bug: replace ``old`` (found exactly once in ``file``) by ``new``."""

    id: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]
    description: str


OBS = "tests/test_compat_observables.py::"
CHAT = "tests/test_compat_chat.py::"
AUTO = "tests/test_compat_tools_auto.py::"
STOP = "tests/test_shutdown.py::"
DRIVER = "tests/unit/test_driver.py::"
ENC = "tests/unit/test_encoders.py::"
API = "tests/api/"

MUTATIONS: tuple[Mutation, ...] = (
    Mutation("cached-tokens-zero", "serving/usage.py",
             '"prompt_tokens_details": {"cached_tokens": stats.cached_tokens},',
             '"prompt_tokens_details": {"cached_tokens": 0},',
             (OBS + "test_usage_cache_and_every_metric_family",),
             "usage.prompt_tokens_details.cached_tokens always 0"),
    Mutation("timings-cache-n-zero", "serving/usage.py",
             '"cache_n": stats.cached_tokens,', '"cache_n": 0,',
             (OBS + "test_streamed_usage_reports_the_shared_prefix",),
             "timings.cache_n always 0"),
    Mutation("prefix-hit-counter-stuck", "engine/model_runner.py",
             "metrics.prefix_cache_hits.inc(reused)", "metrics.prefix_cache_hits.inc(0)",
             (OBS + "test_usage_cache_and_every_metric_family",),
             "afm:prefix_cache_hits_total never counts"),
    Mutation("generation-tokens-frozen", "engine/emitter.py",
             "metrics.generation_tokens.inc()", "metrics.generation_tokens.inc(0)",
             (OBS + "test_usage_cache_and_every_metric_family",),
             "afm:generation_tokens_total frozen"),
    Mutation("prompt-tokens-frozen", "engine/model_runner.py",
             "metrics.prompt_tokens.inc(len(prompt))", "metrics.prompt_tokens.inc(0)",
             (OBS + "test_usage_cache_and_every_metric_family",),
             "afm:prompt_tokens_total frozen"),
    Mutation("retry-after-dropped", "serving/errors.py",
             'headers={"Retry-After": "2"},', "headers={},",
             (CHAT + "test_server_busy_after_queue_timeout",),
             "503 server_busy without Retry-After"),
    Mutation("cancelled-as-stop", "engine/engine_loop.py",
             'self.emitter.finish(self.runner.decoding[i], "cancelled")',
             'self.emitter.finish(self.runner.decoding[i], "stop")',
             (CHAT + "test_cancel_streaming_by_endpoint",
              OBS + "test_cancelled_request_counted_by_reason"),
             "a request cancelled mid-decode finishes as stop"),
    Mutation("earliest-stop-not-chosen", "engine/stops.py",
             "if idx != -1 and (cut == -1 or idx < cut):", "if idx != -1 and cut == -1:",
             (CHAT + "test_earliest_of_two_stop_strings_wins",),
             "the first listed stop string wins over the earliest in the text"),
    Mutation("usage-total-wrong", "serving/usage.py",
             '"total_tokens": stats.prompt_tokens + stats.completion_tokens,',
             '"total_tokens": stats.completion_tokens,',
             (CHAT + "test_plain_response_shape",),
             "usage.total_tokens leaves out the prompt"),
    Mutation("finish-length-as-stop", "engine/emitter.py",
             'reason = "length"\n', 'reason = "stop"\n',
             (CHAT + "test_max_tokens_precedence",),
             "max_tokens reached reported as stop"),
    Mutation("logprobs-dropped", "serving/chat.py",
             '"logprobs": ({"content": [logprob_json(lp) for lp in done.logprobs]}',
             '"logprobs": ({"content": []}',
             (CHAT + "test_logprobs",),
             "non-streamed logprobs content empty"),
    Mutation("cors-expose-header", "afm/middleware.py",
             '(b"access-control-expose-headers", EXPOSED.encode())]',
             '(b"access-control-expose-headers", CORRELATION.encode())]',
             (OBS + "test_cors_headers_by_value",),
             "Access-Control-Expose-Headers loses Retry-After and X-Grammar-Constraints"),
    Mutation("tool-calls-finish-reason", "serving/run.py",
             'return "tool_calls" if has_calls and reason == "stop" else reason',
             "return reason",
             ("tests/test_compat_tools.py::test_named",),
             "a turn ending in tool calls finishes as stop"),
    Mutation("arguments-sent-whole", "serving/output_parser.py",
             "piece = open_call.args.update(args)", 'piece = ""',
             ("tests/unit/test_tool_call_streaming.py", "tests/test_compat_tools.py::test_named"),
             "streamed tool-call arguments arrive in one piece at the end of the call"),
    Mutation("auto-calls-left-as-text", "serving/output_parser.py",
             "start = self.format.find_start(self.buf)", "start = -1",
             ("tests/unit/test_output_parser.py", AUTO + "test_auto_calls_the_tool"),
             "a call the model chose under tool_choice auto reaches the client as text"),
    Mutation("auto-parallel-dropped", "engine/grammar.py",
             "body = fmt.auto(tags, parallel_tool_calls)", "body = fmt.auto(tags, False)",
             (AUTO + "test_auto_parallel_calls",),
             "tool_choice auto allows only one call even with parallel_tool_calls"),
    Mutation("drain-keeps-queued", "engine/engine_loop.py",
             "self.refuse(self.scheduler.waiting.remove(lambda s: True))", "pass",
             (STOP + "test_sigterm_under_load_on_every_surface",),
             "requests queued for a slot at SIGTERM are not refused with the shutdown 503"),
    Mutation("drain-no-deadline", "afm/drain.py",
             "    state.pool.cancel_all()\n", "",
             (STOP + "test_sigterm_under_load_on_every_surface",),
             "running generations are not cancelled at --shutdown-timeout"),
    Mutation("drain-records-deferred-lines", "afm/batch_worker.py",
             "return  # refused as the server stops",
             "ok, record = False, error_record(custom_id, 'shutting_down', 'stop')  #",
             (STOP + "test_sigterm_under_load_on_every_surface",),
             "a batch line refused by a stopping server is recorded as failed"),
    # the serving encoders, caught by the fast tiers (tests/unit, tests/api: no subprocess)
    Mutation("driver-drops-last-step", "serving/driver.py",
             "            if text or deltas or event.logprobs or event.token_ids:",
             "            if not last and (text or deltas or event.logprobs or event.token_ids):",
             (DRIVER + "test_events_are_start_steps_then_final",),
             "the output of a generation's last engine event is lost"),
    Mutation("driver-no-crash-event", "serving/driver.py",
             "        for item in encoder.crashed(exc):", "        for item in ():",
             (DRIVER + "test_an_error_after_the_200_is_the_encoders_crash_event",),
             "an error after the 200 ends the stream without the surface's error event"),
    Mutation("messages-stop-sequence-lost", "serving/messages.py",
             'return "stop_sequence", final.stop_sequence', 'return "end_turn", None',
             (ENC + "test_stop_reason_from_the_final_event",
              API + "test_messages_api.py::test_stop_sequence_is_the_one_the_engine_matched"),
             "Messages reports end_turn for a generation a stop sequence ended"),
    Mutation("messages-start-no-input-tokens", "serving/messages_stream.py",
             'use = {"input_tokens": event.prompt_tokens,', 'use = {"input_tokens": 0,',
             (ENC + "test_message_events_blocks_and_stop_sequence",),
             "message_start reports no input tokens"),
    Mutation("completions-offset-stuck", "serving/completions.py",
             "self.offset += len(event.text)", "self.offset += 0",
             (ENC + "test_completion_chunks_carry_text_and_column_logprobs",
              API + "test_completions_api.py::test_completion_stream_with_logprobs"),
             "streamed completion logprobs' text_offset never advances"),
    Mutation("chat-logprobs-only-step-dropped", "serving/chat.py",
             "            out.append(self.chunk({}, logprobs=lps))", "            pass",
             (ENC + "test_chat_logprobs_ride_on_the_first_delta_or_alone",),
             "a step with logprobs but no delta (a held-back token) loses its logprobs"),
    Mutation("responses-inexact-turn-kept", "serving/responses.py",
             "if end.text_exact and p.turn_end_tokens is not None:",
             "if p.turn_end_tokens is not None:",
             (API + "test_responses_api.py::test_a_stop_string_cut_turn_is_re_rendered",),
             "a turn a stop string cut is continued on tokens its text does not say"),
    Mutation("generation-defaults-model-over-flag", "serving/sampling.py",
             "        if flag is not None:\n"
             "            values[name], sources[name] = flag, \"flag\"",
             "        if flag is not None and (model is None or name not in model.values):\n"
             "            values[name], sources[name] = flag, \"flag\"",
             ("tests/unit/test_generation_defaults.py::test_flag_over_model_over_fallback",
              API + "test_generation_defaults_api.py::test_models_reports_defaults_and_sources"),
             "a model's own default wins over the afm serve flag"),
    Mutation("generation-defaults-request-zero-dropped", "serving/sampling.py",
             "temperature=float(first_set(fields.temperature, d.temperature)),",
             "temperature=float(fields.temperature or d.temperature),",
             ("tests/unit/test_generation_defaults.py::"
              "test_request_fields_win_and_explicit_zeros_mean_what_they_say",
              API + "test_generation_defaults_api.py::"
              "test_explicit_zeros_win_over_the_models_defaults"),
             "an explicit temperature 0 in a request is taken as unset"),
)


def copy_repo(dest: Path) -> None:
    """Tracked and untracked (not ignored) files of the checkout into ``dest``."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                         check=True, capture_output=True).stdout.decode()
    for rel in filter(None, out.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    for extra in ("node_modules",):  # tools the contract tests use, if present
        if (ROOT / extra).exists():
            (dest / extra).symlink_to(ROOT / extra)


def run_tests(copy: Path, tests: tuple[str, ...]) -> tuple[bool, str]:
    """Run ``tests`` in the copy (its own modules first on sys.path): (passed, output tail)."""
    env = {**os.environ, "PYTHONPATH": str(copy), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                           *tests], cwd=copy, env=env, capture_output=True, text=True)
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
    return proc.returncode == 0, tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated mutation ids")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.only or m.id in args.only.split(",")]
    if args.list:
        for m in chosen:
            print(f"{m.id:28} {m.file:26} {m.description}")
        return 0
    copy = Path(tempfile.mkdtemp(prefix="afm-mutate-"))
    rows: list[tuple[str, str, str]] = []
    failed = False
    try:
        copy_repo(copy)
        for m in chosen:  # every old text present exactly once, before any test runs
            count = (copy / m.file).read_text().count(m.old)
            if count != 1:
                rows.append((m.id, m.file, f"OLD TEXT FOUND {count}x"))
                failed = True
        if failed:
            return report(rows, 1)
        baseline = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
        print(f"baseline: {len(baseline)} tests on the unmutated copy in {copy}", flush=True)
        ok, tail = run_tests(copy, baseline)
        if not ok:
            print(f"the unmutated copy fails its tests:\n{tail}", file=sys.stderr)
            return 2
        for m in chosen:
            path = copy / m.file
            original = path.read_text()
            path.write_text(original.replace(m.old, m.new, 1))
            start = time.monotonic()
            try:
                passed, tail = run_tests(copy, m.tests)
            finally:
                path.write_text(original)
            tests = ", ".join(t.split("::")[-1] for t in m.tests)
            verdict = "SURVIVED" if passed else "caught"
            print(f"{m.id}: {verdict} ({time.monotonic() - start:.0f}s)", flush=True)
            rows.append((m.id, tests, verdict))
            failed |= passed
        return report(rows, 1 if failed else 0)
    finally:
        if args.keep:
            print(f"copy kept in {copy}", file=sys.stderr)
        else:
            shutil.rmtree(copy, ignore_errors=True)


def report(rows: list[tuple[str, str, str]], status: int) -> int:
    """Print the table; return ``status``."""
    print("\n| mutation | caught by | result |\n|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
