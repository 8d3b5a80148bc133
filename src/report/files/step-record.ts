import { isoOrNull, roundUsd, UsdTally } from '../../common/index.js';
import { errorRecord, type EventError, type SkipKind } from '../../engine/index.js';
import type { ItemStatus, ReportCounts, ReportError, ReportItem } from './run-report-types.js';

const STATUSES: readonly ItemStatus[] = ['pending', 'running', 'done', 'failed', 'skipped', 'unknown', 'unsaved', 'deferred', 'timed-out'];
export const STATUS = { pending: 0, running: 1, done: 2, failed: 3, skipped: 4, unknown: 5, unsaved: 6, deferred: 7, timedOut: 8 } as const;
export type StatusCode = (typeof STATUS)[keyof typeof STATUS];

/**
 * The items of one step, stored column-wise: numbers in typed arrays (NaN = unknown), strings
 * in plain arrays, rare fields (errors, skip reasons) in sparse maps. About 60 bytes per item
 * plus its strings, so 100,000 items fit in a few MB; no object per item until one is read.
 */
export class StepRecord {
  size: number;
  status: Uint8Array;
  cached: Uint8Array;
  attempts: Uint16Array;
  quoted: Float64Array;
  actual: Float64Array;
  startedAt: Float64Array;
  finishedAt: Float64Array;
  readonly keys: (string | undefined)[] = [];
  readonly requestIds: (string | undefined)[] = [];
  readonly outputs: (readonly string[] | undefined)[] = [];
  readonly errors = new Map<number, EventError>();
  readonly skipReasons = new Map<number, string>();
  /** Items whose job was adopted (its submission's answer lost, a webhook delivery named it). */
  readonly adopted = new Set<number>();
  /** Why each skipped item was skipped. */
  readonly skipKinds = new Map<number, SkipKind>();
  /** Items per status code, kept in step with `status`. */
  readonly counts = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  cachedCount = 0;

  constructor(
    readonly id: string,
    readonly task: string,
    declaredItems: number,
  ) {
    this.size = declaredItems;
    this.status = new Uint8Array(declaredItems);
    this.cached = new Uint8Array(declaredItems);
    this.attempts = new Uint16Array(declaredItems);
    this.quoted = new Float64Array(declaredItems).fill(Number.NaN);
    this.actual = new Float64Array(declaredItems).fill(Number.NaN);
    this.startedAt = new Float64Array(declaredItems).fill(Number.NaN);
    this.finishedAt = new Float64Array(declaredItems).fill(Number.NaN);
    this.counts[STATUS.pending] = declaredItems;
  }

  /** Makes room for item `index` (the engine may report more items than run-started announced). */
  ensure(index: number): void {
    if (index < this.size) return;
    const capacity = this.status.length;
    if (index >= capacity) {
      const next = Math.max(index + 1, capacity * 2, 16);
      this.status = grow(this.status, new Uint8Array(next));
      this.cached = grow(this.cached, new Uint8Array(next));
      this.attempts = grow(this.attempts, new Uint16Array(next));
      this.quoted = grow(this.quoted, new Float64Array(next).fill(Number.NaN));
      this.actual = grow(this.actual, new Float64Array(next).fill(Number.NaN));
      this.startedAt = grow(this.startedAt, new Float64Array(next).fill(Number.NaN));
      this.finishedAt = grow(this.finishedAt, new Float64Array(next).fill(Number.NaN));
    }
    this.counts[STATUS.pending]! += index + 1 - this.size;
    this.size = index + 1;
  }

  setStatus(index: number, code: StatusCode): void {
    this.counts[this.status[index]!]! -= 1;
    this.counts[code]! += 1;
    this.status[index] = code;
  }

  setCached(index: number, cached: boolean): void {
    const was = this.cached[index] === 1;
    if (was === cached) return;
    this.cached[index] = cached ? 1 : 0;
    this.cachedCount += cached ? 1 : -1;
  }

  countsSummary(): ReportCounts {
    const c = this.counts;
    return {
      items: this.size,
      done: c[STATUS.done]!,
      cached: this.cachedCount,
      failed: c[STATUS.failed]! + c[STATUS.unsaved]! + c[STATUS.timedOut]!,
      unsaved: c[STATUS.unsaved]!,
      timed_out: c[STATUS.timedOut]!,
      skipped: c[STATUS.skipped]!,
      unknown: c[STATUS.unknown]!,
      pending: c[STATUS.pending]! + c[STATUS.running]! + c[STATUS.deferred]!,
      deferred: c[STATUS.deferred]!,
      invalid: this.countSkips('invalid'),
      blocked: this.countSkips('upstream'),
    };
  }

  /** Sets why item `index` is skipped (or forgets it when it is no longer skipped). */
  setSkipKind(index: number, kind: SkipKind | undefined): void {
    if (kind === undefined) this.skipKinds.delete(index);
    else this.skipKinds.set(index, kind);
  }

  private countSkips(kind: SkipKind): number {
    let n = 0;
    for (const [index, k] of this.skipKinds) if (k === kind && this.status[index] === STATUS.skipped) n++;
    return n;
  }

  /** Sums of the known quoted and actual costs, in whole micro-dollars then USD (no float noise). */
  costs(): { quoted: number; actual: number } {
    const quoted = new UsdTally();
    const actual = new UsdTally();
    for (let i = 0; i < this.size; i++) {
      const q = this.quoted[i]!;
      const a = this.actual[i]!;
      if (!Number.isNaN(q)) quoted.add(q);
      if (!Number.isNaN(a)) actual.add(a);
    }
    return { quoted: quoted.usd, actual: actual.usd };
  }

  /** Earliest start and latest finish over the items (NaN when none). */
  span(): { first: number; last: number } {
    let first = Number.NaN;
    let last = Number.NaN;
    for (let i = 0; i < this.size; i++) {
      const started = this.startedAt[i]!;
      const finished = this.finishedAt[i]!;
      // Comparisons with NaN are false, so the first known value always wins over the NaN start.
      if (!Number.isNaN(started) && !(started >= first)) first = started;
      if (!Number.isNaN(finished) && !(finished <= last)) last = finished;
    }
    return { first, last };
  }

  statusOf(index: number): ItemStatus {
    return STATUSES[this.status[index]!]!;
  }

  /** Builds the report object of item `index` (allocated on demand, not kept). */
  item(index: number): ReportItem {
    const started = this.startedAt[index]!;
    const finished = this.finishedAt[index]!;
    const error = this.errors.get(index);
    return {
      index,
      key: this.keys[index] ?? null,
      status: this.statusOf(index),
      cached: this.cached[index] === 1,
      request_id: this.requestIds[index] ?? null,
      cost_quoted: usdOrNull(this.quoted[index]!),
      cost_actual: usdOrNull(this.actual[index]!),
      started_at: isoOrNull(started),
      finished_at: isoOrNull(finished),
      duration_ms: Number.isNaN(started) || Number.isNaN(finished) ? null : Math.max(0, finished - started),
      outputs: this.outputs[index] ?? [],
      error: error === undefined ? null : toReportError(error),
      skip_reason: this.skipReasons.get(index) ?? null,
      skip_kind: this.status[index] === STATUS.skipped ? (this.skipKinds.get(index) ?? null) : null,
      attempts: this.attempts[index]!,
      adopted: this.adopted.has(index),
    };
  }
}

function toReportError(error: EventError): ReportError {
  return {
    ...errorRecord(error),
    ...(error.retryable === undefined ? {} : { retryable: error.retryable }),
  };
}

function grow<T extends Uint8Array | Uint16Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** USD rounded to micro-dollars, or null for NaN. */
function usdOrNull(value: number): number | null {
  return Number.isNaN(value) ? null : roundUsd(value);
}
