/**
 * Webhooks as hints (`--webhook-url URL --webhook-listen host:port`): every submission asks
 * the service to call `URL` when its job changes, signed with the run's own secret; the
 * local receiver verifies each delivery and, for a job that finished, cuts that job's poll
 * wait short. The poller then makes its one confirming status request and acts on what the
 * service says, never on what the delivery says. Polling stays on throughout, so a lost or
 * forged delivery costs at most one extra status request and never strands a paid job.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../common/index.js';
import { DeflowError } from '../../common/index.js';
import { fsyncDir, writeAll } from '../../common/index.js';
import { TERMINAL_JOB_STATUSES } from '../../service/index.js';
import { startWebhookReceiver, type WebhookHint, type WebhookReceiver } from './webhook-receiver.js';

/** Job statuses whose delivery is worth a status request now (`processing` is not). */
const FINAL_STATUSES: ReadonlySet<string> = new Set(TERMINAL_JOB_STATUSES);

/** Waits of jobs in flight that a hint can cut short. */
export class JobWakeups {
  private readonly waiting = new Map<string, AbortController>();
  /** Hints that came while their job was not waiting (a poll in flight): its next wait is skipped. */
  private readonly early = new Set<string>();
  /** Waits cut short by a hint. */
  woken = 0;

  constructor(private readonly maxEarly = 10_000) {}

  /** Wakes the wait of `requestId`, or makes its next wait return at once. */
  wake(requestId: string): void {
    const waiter = this.waiting.get(requestId);
    if (waiter !== undefined) {
      waiter.abort();
      return;
    }
    this.early.add(requestId);
    // Hints for jobs this run does not poll (an earlier run's, a forgery) must not pile up.
    if (this.early.size > this.maxEarly) this.early.delete(this.early.values().next().value as string);
  }

  /**
   * Sleeps `ms` on `clock`, or less if a hint for `requestId` arrives: resolves with undefined
   * when the time was slept, null when a hint cut it short. Rejects when `signal` aborts.
   */
  async sleep(requestId: string, ms: number, clock: Clock, signal?: AbortSignal): Promise<null | undefined> {
    signal?.throwIfAborted();
    if (this.early.delete(requestId)) {
      this.woken++;
      return null;
    }
    const hint = new AbortController();
    this.waiting.set(requestId, hint);
    try {
      await clock.sleep(ms, signal === undefined ? hint.signal : AbortSignal.any([signal, hint.signal]));
      return undefined;
    } catch (error) {
      if (!hint.signal.aborted || signal?.aborted) throw error;
      this.woken++;
      return null;
    } finally {
      if (this.waiting.get(requestId) === hint) this.waiting.delete(requestId);
    }
  }
}

export interface WebhookHintsOptions {
  /** `--webhook-url`: the public URL the service delivers to (it reaches the receiver). */
  readonly url: string;
  /** `--webhook-listen`: where the local receiver listens. */
  readonly listen: string;
  /** The run's signing secret ({@link readRunWebhookSecret}). */
  readonly secret: string;
  readonly clock: Clock;
  /** Every verified, first-seen delivery (for logs and tests). */
  readonly onHint?: (hint: WebhookHint) => void;
}

export interface WebhookHints {
  /** Fields added to every submission. */
  readonly fields: { readonly webhook_url: string; readonly webhook_secret: string };
  readonly wakeups: JobWakeups;
  readonly receiver: WebhookReceiver;
  /** Verified deliveries received. */
  readonly received: () => number;
  close(): Promise<void>;
}

/** Starts the receiver and returns the submission fields and the wakeups the poller waits on. */
export async function startWebhookHints(options: WebhookHintsOptions): Promise<WebhookHints> {
  assertWebhookUrl(options.url);
  const wakeups = new JobWakeups();
  let received = 0;
  const receiver = await startWebhookReceiver({
    listen: options.listen,
    secret: options.secret,
    clock: options.clock,
    onHint: (hint) => {
      received++;
      options.onHint?.(hint);
      if (FINAL_STATUSES.has(hint.status)) wakeups.wake(hint.requestId);
    },
  });
  return {
    fields: { webhook_url: options.url, webhook_secret: options.secret },
    wakeups,
    receiver,
    received: () => received,
    close: () => receiver.close(),
  };
}

const SECRET_FILE = 'webhook-secret';

/**
 * The run's webhook secret, made on first use and kept in the run folder (mode 0600), so a
 * resumed run still accepts deliveries for jobs an earlier session submitted.
 */
export function readRunWebhookSecret(runDir: string): string {
  const path = join(runDir, SECRET_FILE);
  try {
    const secret = readFileSync(path, 'utf8').trim();
    if (secret.length >= 32) return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // 32 random bytes: 43 characters, within the service's 32 to 255.
  const secret = randomBytes(32).toString('base64url');
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeAll(fd, Buffer.from(`${secret}\n`));
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(runDir);
  return secret;
}

function assertWebhookUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(url, 'not a URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw usageError(url, `scheme ${parsed.protocol}`);
  if (url.length > 2048) throw usageError(url, `${url.length} characters (at most 2048)`);
}

function usageError(url: string, found: string): DeflowError {
  return new DeflowError('E_USAGE_WEBHOOK_URL', `--webhook-url ${JSON.stringify(url)}: expected an https:// URL that reaches --webhook-listen, got ${found}`, {
    details: { url },
  });
}
