/**
 * The hand-written SSE parser (clients/typescript/src/streaming.ts) on byte streams split at
 * awkward places; no server needed.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseEvents } from '../../clients/typescript/src/index.js';
import type { ServerSentEvent } from '../../clients/typescript/src/index.js';

/** A byte stream of `chunks` (strings are UTF-8 encoded whole; arrays are raw bytes). */
function stream(chunks: Array<string | number[]>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) {
        const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : new Uint8Array(chunk);
        controller.enqueue(bytes);
      }
      controller.close();
    },
  });
}

async function events(chunks: Array<string | number[]>): Promise<ServerSentEvent[]> {
  const all: ServerSentEvent[] = [];
  for await (const event of parseEvents(stream(chunks))) {
    all.push(event);
  }
  return all;
}

test('one byte per chunk: CRLF and a multi-byte character split between chunks', async () => {
  const text = 'data: {"a":"é"}\r\n\r\nevent: done\r\ndata: [DONE]\r\n\r\n';
  const bytes = new TextEncoder().encode(text);
  assert.deepEqual(await events(Array.from(bytes, (b) => [b])), [
    { event: undefined, data: '{"a":"é"}' },
    { event: 'done', data: '[DONE]' },
  ]);
});

test('comments and ids skipped, multi-line data joined, a last event unterminated', async () => {
  const chunks = [': keep-alive\n', 'id: 7\ndata: one\ndata:two\n\n', 'data: end'];
  assert.deepEqual(await events(chunks), [
    { event: undefined, data: 'one\ntwo' },
    { event: undefined, data: 'end' },
  ]);
  assert.deepEqual(await events(['data: x\r']), [{ event: undefined, data: 'x' }]);
});
