import type { Dispatcher } from 'undici';
import { Agent, request } from './undici-core.js';
import type { EncodedBody } from './request-body.js';
import { NetworkError } from './errors/network-error.js';
import type { ResponseHeaders } from './rate-limit-snapshot.js';

/** One HTTP exchange with the service's API (not result downloads, see transfers.ts). */
export interface TransportRequest {
  readonly method: 'GET' | 'POST';
  /** Path under the base URL, without query. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number>> | undefined;
  readonly body?: EncodedBody | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A response, its JSON body parsed (or the text when it is not JSON). */
export interface TransportResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly body: unknown;
}

/** Options of {@link HttpTransport}. */
export interface HttpTransportOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly userAgent: string;
  /** JSON answers larger than this are refused (a defence against a runaway body). */
  readonly maxResponseBytes: number;
  /** Sockets per origin. */
  readonly connections: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly connectTimeoutMs: number;
  /** Real-time limit on a whole exchange (upload, headers and answer body). */
  readonly requestDeadlineMs: number;
  /** Use this dispatcher instead of a private keep-alive Agent (it is then not closed by `close()`). */
  readonly dispatcher?: Dispatcher | undefined;
  /** Masks secrets in the text of network errors. */
  readonly redact: (text: string) => string;
}

/** Low-level codes meaning the connection was never made, so the service saw nothing. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * undici `request()` over one keep-alive Agent (fetch costs several times the CPU per
 * request). It adds the credentials and `Accept`, reads the answer with a size cap, and turns
 * every transport failure into a {@link NetworkError} that says whether the service may have
 * seen the request. It never retries: that is retry-policy.ts's job alone.
 */
export class HttpTransport {
  readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly origin: string;
  private readonly basePath: string;

  constructor(private readonly options: HttpTransportOptions) {
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        connections: options.connections,
        keepAliveTimeout: 10_000,
        headersTimeout: options.headersTimeoutMs,
        bodyTimeout: options.bodyTimeoutMs,
        connect: { timeout: options.connectTimeoutMs },
      });
  }

  /** Sends one request; resolves with any HTTP status, rejects only when there was no answer. */
  async send(req: TransportRequest): Promise<TransportResponse> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    if (req.body?.contentType) headers['content-type'] = req.body.contentType;
    if (req.body?.contentLength !== undefined) headers['content-length'] = String(req.body.contentLength);
    // undici's headers and body timeouts are idle timeouts: a byte every few seconds defeats
    // them, so the whole exchange also has a deadline (the body stream is aborted with it).
    const deadline = AbortSignal.timeout(this.options.requestDeadlineMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    const failed = (error: unknown, answered = false): unknown =>
      deadline.aborted && !req.signal?.aborted
        ? deadlineError(req, this.options.requestDeadlineMs, error)
        : toNetworkError(error, req, this.options.redact, answered);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${this.origin}${this.basePath}${req.path}`, {
        dispatcher: this.dispatcher,
        method: req.method,
        headers,
        ...(req.query ? { query: req.query } : {}),
        body: req.body?.body ?? null,
        signal,
      });
    } catch (error) {
      throw failed(error);
    }
    try {
      const body = await readJsonBody(response, this.options.maxResponseBytes);
      return { status: response.statusCode, headers: response.headers, body };
    } catch (error) {
      throw failed(error, true);
    }
  }

  /** Closes the private Agent's sockets. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

async function readJsonBody(response: Dispatcher.ResponseData, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      response.body.destroy();
      throw Object.assign(new Error(`answer larger than ${maxBytes} bytes`), { code: 'E_RESPONSE_TOO_LARGE' });
    }
    chunks.push(chunk as Buffer);
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared !== size) {
    throw Object.assign(new Error(`answer cut short: ${size} of ${declared} bytes`), { code: 'E_TRUNCATED' });
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return null;
  const type = String(response.headers['content-type'] ?? '');
  const looksJson = type.includes('json') || /^\s*[{[]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text);
  } catch (cause) {
    // A JSON answer that does not parse was almost always cut short on the wire.
    throw Object.assign(new Error('answer is not valid JSON (cut short?)'), { code: 'E_TRUNCATED', cause });
  }
}

function toNetworkError(error: unknown, req: TransportRequest, redact: (text: string) => string, answered = false): unknown {
  if (req.signal?.aborted) return req.signal.reason;
  if (error instanceof NetworkError) return error;
  const code = findCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return new NetworkError(
    {
      method: req.method,
      path: req.path,
      reachedService: answered || code === undefined || !NOT_CONNECTED.has(code),
      networkCode: code,
      reason: redact(code ? `${code}: ${message}` : message),
    },
    { cause: error },
  );
}

/** The exchange outlived its deadline: the request was sent, so the service may have acted on it. */
function deadlineError(req: TransportRequest, deadlineMs: number, cause: unknown): NetworkError {
  return new NetworkError(
    {
      method: req.method,
      path: req.path,
      reachedService: true,
      networkCode: 'E_REQUEST_DEADLINE',
      reason: `no complete answer within the request deadline of ${deadlineMs} ms`,
    },
    { cause },
  );
}

/** The most specific low-level code: undici's generic socket error often wraps a system one. */
function findCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: unknown[]; cause?: unknown } | null;
  if (!e || typeof e !== 'object') return undefined;
  if (typeof e.code === 'string' && e.code !== 'UND_ERR_SOCKET' && e.code !== 'ERR_INVALID_ARG_TYPE') return e.code;
  const nested = (Array.isArray(e.errors) ? e.errors[0] : undefined) ?? e.cause;
  return findCode(nested) ?? (typeof e.code === 'string' ? e.code : undefined);
}
