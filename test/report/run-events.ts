import type { EventError, NodeRef, RunEvent } from '../../src/engine/contracts/events.js';

/** Epoch ms of every synthetic run's start: 2026-01-02T03:04:05.000Z. */
export const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);

export function node(step: string, index: number, key: string): NodeRef {
  return { step, index, key };
}

export function runStarted(steps: { id: string; task: string; items: number }[], ts = T0): RunEvent {
  return { type: 'run-started', ts, runId: 'run-1', workflow: 'podcast.yaml', workflowName: 'Podcast', resumed: false, steps };
}

export function submitted(n: NodeRef, ts: number, requestId: string, quotedCost: number | null, attempt = 1): RunEvent {
  return { type: 'item-submitted', ts, node: n, requestId, attempt, quotedCost };
}

export function done(n: NodeRef, ts: number, fields: { requestId?: string | null; cost?: number; quotedCost?: number | null; cached?: boolean; outputs?: string[]; startedAt: number }): RunEvent {
  return {
    type: 'item-done',
    ts,
    node: n,
    requestId: fields.requestId ?? null,
    cost: fields.cost ?? 0,
    quotedCost: fields.quotedCost ?? null,
    cached: fields.cached ?? false,
    outputs: fields.outputs ?? [],
    startedAt: fields.startedAt,
  };
}

export function failed(n: NodeRef, ts: number, error: EventError, requestId: string | null = null, startedAt: number | null = null): RunEvent {
  return { type: 'item-failed', ts, node: n, requestId, error, startedAt };
}

export function skipped(n: NodeRef, ts: number, reason: string): RunEvent {
  return { type: 'item-skipped', ts, node: n, reason };
}

export function unknown(n: NodeRef, ts: number, reason: string): RunEvent {
  return { type: 'item-unknown', ts, node: n, reason };
}

export function runFinished(
  counts: Extract<RunEvent, { type: 'run-finished' }>['counts'],
  fields: { ts: number; status?: Extract<RunEvent, { type: 'run-finished' }>['status']; exitCode?: number; spent?: number; quoted?: number | null; resumeCommand?: string | null },
): RunEvent {
  return {
    type: 'run-finished',
    ts: fields.ts,
    runId: 'run-1',
    status: fields.status ?? 'failed',
    exitCode: fields.exitCode ?? 1,
    counts,
    spent: fields.spent ?? 0,
    quoted: fields.quoted ?? null,
    resumeCommand: fields.resumeCommand ?? null,
  };
}

/**
 * A realistic two-step chained run (transcribe → speak, 3 items each): transcribe[1] fails,
 * so speak[1] is skipped; transcribe[2] comes from the cache; speak[0] needed a retry;
 * speak[2]'s submission outcome is unknown. Costs are binary fractions so sums are exact.
 */
export function sampleRun(): RunEvent[] {
  const t0 = node('transcribe', 0, 'a.mp3');
  const t1 = node('transcribe', 1, 'b.mp3');
  const t2 = node('transcribe', 2, 'c.mp3');
  const s0 = node('speak', 0, 'a.mp3');
  const s1 = node('speak', 1, 'b.mp3');
  const s2 = node('speak', 2, 'c.mp3');
  return [
    runStarted([
      { id: 'transcribe', task: 'audio-to-text', items: 3 },
      { id: 'speak', task: 'text-to-speech', items: 3 },
    ]),
    {
      type: 'quoted',
      ts: T0 + 10,
      total: { exact: 0.125, estimated: { point: 0.125, low: 0.1, high: 0.15 }, point: 0.25, low: 0.225, high: 0.275, unknownItems: 0 },
      priceRequests: 2,
      balance: 10,
      maxCost: 1,
      verdict: 'within',
      reason: 'the high end of the quote, $0.275, is within the cap of $1',
    },
    done(t2, T0 + 20, { cached: true, cost: 0, outputs: ['out/transcribe/c.txt'], startedAt: T0 + 20 }),
    submitted(t0, T0 + 100, 'req-t0', 0.0625),
    submitted(t1, T0 + 110, 'req-t1', 0.0625),
    { type: 'item-progress', ts: T0 + 500, node: t0, progress: 50, status: 'processing' },
    { type: 'throttled', ts: T0 + 600, pool: 'speech', waitMs: 1000 },
    done(t0, T0 + 1100, { requestId: 'req-t0', cost: 0.0625, quotedCost: 0.0625, outputs: ['out/transcribe/a.txt'], startedAt: T0 + 100 }),
    failed(t1, T0 + 1200, { code: 'E_JOB_FAILED', message: 'the job failed', jobErrorCode: 'WORKER_ERROR', reason: 'PROCESSING_FAILED', retryable: false }, 'req-t1', T0 + 110),
    skipped(s1, T0 + 1200, 'upstream transcribe[1] failed'),
    submitted(s0, T0 + 1300, 'req-s0a', 0.125),
    { type: 'item-retry', ts: T0 + 1800, node: s0, attempt: 1, error: { code: 'E_JOB_FAILED', message: 'worker timeout', retryable: true } },
    submitted(s0, T0 + 1900, 'req-s0b', 0.125, 2),
    { type: 'warning', ts: T0 + 1950, message: 'speech model is slow today' },
    done(s0, T0 + 2300, { requestId: 'req-s0b', cost: 0.125, quotedCost: 0.125, outputs: ['out/speak/a.mp3'], startedAt: T0 + 1300 }),
    unknown(s2, T0 + 2400, 'connection reset while submitting'),
    runFinished({ total: 6, done: 3, cached: 1, failed: 1, skipped: 1, unknown: 1, pending: 0 }, { ts: T0 + 2500, spent: 0.1875, quoted: 0.25 }),
  ];
}

/** An in-memory output stream that records what was written. */
export interface MemoryStream {
  write(chunk: string | Uint8Array): boolean;
  readonly text: () => string;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

export function memoryStream(options: { isTTY?: boolean } = {}): MemoryStream & NodeJS.WritableStream {
  const chunks: string[] = [];
  const stream = {
    write(chunk: string | Uint8Array): boolean {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    },
    text: () => chunks.join(''),
    ...(options.isTTY ? { isTTY: true, columns: 120, rows: 40 } : {}),
  };
  return stream as unknown as MemoryStream & NodeJS.WritableStream;
}

/** A ticker driven by hand: `tick()` fires every registered interval once. */
export function manualTicker(): { every(ms: number, fn: () => void): () => void; tick(): void; active(): number } {
  const callbacks = new Set<() => void>();
  return {
    every(_ms, fn) {
      callbacks.add(fn);
      return () => callbacks.delete(fn);
    },
    tick() {
      for (const fn of [...callbacks]) fn();
    },
    active: () => callbacks.size,
  };
}
