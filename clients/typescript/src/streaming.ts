/**
 * Server-sent events and errors: the one hand-written part of this client.
 *
 * Everything under `./generated/` comes from `openapi/afm.yaml` (tools/gen_ts_client.py). The
 * generator types JSON bodies; OpenAPI 3.0 cannot type the JSON inside an SSE `data:` line, so
 * the contract names each stream's event schema in its `x-afm-event-data` extension, and this
 * module turns a streamed response into those generated types. Each streaming operation is one
 * function here: it calls the generated SDK function with `parseAs: "stream"` and decodes the
 * body. A new surface is one more function of the same shape.
 */

import { client } from './generated/client.gen.js';
import { createChatCompletion, createCompletion } from './generated/index.js';
import type {
  BatchCompletionError,
  ChatCompletionChunk,
  CompletionChunk,
  CreateBatchCompletionsData,
  CreateChatCompletionData,
  CreateCompletionData,
  ErrorDetail,
  ErrorResponse,
  Options,
} from './generated/index.js';

/** An AFM error envelope (`{"error": {...}}`) with its HTTP status, as a thrown `Error`. */
export class AfmError extends Error {
  readonly status: number;
  readonly error: ErrorDetail;

  constructor(status: number, error: ErrorDetail) {
    super(`${status} ${error.type}: ${error.message}`);
    this.name = 'AfmError';
    this.status = status;
    this.error = error;
  }

  /** The error for a failed response whose body may or may not be the documented envelope. */
  static from(status: number, body: unknown): AfmError {
    if (isErrorResponse(body)) {
      return new AfmError(status, body.error);
    }
    const message = typeof body === 'string' ? body : JSON.stringify(body ?? null);
    return new AfmError(status, { message, type: 'unknown_error' });
  }
}

/** Whether `body` has the shape of the contract's `ErrorResponse`. */
export function isErrorResponse(body: unknown): body is ErrorResponse {
  if (typeof body !== 'object' || body === null || !('error' in body)) {
    return false;
  }
  const error: unknown = body.error;
  return typeof error === 'object' && error !== null && 'message' in error && 'type' in error &&
    typeof error.message === 'string' && typeof error.type === 'string';
}

/** What every generated SDK function resolves to (its default `responseStyle: "fields"`). */
interface CallResult<TData> {
  data?: TData;
  error?: unknown;
  response: Response;
}

/**
 * The data of a generated call, or an `AfmError` carrying the error envelope: for callers who
 * prefer exceptions to the generated `{ data, error }` result.
 */
export async function unwrap<TData>(call: Promise<CallResult<TData>>): Promise<TData> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined || data === undefined) {
    throw AfmError.from(response.status, error);
  }
  return data;
}

/** One server-sent event: its `event:` name, if any, and its `data:` lines joined by "\n". */
export interface ServerSentEvent {
  event?: string;
  data: string;
}

/** The events of an SSE body, parsed per the WHATWG rules (comments and `id:` are skipped). */
export async function* parseEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  const line = (text: string): ServerSentEvent | undefined => {
    if (text === '') {
      const done = data.length > 0 ? { event, data: data.join('\n') } : undefined;
      event = undefined;
      data = [];
      return done;
    }
    if (text.startsWith(':')) {
      return undefined;
    }
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    if (field === 'data') {
      data.push(value);
    } else if (field === 'event') {
      event = value;
    }
    return undefined;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // Complete lines only: until the end, a trailing "\r" may be the first half of "\r\n".
      const lines = buffer.split(done ? /\r\n|\r|\n/ : /\r\n|\r(?!$)|\n/);
      buffer = done ? '' : (lines.pop() ?? '');
      if (done) {
        lines.push('');
      }
      for (const text of lines) {
        const complete = line(text);
        if (complete !== undefined) {
          yield complete;
        }
      }
      if (done) {
        return;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The JSON events of a streamed call, typed as `TEvent`, up to `data: [DONE]` (or the end of
 * the stream). A non-2xx response throws `AfmError` before any event.
 */
export async function* decodeEvents<TEvent>(
  call: Promise<CallResult<unknown>>,
): AsyncGenerator<TEvent> {
  const { error, response } = await call;
  if (!response.ok) {
    throw AfmError.from(response.status, error);
  }
  if (response.body === null) {
    throw AfmError.from(response.status, 'a streamed response without a body');
  }
  for await (const { data } of parseEvents(response.body)) {
    if (data === '[DONE]') {
      return;
    }
    yield JSON.parse(data) as TEvent;
  }
}

/** Options of a streaming operation: the generated ones, less those the helper sets. */
export type StreamCallOptions<TData extends { url: string }> = Omit<
  Options<TData, false>,
  'parseAs' | 'responseStyle' | 'throwOnError'
>;

const STREAMED = { parseAs: 'stream', responseStyle: 'fields', throwOnError: false } as const;

/** `POST /v1/chat/completions` with `stream: true`: its `chat.completion.chunk` events. */
export function streamChatCompletion(
  options: StreamCallOptions<CreateChatCompletionData>,
): AsyncGenerator<ChatCompletionChunk> {
  return decodeEvents(createChatCompletion({
    ...options, ...STREAMED, body: { ...options.body, stream: true },
  }));
}

/** `POST /v1/completions` with `stream: true`: its `text_completion` events. */
export function streamCompletion(
  options: StreamCallOptions<CreateCompletionData>,
): AsyncGenerator<CompletionChunk> {
  return decodeEvents(createCompletion({
    ...options, ...STREAMED, body: { ...options.body, stream: true },
  }));
}

/**
 * `POST /v1/batch/completions` (always streamed): the requests' chunks, each carrying its
 * `custom_id`, and a `batch.error` event for each request that failed.
 *
 * The generated `createBatchCompletions` (the operation has no JSON response) goes through the
 * generator's own SSE client, which by default retries a refused or dropped POST forever
 * (running the batch again) and reports errors only to a callback, without the envelope; so
 * this calls the generated fetch client directly, with the URL typed by the generated
 * request type.
 */
export function streamBatchCompletions(
  options: StreamCallOptions<CreateBatchCompletionsData>,
): AsyncGenerator<ChatCompletionChunk | BatchCompletionError> {
  const url: CreateBatchCompletionsData['url'] = '/v1/batch/completions';
  return decodeEvents((options.client ?? client).post({
    ...options,
    ...STREAMED,
    // the contract's security schemes, as the generated functions send them: the client's
    // `auth` (an API key) goes as a bearer token and as `x-api-key`
    security: [{ scheme: 'bearer', type: 'http' }, { name: 'x-api-key', type: 'apiKey' }],
    url,
    headers: { 'Content-Type': 'application/json', ...options.headers },
  }));
}
