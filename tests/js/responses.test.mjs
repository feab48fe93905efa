// The Vercel AI SDK's default OpenAI model (the Responses API) against a real `afm serve`.
// Run by tests/test_compat_responses_js.py with AFM_BASE_URL set: node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText, tool } from "ai";
import { z } from "zod";

const baseURL = process.env.AFM_BASE_URL;
assert.ok(baseURL, "AFM_BASE_URL must name the server's /v1 URL");
const model = createOpenAI({ baseURL, apiKey: "unused" })("afm-default");
const settings = {
  model,
  prompt: "Name two colours.",
  temperature: 0,
  maxOutputTokens: 16,
  maxRetries: 0,
};

test("generateText returns text, usage and a finish reason", async () => {
  const result = await generateText(settings);
  assert.equal(typeof result.text, "string");
  assert.ok(["stop", "length"].includes(result.finishReason), result.finishReason);
  assert.ok(result.usage.inputTokens > 0);
  assert.ok(result.usage.outputTokens > 0 && result.usage.outputTokens <= 16);
  assert.match(result.response.id, /^resp_/);
});

test("streamText streams the same text as generateText (greedy)", async () => {
  const whole = await generateText(settings);
  const stream = streamText(settings);
  let text = "";
  for await (const part of stream.textStream) text += part;
  assert.equal(text, whole.text);
  assert.equal(await stream.finishReason, whole.finishReason);
  assert.deepEqual((await stream.usage).outputTokens, whole.usage.outputTokens);
});

test("a forced function tool gives a call whose input matches its schema", async () => {
  const weather = tool({
    description: "Weather for a city",
    inputSchema: z.object({ city: z.string().max(12) }),
  });
  const result = await generateText({
    ...settings,
    maxOutputTokens: 64,
    tools: { weather },
    toolChoice: { type: "tool", toolName: "weather" },
  });
  assert.equal(result.toolCalls.length, 1);
  assert.equal(result.toolCalls[0].toolName, "weather");
  assert.equal(typeof result.toolCalls[0].input.city, "string");
});
