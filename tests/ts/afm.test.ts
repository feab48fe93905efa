/**
 * The TypeScript client (clients/typescript) against a live `afm serve`, whose URL arrives in
 * AFM_BASE_URL (tests/test_ts_client.py starts the server, compiles this file with `tsc
 * --strict` and runs it with `node --test`). Every call goes through a generated SDK function
 * or the streaming helper, and every field read is typed by the generated types.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  AfmError,
  createBatch,
  createChatCompletion,
  createClient,
  createConfig,
  createEmbedding,
  createFile,
  deleteFile,
  detokenize,
  downloadFile,
  listModels,
  retrieveBatch,
  retrieveFile,
  retrieveModel,
  streamBatchCompletions,
  streamChatCompletion,
  streamCompletion,
  tokenize,
  unwrap,
} from '../../clients/typescript/src/index.js';
import type {
  Batch,
  BatchCompletionError,
  ChatCompletionChunk,
  ChatMessage,
  CompletionChunk,
} from '../../clients/typescript/src/index.js';

const baseUrl = process.env['AFM_BASE_URL'];
if (baseUrl === undefined) {
  throw new Error('AFM_BASE_URL is not set (tests/test_ts_client.py sets it)');
}
// the server requires this key (tests/test_ts_client.py starts it with --api-key): every
// call below proves the client sends it
const apiKey = process.env['AFM_API_KEY_FOR_TESTS'];
if (apiKey === undefined) {
  throw new Error('AFM_API_KEY_FOR_TESTS is not set (tests/test_ts_client.py sets it)');
}
const afm = createClient(createConfig({ baseUrl, auth: apiKey }));
const TIMEOUT = { timeout: 180_000 };

function user(content: string): ChatMessage {
  return { role: 'user', content };
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) {
    all.push(event);
  }
  return all;
}

test('models: list, retrieve each (ids may hold a slash), a typed 404', TIMEOUT, async () => {
  const models = await unwrap(listModels({ client: afm }));
  const ids = models.data.map((m) => m.id);
  assert.ok(ids.includes('sentence-transformers/all-MiniLM-L6-v2'), ids.join(', '));
  for (const id of ids) {
    const model = await unwrap(retrieveModel({ client: afm, path: { model_id: id } }));
    assert.equal(model.id, id);
    assert.equal(model.object, 'model');
  }

  const { data, error, response } = await retrieveModel({
    client: afm, path: { model_id: 'no-such-model' },
  });
  assert.equal(response.status, 404);
  assert.equal(data, undefined);
  assert.equal(error?.error.type, 'not_found_error');
  assert.equal(typeof error?.error.message, 'string');
});

test('api key: a client without it gets a typed 401', TIMEOUT, async () => {
  const anonymous = createClient(createConfig({ baseUrl }));
  const { data, error, response } = await listModels({ client: anonymous });
  assert.equal(response.status, 401);
  assert.equal(data, undefined);
  assert.equal(error?.error.type, 'authentication_error');
  assert.equal(error?.error.code, 'invalid_api_key');
  await assert.rejects(collect(streamBatchCompletions({ client: anonymous, body: { requests: [] } })),
    (err: unknown) => err instanceof AfmError && err.status === 401);
});

test('chat completion: typed body, request id echoed', TIMEOUT, async () => {
  const { data, response } = await createChatCompletion({
    client: afm,
    headers: { 'X-Request-ID': 'ts-chat-1' },
    body: { messages: [user('Hello')], max_tokens: 6, seed: 3, temperature: 0 },
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('x-request-id'), 'ts-chat-1');
  assert.ok(data !== undefined);
  assert.equal(data.object, 'chat.completion');
  assert.equal(data.choices[0]?.message.role, 'assistant');
  assert.ok(data.usage.completion_tokens <= 6);
});

test('chat completion streamed through the helper', TIMEOUT, async () => {
  const chunks: ChatCompletionChunk[] = await collect(streamChatCompletion({
    client: afm,
    body: {
      messages: [user('Hello')], max_tokens: 6, seed: 3,
      stream_options: { include_usage: true },
    },
  }));
  assert.ok(chunks.length >= 3, `${chunks.length} chunks`);
  assert.equal(new Set(chunks.map((c) => c.id)).size, 1);
  assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
  assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
  const finishes = chunks.filter((c) => c.choices[0]?.finish_reason);
  assert.equal(finishes.length, 1);
  const usage = chunks[chunks.length - 1];
  assert.deepEqual(usage?.choices, []);
  assert.ok((usage?.usage?.completion_tokens ?? Infinity) <= 6);
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  assert.ok(text.length > 0);
});

test('text completion streamed through the helper', TIMEOUT, async () => {
  const chunks: CompletionChunk[] = await collect(streamCompletion({
    client: afm, body: { prompt: 'Once upon a time', max_tokens: 4, temperature: 0 },
  }));
  assert.ok(chunks.every((c) => c.object === 'text_completion'));
  assert.equal(chunks.filter((c) => c.choices[0]?.finish_reason).length, 1);
});

test('batch completions: chunks and batch.error events, by custom_id', TIMEOUT, async () => {
  const events = await collect(streamBatchCompletions({
    client: afm,
    body: {
      requests: [
        { custom_id: 'ok', body: { messages: [user('Hi')], max_tokens: 3 } },
        { custom_id: 'bad', body: { messages: [user('Hi')], max_tokens: 3, top_logprobs: 2 } },
      ],
    },
  }));
  const errors = events.filter((e): e is BatchCompletionError => e.object === 'batch.error');
  const chunks = events.filter((e): e is ChatCompletionChunk => e.object !== 'batch.error');
  assert.deepEqual(errors.map((e) => [e.custom_id, e.status_code, e.error.type]),
    [['bad', 400, 'invalid_request_error']]);
  assert.ok(chunks.length > 0 && chunks.every((c) => c.custom_id === 'ok'));
  assert.equal(chunks.filter((c) => c.choices[0]?.finish_reason).length, 1);
});

test('embeddings: float arrays and base64 float32', TIMEOUT, async () => {
  const floats = await unwrap(createEmbedding({
    client: afm, body: { input: ['a local server', 'un serveur local'] },
  }));
  assert.deepEqual(floats.data.map((e) => e.index), [0, 1]);
  for (const { embedding } of floats.data) {
    assert.ok(Array.isArray(embedding) && embedding.length === 384);
  }
  const packed = await unwrap(createEmbedding({
    client: afm, body: { input: 'short', dimensions: 8, encoding_format: 'base64' },
  }));
  const raw = packed.data[0]?.embedding;
  assert.equal(typeof raw, 'string');
  assert.equal(Buffer.from(raw as string, 'base64').length, 8 * 4);
});

test('tokenize and detokenize round trip', TIMEOUT, async () => {
  const tokens = await unwrap(tokenize({ client: afm, body: { text: 'Hello, world' } }));
  assert.ok(tokens.count > 0);
  assert.equal(tokens.count, tokens.tokens.length);
  const text = await unwrap(detokenize({ client: afm, body: { tokens: tokens.tokens } }));
  assert.equal(text.text, 'Hello, world');
});

test('file upload, batch create and retrieve until completed', TIMEOUT, async () => {
  const lines = [0, 1].map((i) => JSON.stringify({
    custom_id: `r${i}`, method: 'POST', url: '/v1/chat/completions',
    body: { messages: [user(`Hi ${i}`)], max_tokens: 3 },
  }) + '\n');
  const content = lines.join('');
  const upload = new File([content], 'ts.jsonl', { type: 'application/jsonl' });
  const stored = await unwrap(createFile({
    client: afm, body: { file: upload, purpose: 'batch' },
  }));
  assert.equal(stored.filename, 'ts.jsonl');
  assert.equal(stored.bytes, Buffer.byteLength(content));
  const fetched = await unwrap(retrieveFile({ client: afm, path: { file_id: stored.id } }));
  assert.equal(fetched.id, stored.id);
  const input = await unwrap(downloadFile({ client: afm, path: { file_id: stored.id } }));
  assert.equal(await input.text(), content);

  let batch: Batch = await unwrap(createBatch({
    client: afm,
    body: { input_file_id: stored.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
  }));
  const deadline = Date.now() + 120_000;
  while (batch.status !== 'completed' && batch.status !== 'failed') {
    assert.ok(Date.now() < deadline, `batch stuck in ${batch.status}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    batch = await unwrap(retrieveBatch({ client: afm, path: { batch_id: batch.id } }));
  }
  assert.equal(batch.status, 'completed', JSON.stringify(batch.errors));
  assert.equal(batch.request_counts?.completed, 2);
  assert.ok(batch.output_file_id);
  const output = await unwrap(downloadFile({
    client: afm, path: { file_id: batch.output_file_id },
  }));
  const results = (await output.text()).trim().split('\n').map(
    (line) => JSON.parse(line) as { custom_id: string });
  assert.deepEqual(results.map((r) => r.custom_id).sort(), ['r0', 'r1']);

  const deleted = await unwrap(deleteFile({ client: afm, path: { file_id: stored.id } }));
  assert.equal(deleted.deleted, true);
});

test('the error envelope surfaces as a typed AfmError', TIMEOUT, async () => {
  const missing = unwrap(retrieveFile({ client: afm, path: { file_id: 'file-nope' } }));
  await assert.rejects(missing, (err: unknown) => {
    assert.ok(err instanceof AfmError);
    assert.equal(err.status, 404);
    assert.equal(err.error.type, 'not_found_error');
    return true;
  });

  // A streamed request the server refuses: the helper throws before yielding any event.
  const refused = collect(streamChatCompletion({
    client: afm, body: { messages: [user('Hi')], max_tokens: 3, top_logprobs: 2 },
  }));
  await assert.rejects(refused, (err: unknown) => {
    assert.ok(err instanceof AfmError);
    assert.equal(err.status, 400);
    assert.equal(err.error.type, 'invalid_request_error');
    assert.equal(err.error.param, 'top_logprobs');
    return true;
  });
});
