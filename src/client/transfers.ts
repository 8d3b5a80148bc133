import { basename } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Dispatcher } from 'undici';
import type { Clock } from '../common/index.js';
import { isDeflowError, redactUrl, writeFileAtomically } from '../common/index.js';
import type { ResultKind } from '../service/index.js';
import { TransferError } from './errors/transfer-error.js';
import { request } from './undici-core.js';
import { UnsafeUrlError } from './errors/unsafe-url-error.js';
import type { StreamRef } from './field-values.js';
import { checkResultUrl, sameOrigin } from './url-safety.js';

/** How long a transfer may take, and how large a result may be (client options `transfer`). */
export interface TransferLimits {
  /** No answer headers within this many real ms: the transfer fails. @default 30000 */
  readonly headersTimeoutMs: number;
  /** No body bytes for this many real ms (a stalled server): the transfer fails. @default 30000 */
  readonly stallTimeoutMs: number;
  /** The whole transfer, headers to last byte, on the client's clock (a trickling server). @default 1800000 */
  readonly deadlineMs: number;
  /** Largest result of each kind, in bytes. */
  readonly maxBytes: Readonly<Record<ResultKind, number>>;
}

const MIB = 1024 * 1024;

export const DEFAULT_TRANSFER_LIMITS: TransferLimits = {
  headersTimeoutMs: 30_000,
  stallTimeoutMs: 30_000,
  deadlineMs: 30 * 60_000,
  maxBytes: { text: 10 * MIB, json: 10 * MIB, vectors: 10 * MIB, image: 50 * MIB, audio: 200 * MIB, video: 1024 * MIB },
};

/** What transfers need from the client. */
export interface TransferContext {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly dispatcher: Dispatcher;
  readonly userAgent: string;
  readonly clock?: Clock;
  readonly limits?: TransferLimits;
}

/** Options of a result download. */
export interface TransferOptions {
  readonly signal?: AbortSignal | undefined;
  /** Refuse results larger than this many bytes. @default the cap of `kind`, else unlimited */
  readonly maxBytes?: number | undefined;
  /** The result's kind: picks its size cap from the limits. */
  readonly kind?: ResultKind | undefined;
  /** The whole transfer must end within this many ms on the client's clock (the step's `timeout` left). @default the limits' deadline */
  readonly deadlineMs?: number | undefined;
  /** What that deadline is, named in its error message. @default 'deadline' */
  readonly deadlineLabel?: string | undefined;
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
 * followed, each checked again. The transfer ends, always: no headers within
 * `headersTimeoutMs`, no bytes for `stallTimeoutMs`, or not finished by the deadline is a
 * TransferError, and so is a body that ends short of (or runs past) its `Content-Length` or
 * the size cap. The returned stream has its error listeners before any byte flows: a body
 * cut at any point errors the stream (with a TransferError), never the process.
 */
export async function openResult(url: string, context: TransferContext, options: TransferOptions = {}): Promise<OpenedResult> {
  const limits = context.limits ?? DEFAULT_TRANSFER_LIMITS;
  const maxBytes = options.maxBytes ?? (options.kind === undefined ? undefined : limits.maxBytes[options.kind]);
  const deadline = startDeadline(context.clock, options.deadlineMs ?? limits.deadlineMs, options.signal, options.deadlineLabel ?? 'deadline');
  let target = checkResultUrl(url);
  try {
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { 'user-agent': context.userAgent };
      if (sameOrigin(target, context.baseUrl)) headers.authorization = `Bearer ${context.apiKey}`;
      let response: Dispatcher.ResponseData;
      try {
        response = await request(target, {
          dispatcher: context.dispatcher,
          method: 'GET',
          headers,
          headersTimeout: limits.headersTimeoutMs,
          bodyTimeout: limits.stallTimeoutMs,
          signal: deadline.signal,
        });
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        throw asTransferError(redactUrl(target.href), deadline.why(error, limits));
      }
      const body = response.body as unknown as Readable;
      // Listened to at once: an error before anyone reads (a cut right after the headers) is caught here.
      let bodyError: unknown;
      body.on('error', (error) => {
        bodyError ??= error;
      });
      const { statusCode } = response;
      if (statusCode >= 300 && statusCode < 400 && response.headers.location) {
        body.destroy();
        if (hop >= MAX_REDIRECTS) throw new UnsafeUrlError(redactUrl(target.href), `more than ${MAX_REDIRECTS} redirects`);
        target = checkResultUrl(new URL(String(response.headers.location), target).href);
        continue;
      }
      if (statusCode < 200 || statusCode >= 300) {
        body.destroy();
        throw new TransferError({ url: redactUrl(target.href), status: statusCode, message: `download answered ${statusCode}` });
      }
      const declared = Number(response.headers['content-length']);
      const size = Number.isFinite(declared) && declared >= 0 ? declared : undefined;
      if (size !== undefined && maxBytes !== undefined && size > maxBytes) {
        body.destroy();
        throw new TransferError({ url: redactUrl(target.href), message: `result is ${size} bytes, more than the ${maxBytes} allowed${capHint(options.kind)}` });
      }
      const shown = redactUrl(target.href);
      const stream = checkLength(shown, size, maxBytes, options.kind);
      stream.on('error', () => {}); // readers see the error through the stream's state
      stream.once('close', () => {
        deadline.stop();
        if (!body.destroyed) body.destroy();
      });
      const fail = (error: unknown) => {
        if (!stream.destroyed) stream.destroy(asTransferError(shown, deadline.why(error, limits)));
      };
      if (bodyError !== undefined) fail(bodyError);
      body.on('error', fail);
      body.on('aborted', () => fail(new Error('the connection was closed mid-body')));
      body.pipe(stream);
      const contentType = response.headers['content-type'];
      return {
        stream,
        size,
        contentType: typeof contentType === 'string' ? contentType : undefined,
        filename: safeFilename(target.pathname),
      };
    }
  } catch (error) {
    deadline.stop();
    throw error;
  }
}

/** The overall deadline of one transfer, on the client's clock, plus the caller's signal. */
function startDeadline(clock: Clock | undefined, ms: number, outer: AbortSignal | undefined, label: string) {
  const controller = new AbortController();
  let expired = false;
  const timer = new AbortController();
  const onOuter = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onOuter, { once: true });
  if (Number.isFinite(ms) && ms > 0) {
    const sleep = clock ? clock.sleep(ms, timer.signal) : new Promise<void>((resolve, reject) => {
      const handle = setTimeout(resolve, ms);
      timer.signal.addEventListener('abort', () => {
        clearTimeout(handle);
        reject(timer.signal.reason);
      }, { once: true });
    });
    sleep.then(
      () => {
        expired = true;
        controller.abort(new Error(`the transfer did not finish within ${formatMs(ms)}`));
      },
      () => {},
    );
  }
  return {
    signal: controller.signal,
    stop() {
      timer.abort();
      outer?.removeEventListener('abort', onOuter);
    },
    /** What an error means: the deadline, a timeout, or itself. */
    why(error: unknown, limits: TransferLimits): unknown {
      if (expired) return new Error(`the transfer did not finish within ${formatMs(ms)} (${label})`);
      const code = (error as { code?: unknown } | null)?.code;
      if (code === 'UND_ERR_HEADERS_TIMEOUT') return new Error(`no answer headers within ${formatMs(limits.headersTimeoutMs)}`);
      if (code === 'UND_ERR_BODY_TIMEOUT') return new Error(`the transfer stalled: no bytes for ${formatMs(limits.stallTimeoutMs)}`);
      return error;
    },
  };
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms)} ms`;
}

function capHint(kind: ResultKind | undefined): string {
  return kind === undefined ? '' : ` for a ${kind} result (client option transfer.maxBytes.${kind})`;
}

/** The last path segment, decoded when it can be (a stray `%` is kept as it is). */
function safeFilename(pathname: string): string {
  const raw = basename(pathname);
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    name = raw;
  }
  name = name.replace(/[/\\\u0000]/g, '_');
  return name === '' || name === '.' || name === '..' ? 'result' : name;
}

/**
 * Downloads a result to `destination` with common's atomic writer; the file exists only when
 * complete (a fresh temporary name, never through a symbolic link planted there).
 */
export async function downloadResult(
  url: string,
  destination: string,
  context: TransferContext,
  options: TransferOptions = {},
): Promise<{ path: string; bytes: number; contentType: string | undefined }> {
  const opened = await openResult(url, context, options);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  try {
    await writeFileAtomically(destination, async (handle) => {
      const sink = async (chunks: AsyncIterable<Buffer>): Promise<void> => {
        for await (const chunk of chunks) await handle.write(chunk);
      };
      await pipeline(opened.stream, counter, sink, options.signal ? { signal: options.signal } : {});
    });
  } catch (error) {
    opened.stream.destroy();
    if (options.signal?.aborted) throw options.signal.reason;
    // A full disk, a read-only folder or a target that is not a file: the writer named it.
    if (isDeflowError(error) && error.code !== 'E_INTERNAL') throw error;
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

function checkLength(url: string, size: number | undefined, maxBytes: number | undefined, kind: ResultKind | undefined): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (size !== undefined && seen > size) callback(new TransferError({ url, message: `result longer than its Content-Length of ${size} bytes` }));
      else if (maxBytes !== undefined && seen > maxBytes) callback(new TransferError({ url, message: `result longer than the ${maxBytes} bytes allowed${capHint(kind)}` }));
      else callback(null, chunk);
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

