import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Dispatcher, request } from 'undici';
import { redactUrl } from '../common/index.js';
import { TransferError } from './errors/transfer-error.js';
import { UnsafeUrlError } from './errors/unsafe-url-error.js';
import type { StreamRef } from './field-values.js';
import { checkResultUrl, sameOrigin } from './url-safety.js';

/** What transfers need from the client. */
export interface TransferContext {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly dispatcher: Dispatcher;
  readonly userAgent: string;
}

/** Options of a result download. */
export interface TransferOptions {
  readonly signal?: AbortSignal | undefined;
  /** Refuse results larger than this many bytes. @default unlimited */
  readonly maxBytes?: number | undefined;
}

/** An opened result: a byte stream checked against its declared length as it flows. */
export interface OpenedResult {
  readonly stream: Readable;
  /** `Content-Length`, when the server sent one. */
  readonly size: number | undefined;
  readonly contentType: string | undefined;
  /** The last path segment of the final URL (no query). */
  readonly filename: string;
}

const MAX_REDIRECTS = 3;

/**
 * Opens `url` for reading. The API key goes only to the base URL's own origin, never to a
 * storage host; `https:` is required except on loopback; at most three redirects are
 * followed, each checked again. The stream errors with a TransferError if it ends short of
 * (or runs past) its `Content-Length` or `maxBytes`.
 */
export async function openResult(url: string, context: TransferContext, options: TransferOptions = {}): Promise<OpenedResult> {
  let target = checkResultUrl(url);
  for (let hop = 0; ; hop++) {
    const headers: Record<string, string> = { 'user-agent': context.userAgent };
    if (sameOrigin(target, context.baseUrl)) headers.authorization = `Bearer ${context.apiKey}`;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(target, { dispatcher: context.dispatcher, method: 'GET', headers, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new TransferError({ url: redactUrl(target.href), message: `download failed: ${describe(error)}` }, { cause: error });
    }
    const { statusCode } = response;
    if (statusCode >= 300 && statusCode < 400 && response.headers.location) {
      response.body.resume();
      if (hop >= MAX_REDIRECTS) throw new UnsafeUrlError(redactUrl(target.href), `more than ${MAX_REDIRECTS} redirects`);
      target = checkResultUrl(new URL(String(response.headers.location), target).href);
      continue;
    }
    if (statusCode < 200 || statusCode >= 300) {
      response.body.resume();
      throw new TransferError({ url: redactUrl(target.href), status: statusCode, message: `download answered ${statusCode}` });
    }
    const declared = Number(response.headers['content-length']);
    const size = Number.isFinite(declared) && declared >= 0 ? declared : undefined;
    if (size !== undefined && options.maxBytes !== undefined && size > options.maxBytes) {
      response.body.destroy();
      throw new TransferError({ url: redactUrl(target.href), message: `result is ${size} bytes, more than the ${options.maxBytes} allowed` });
    }
    const shown = redactUrl(target.href);
    const stream = (response.body as unknown as Readable).pipe(checkLength(shown, size, options.maxBytes));
    (response.body as unknown as Readable).on('error', (error) => stream.destroy(asTransferError(shown, error)));
    const contentType = response.headers['content-type'];
    return {
      stream,
      size,
      contentType: typeof contentType === 'string' ? contentType : undefined,
      filename: decodeURIComponent(basename(target.pathname)) || 'result',
    };
  }
}

/** Downloads a result to `destination` through `<destination>.part`; the file exists only when complete. */
export async function downloadResult(
  url: string,
  destination: string,
  context: TransferContext,
  options: TransferOptions = {},
): Promise<{ path: string; bytes: number; contentType: string | undefined }> {
  const partial = `${destination}.part`;
  const opened = await openResult(url, context, options);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  try {
    await pipeline(opened.stream, counter, createWriteStream(partial), options.signal ? { signal: options.signal } : {});
    await rename(partial, destination);
  } catch (error) {
    await rm(partial, { force: true });
    if (options.signal?.aborted) throw options.signal.reason;
    throw asTransferError(redactUrl(url), error);
  }
  return { path: destination, bytes, contentType: opened.contentType };
}

/**
 * A result as an upload source for the next job: the first open learns the size, and every
 * later call of `stream()` (a retried upload) opens the URL again.
 */
export async function createResultSource(url: string, context: TransferContext, options: TransferOptions = {}): Promise<StreamRef> {
  const first = await openResult(url, context, options);
  if (first.size === undefined) {
    first.stream.destroy();
    throw new TransferError({ url: redactUrl(url), message: 'the result has no Content-Length, so it cannot be streamed into an upload' });
  }
  let unused: Readable | undefined = first.stream;
  return {
    size: first.size,
    filename: first.filename,
    ...(first.contentType ? { contentType: first.contentType } : {}),
    stream: () => {
      const ready = unused;
      unused = undefined;
      if (ready) return ready;
      return (async function* reopen() {
        const again = await openResult(url, context, options);
        yield* again.stream as AsyncIterable<Uint8Array>;
      })();
    },
  };
}

function checkLength(url: string, size: number | undefined, maxBytes: number | undefined): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if ((size !== undefined && seen > size) || (maxBytes !== undefined && seen > maxBytes)) {
        callback(new TransferError({ url, message: `result longer than ${size ?? maxBytes} bytes` }));
      } else callback(null, chunk);
    },
    flush(callback) {
      if (size !== undefined && seen !== size) callback(new TransferError({ url, message: `result cut short: ${seen} of ${size} bytes` }));
      else callback();
    },
  });
}

function asTransferError(url: string, error: unknown): Error {
  if (error instanceof TransferError || error instanceof UnsafeUrlError) return error;
  return new TransferError({ url, message: `download failed: ${describe(error)}` }, { cause: error });
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

