"""The OpenAI Agents SDK with its default model (the Responses API) against a real
`afm serve`: an agent whose function tool is forced runs end to end (whole and streamed: the
model's call, the tool run, its output as the result; random weights never end a free-text
answer reliably, so the run stops on the tool), and the Vercel AI SDK's
`createOpenAI({baseURL})(id)` (tests/js/responses.test.mjs, node's test runner)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pytest
from openai import AsyncOpenAI
from pydantic import Field

from tests.conftest import ROOT, LiveServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def agents_server(live_server: Callable[..., LiveServer]) -> LiveServer:
    return live_server("--concurrent", "4")


def test_agents_sdk_default_model_runs_a_forced_tool_end_to_end(
        agents_server: LiveServer) -> None:
    from agents import (
        Agent,
        ModelSettings,
        OpenAIResponsesModel,
        RunConfig,
        Runner,
        function_tool,
    )

    cities: list[str] = []

    @function_tool
    def get_weather(city: Annotated[str, Field(max_length=12)]) -> str:
        """The weather in a city."""
        cities.append(city)
        return "sunny"

    client = AsyncOpenAI(base_url=agents_server.url + "/v1", api_key="unused", max_retries=0)
    agent = Agent(name="weather", instructions="Use the tool.",
                  model=OpenAIResponsesModel("afm-default", client), tools=[get_weather],
                  model_settings=ModelSettings(tool_choice="get_weather", max_tokens=200,
                                               temperature=0),
                  tool_use_behavior="stop_on_first_tool")
    async def run() -> tuple[Any, Any, list[str]]:
        config = RunConfig(tracing_disabled=True)
        try:
            result = await Runner.run(agent, "Weather in Paris?", max_turns=4,
                                      run_config=config)
            streamed = Runner.run_streamed(agent, "Weather in Rome?", max_turns=4,
                                           run_config=config)
            events = [event.type async for event in streamed.stream_events()]
        finally:
            await client.close()  # its connections belong to this event loop
        return result, streamed, events

    result, streamed, events = asyncio.run(run())
    assert len(cities) == 2 and all(isinstance(c, str) for c in cities)
    kinds = [item.type for item in result.new_items]
    assert kinds == ["tool_call_item", "tool_call_output_item"], kinds
    assert result.final_output == "sunny"
    assert all(r.response_id and r.response_id.startswith("resp_")
               for r in result.raw_responses)
    assert "raw_response_event" in events and streamed.final_output == "sunny"


def test_vercel_ai_sdk_generate_and_stream_text(agents_server: LiveServer) -> None:
    node = shutil.which("node")
    assert node is not None, "node is needed for the JS compat test"
    assert (ROOT / "node_modules" / "ai").is_dir(), "run `npm ci` (tools/setup.sh dev)"
    env = dict(os.environ, AFM_BASE_URL=agents_server.url + "/v1")
    proc = subprocess.run([node, "--test", str(Path("tests") / "js")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
