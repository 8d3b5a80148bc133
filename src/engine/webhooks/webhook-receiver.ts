/**
 * A local HTTP receiver for deAPI webhook deliveries (`--webhook-listen host:port`).
 *
 * A delivery signed with the run's secret and verified says what the service says: the engine
 * takes a final one as the job's status, with no confirming status request. An unsigned
 * delivery (no secret: trusted networks only) is a hint that the engine confirms with one
 * status request. Polling stays on as the fallback, so a lost delivery never strands a paid job.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../common/index.js';
import { DeflowError } from '../../common/index.js';
import { type Correlation, correlationOfPath } from './webhook-correlation.js';
import { verifyWebhook } from './webhook-verify.js';

/** What a verified, first-seen delivery tells the engine. */
export interface WebhookHint {
  readonly requestId: string;
  /** `job.processing`, `job.completed`, `job.failed`. */
  readonly event: string;
  /** The job status the delivery claims (`processing`, `done`, `error`). */
  readonly status: string;
  readonly resultUrl?: string;
  readonly deliveryId: string | null;
  /** Signed with the receiver's secret and verified (not an unsigned delivery on a trusted network). */
  readonly signed: boolean;
  /** The delivery's whole `data` object (`error_code`, `retryable`, `processing_time_ms`, …). */
  readonly data: Readonly<Record<string, unknown>>;
  /** The submission its URL names (webhook-correlation.ts), when the token is deflow's own. */
  readonly correlation: Correlation | null;
}

export interface WebhookReceiverOptions {
  /** `host:port`, `[v6]:port` or `:port` (host 127.0.0.1); port 0 picks a free one. */
  readonly listen: string;
  /** See {@link verifyWebhook}: `null` accepts unsigned deliveries. */
  readonly secret: string | null;
  readonly clock: Clock;
  /**
   * Called once per verified delivery id, after the 200 is sent. Must not throw (errors are
   * swallowed to keep the server up).
   */
  readonly onHint: (hint: WebhookHint) => void;
  /** @default 300 */
  readonly toleranceS?: number;
  /**
   * Delivery ids remembered for dedupe; the oldest are forgotten first. The service retries a
   * delivery for about 23 h, so this bounds memory, not correctness (hints are confirmed).
   * @default 10000
   */
  readonly maxRemembered?: number;
  /** @default 1 MiB */
  readonly maxBodyBytes?: number;
  /** The state folder's correlation key: a delivery whose URL carries a valid token names its submission. */
  readonly correlationKey?: Buffer;
  /**
   * The secret that signs deliveries for a correlated submission (its run's secret, so a later
   * session verifies an earlier run's deliveries); undefined falls back to `secret`.
   */
  readonly secretFor?: (correlation: Correlation) => string | undefined;
  /**
   * Called for a verified, first-seen correlated delivery before it is answered: the delivery
   * is answered 500 (and the service retries it) when this throws, so it can make the delivery
   * durable first.
   */
  readonly onCorrelated?: (hint: WebhookHint) => void;
}

export interface WebhookReceiver {
  /** `http://host:port/`: where the receiver listens (the public `--webhook-url` may differ). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Starts the receiver. Answers 401 when the signature or timestamp fails verification, 400 for
 * a signed body that is not a job event, 405/413 for wrong method or size, 200 otherwise,
 * including replays of a delivery already seen (they produce no second hint).
 * @throws DeflowError `E_USAGE_WEBHOOK_LISTEN` for a bad address
 */
export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const { host, port } = parseListen(options.listen);
  const seen = new Set<string>();
  const maxRemembered = options.maxRemembered ?? 10_000;
  const maxBodyBytes = options.maxBodyBytes ?? 1 << 20;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') return reply(res, 405, { error: 'method-not-allowed' });
    const rawBody = await readBody(req, maxBodyBytes);
    if (rawBody === undefined) return reply(res, 413, { error: 'body-too-large' });
    const correlation = options.correlationKey === undefined ? null : correlationOfPath(options.correlationKey, req.url);
    const secret = (correlation === null ? undefined : options.secretFor?.(correlation)) ?? options.secret;
    const verdict = verifyWebhook({ rawBody, headers: req.headers, secret, now: options.clock.now(), toleranceS: options.toleranceS ?? 300 });
    if (!verdict.ok) return reply(res, verdict.reason === 'malformed' ? 400 : 401, { error: verdict.reason });
    const { event } = verdict;
    // Remember only verified deliveries, so a forgery cannot suppress the real one.
    if (event.deliveryId !== null) {
      if (seen.has(event.deliveryId)) return reply(res, 200, { ok: true, duplicate: true });
      seen.add(event.deliveryId);
      if (seen.size > maxRemembered) seen.delete(seen.values().next().value as string);
    }
    const hint: WebhookHint = {
      requestId: event.requestId,
      event: event.event,
      status: event.status,
      deliveryId: event.deliveryId,
      ...(event.resultUrl === null ? {} : { resultUrl: event.resultUrl }),
      signed: secret !== null,
      data: event.data,
      correlation,
    };
    if (correlation !== null && options.onCorrelated !== undefined) {
      try {
        options.onCorrelated(hint);
      } catch {
        // Not kept: the service delivers it again.
        if (event.deliveryId !== null) seen.delete(event.deliveryId);
        return reply(res, 500, { error: 'not-kept' });
      }
    }
    reply(res, 200, { ok: true });
    try {
      options.onHint(hint);
    } catch {
      // A hint is advisory; the poller covers anything the handler dropped.
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 400, { error: 'bad-request' });
      else res.destroy();
    });
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    throw new DeflowError('E_USAGE_WEBHOOK_LISTEN', `--webhook-listen ${options.listen}: cannot listen there (${error.code ?? error.message})`, {
      cause: error,
      details: { listen: options.listen },
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(listen.trim());
  const port = Number(match?.[3]);
  if (match === null || port > 65535) {
    throw new DeflowError('E_USAGE_WEBHOOK_LISTEN', `--webhook-listen ${JSON.stringify(listen)}: expected host:port, [ipv6]:port or :port`, {
      details: { listen },
    });
  }
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
