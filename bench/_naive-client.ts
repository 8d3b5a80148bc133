/**
 * The naive client every benchmark compares against (performance.md §7): a fixed concurrency
 * of 8, a fixed 5 s (virtual) sleep on any 429, undici `fetch`, no governor.
 */
import pLimit from 'p-limit';
import { fetch } from 'undici';
import type { Clock } from '../src/common/clock.js';

/** One answered attempt. */
export interface NaiveAttempt {
  readonly path: string;
  readonly status: number;
  /** Virtual ms from send to answer. */
  readonly latencyMs: number;
}

export interface NaiveClientOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly clock: Clock;
  /** @default 8 */
  readonly concurrency?: number;
  /** @default 5000 (virtual ms) */
  readonly sleepOn429Ms?: number;
}

/** A naive JSON poster: `post(path, body)` retries 429s after a fixed sleep; every attempt is recorded. */
export function createNaiveClient(options: NaiveClientOptions) {
  const limit = pLimit(options.concurrency ?? 8);
  const attempts: NaiveAttempt[] = [];
  const sleepMs = options.sleepOn429Ms ?? 5000;
  const postOnce = async (path: string, body: unknown): Promise<number> => {
    const started = options.clock.now();
    const res = await fetch(`${options.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await res.text();
    attempts.push({ path, status: res.status, latencyMs: options.clock.now() - started });
    return res.status;
  };
  return {
    attempts,
    post: (path: string, body: unknown): Promise<number> =>
      limit(async () => {
        for (;;) {
          const status = await postOnce(path, body);
          if (status !== 429) return status;
          await options.clock.sleep(sleepMs);
        }
      }),
  };
}
