/**
 * The baseline every benchmark compares deflow with: the client a competent user writes from
 * the public docs in an afternoon. It is not a strawman:
 * - p-limit at a fixed concurrency (8 or 32: the benchmarks run both and report against the
 *   better);
 * - on a 429 it waits exactly `Retry-After` (seconds, as the docs say) and sends again;
 * - on a 5xx or a network error it backs off exponentially (1 s, doubling, at most 30 s, full
 *   jitter) and sends again, at most 8 times;
 * - it polls each job every 2 s until `done` or `error`;
 * - uploads stream from disk (`fs.openAsBlob`), over undici `fetch`.
 * All waits are on the benchmark's (virtual) clock; on a discrete-event clock its requests go
 * through the clock's dispatcher, as deflow's do.
 */
import { openAsBlob } from 'node:fs';
import pLimit, { type LimitFunction } from 'p-limit';
import { type Dispatcher, FormData, fetch } from 'undici';
import type { Clock } from '../src/common/clock.js';

export interface FairClientOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly clock: Clock;
  readonly concurrency: number;
  /** @default 2000 (virtual ms) */
  readonly pollMs?: number;
  /** Stops waiting (and sending) once the clock passes this (virtual epoch ms). */
  readonly deadline?: number;
  /** The HTTP dispatcher (a discrete-event clock's, which holds time still while a request is out); undici's global one by default. */
  readonly dispatcher?: Dispatcher;
}

/** A form field: a string, or a file on disk. */
export type FairField = string | { readonly path: string; readonly name: string };

export interface FairClient {
  readonly limit: LimitFunction;
  /** POSTs JSON (a quote or a submission) and returns `data`. */
  postJson(path: string, body: unknown): Promise<Record<string, unknown>>;
  /** Submits a job as multipart, polls it every 2 s, and returns its final status (`done` or `error`). */
  job(path: string, fields: Readonly<Record<string, FairField>>): Promise<Record<string, unknown>>;
}

/** Past the deadline: the caller counts what finished before it. */
export class DeadlinePassed extends Error {}

const MAX_FAILURES = 8;

export function createFairClient(options: FairClientOptions): FairClient {
  const { clock } = options;
  const pollMs = options.pollMs ?? 2000;
  const headers = { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' };
  const wait = async (ms: number): Promise<void> => {
    if (options.deadline !== undefined && clock.now() + ms > options.deadline) throw new DeadlinePassed();
    await clock.sleep(ms);
  };

  const send = async (path: string, init: () => { method?: string; body?: FormData | string; headers?: Record<string, string> }): Promise<Record<string, unknown>> => {
    let failures = 0;
    for (;;) {
      if (options.deadline !== undefined && clock.now() > options.deadline) throw new DeadlinePassed();
      const { headers: extra, ...rest } = init();
      let status: number;
      let text: string;
      let retryAfter: string | null;
      try {
        const response = await fetch(`${options.baseUrl}${path}`, { ...rest, headers: { ...headers, ...extra }, ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}) });
        status = response.status;
        retryAfter = response.headers.get('retry-after');
        text = await response.text();
      } catch (error) {
        if (++failures > MAX_FAILURES) throw error;
        await wait(backoffMs(failures));
        continue;
      }
      if (status === 429) {
        await wait(Number(retryAfter ?? '1') * 1000);
        continue;
      }
      if (status >= 500) {
        if (++failures > MAX_FAILURES) throw new Error(`${path}: ${status}`);
        await wait(backoffMs(failures));
        continue;
      }
      const json = JSON.parse(text) as { data?: Record<string, unknown> };
      if (status !== 200) throw new Error(`${path}: ${status} ${text}`);
      return json.data ?? {};
    }
  };

  return {
    limit: pLimit(options.concurrency),
    postJson: (path, body) => send(path, () => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })),
    async job(path, fields) {
      const files = new Map<string, Blob>();
      for (const [key, value] of Object.entries(fields)) if (typeof value !== 'string') files.set(key, await openAsBlob(value.path));
      const form = (): FormData => {
        const data = new FormData();
        for (const [key, value] of Object.entries(fields)) {
          if (typeof value === 'string') data.set(key, value);
          else data.set(key, files.get(key)!, value.name);
        }
        return data;
      };
      const id = String((await send(path, () => ({ method: 'POST', body: form() }))).request_id);
      for (;;) {
        await wait(pollMs);
        const status = await send(`/api/v2/jobs/${id}`, () => ({}));
        // The request id rides along for the benchmark's bound (which jobs form one item's chain).
        if (status.status === 'done' || status.status === 'error') return { ...status, request_id: id };
      }
    },
  };
}

/** 1 s, 2 s, 4 s … at most 30 s, full jitter. */
function backoffMs(failures: number): number {
  return Math.random() * Math.min(30_000, 1000 * 2 ** (failures - 1));
}
