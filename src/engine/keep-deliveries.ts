/**
 * A receiver that answers, at a stable public `--webhook-url`, the deliveries for jobs of runs
 * of one state folder whose sessions have ended (`deflow worker --webhook-url`): each verified
 * with its run's own secret (an unknown run's delivery fails verification: 401), and each that
 * names a submission of the folder kept in `<state>/adoptions.jsonl` before it is answered, so
 * that the next session of its run adopts the item if its submission's answer was lost
 * (docs/running.md, "Adopted items"). Answered deliveries never count toward the account's
 * breaker.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../common/index.js';
import { runPaths } from './journal/index.js';
import { findRunWebhookSecret, startWebhookHints, type WebhookHint } from './webhooks/index.js';

export interface KeepDeliveriesOptions {
  /** The public URL (a tunnel or reverse proxy to `listen`), as earlier sessions were given it. */
  readonly url: string;
  /** host:port the receiver listens on. */
  readonly listen: string;
  /** The state folder whose runs' deliveries it answers. */
  readonly stateDir: string;
  readonly clock: Clock;
  /** Every verified delivery. */
  readonly onHint?: (hint: WebhookHint) => void;
}

export interface DeliveryKeeper {
  /** Verified deliveries answered. */
  received(): number;
  /** The start-up self-check (a signed test delivery through the public URL): null when it came, else why not. */
  selfCheck(timeoutMs?: number): Promise<string | null>;
  close(): Promise<void>;
}

/** The webhook secret of run `runId` of the folder, when it has one (a token names only valid ids; this never throws). */
function secretOf(stateDir: string, runId: string): string | undefined {
  try {
    return findRunWebhookSecret(runPaths(stateDir, runId).dir);
  } catch {
    return undefined;
  }
}

/** Starts the receiver of {@link KeepDeliveriesOptions}. */
export async function keepDeliveries(options: KeepDeliveriesOptions): Promise<DeliveryKeeper> {
  const { stateDir } = options;
  const hints = await startWebhookHints({
    url: options.url,
    listen: options.listen,
    // Its own secret signs only the self-check: no run of the folder uses it.
    secret: randomBytes(32).toString('base64url'),
    clock: options.clock,
    ...(options.onHint === undefined ? {} : { onHint: options.onHint }),
    // No run of its own (an empty id names none): every correlated delivery is an earlier run's.
    adoption: { stateDir, runId: '', secretOf: (runId) => secretOf(stateDir, runId) },
  });
  return { received: hints.received, selfCheck: (timeoutMs) => hints.selfCheck(timeoutMs), close: () => hints.close() };
}
