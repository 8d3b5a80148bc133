/**
 * The emulated account: balance in integer micro-dollars (no float drift), prices reserved
 * while a job runs and charged when it is done (released when it fails), per-key monthly
 * spend limits, payments, and the key description of GET /api/v2/key.
 */
import type { Clock } from '../../common/index.js';
import { type ApiKey, previewSecret } from './api-keys.js';
import type { EmulatorJob, JobAccountHooks, PaymentConfig } from '../types.js';
import { toMicros, toUsd } from '../../common/index.js';

/** Why a submission cannot be paid for. */
export type SpendRefusal = 'insufficient_balance' | 'key_limit_exceeded';

interface KeyUsage {
  month: string;
  usedMicros: number;
}

/** Balance, reservations and key spend. Implements the job store's account hooks. */
export class Account implements JobAccountHooks {
  readonly #clock: Clock;
  #balanceMicros: number;
  #reservedMicros = 0;
  readonly #reservations = new Map<string, { keyId: number; micros: number }>();
  /** Jobs settled before their reservation was recorded (a job that finished at once). */
  readonly #settled = new Set<string>();
  readonly #usage = new Map<number, KeyUsage>();

  constructor(balanceUsd: number, clock: Clock) {
    this.#clock = clock;
    this.#balanceMicros = toMicros(balanceUsd);
  }

  /** The balance in USD. */
  balanceUsd(): number {
    return toUsd(this.#balanceMicros);
  }

  /** Null when `key` may spend `priceMicros` more; else the refusal (balance first). */
  checkSpend(key: ApiKey, priceMicros: number): SpendRefusal | null {
    if (priceMicros > this.#balanceMicros - this.#reservedMicros) return 'insufficient_balance';
    if (key.limitMicros !== null && this.#committed(key.id) + priceMicros > key.limitMicros) return 'key_limit_exceeded';
    return null;
  }

  /** Holds a submitted job's price until it finishes. */
  reserve(job: EmulatorJob): void {
    if (this.#settled.delete(job.requestId)) return;
    this.#reservations.set(job.requestId, { keyId: job.keyId, micros: job.priceMicros });
    this.#reservedMicros += job.priceMicros;
  }

  /** The job is done: its reserved price is taken from the balance. */
  charge(job: EmulatorJob): void {
    this.#unreserve(job);
    this.chargeNow(job.keyId, job.priceMicros);
  }

  /** The job failed: what it reserved is free again (failed jobs are not charged). */
  release(job: EmulatorJob): void {
    this.#unreserve(job);
  }

  /** Charges a synchronous answer (prompt enhancement) at once. */
  chargeNow(keyId: number, micros: number): void {
    this.#balanceMicros -= micros;
    this.#usageOf(keyId).usedMicros += micros;
  }

  /** GET /api/v2/key `data` for `key`. */
  describeKey(key: ApiKey): Record<string, unknown> {
    const used = this.#usageOf(key.id).usedMicros;
    const limit = key.limitMicros;
    return {
      id: key.id,
      name: key.name,
      preview: previewSecret(key.secret),
      role: key.role,
      status: key.status,
      created_at: formatIsoOffset(key.createdAtMs),
      expires_at: key.expiresAtMs === null ? null : formatIsoOffset(key.expiresAtMs),
      last_used_at: formatIsoOffset(key.lastUsedAtMs),
      ip_whitelist: [...key.ipWhitelist],
      ip_whitelist_count: key.ipWhitelist.length,
      limit: limit === null ? null : toUsd(limit),
      reset_interval: 'monthly',
      limit_used: toUsd(used),
      limit_remaining: limit === null ? null : toUsd(Math.max(0, limit - used)),
      limit_resets_at: formatIsoOffset(nextMonthStart(this.#clock.now())),
    };
  }

  #unreserve(job: EmulatorJob): void {
    const held = this.#reservations.get(job.requestId);
    if (!held) {
      this.#settled.add(job.requestId);
      return;
    }
    this.#reservations.delete(job.requestId);
    this.#reservedMicros -= held.micros;
  }

  /** Spent this month plus what running jobs of the key hold. */
  #committed(keyId: number): number {
    let reserved = 0;
    for (const held of this.#reservations.values()) if (held.keyId === keyId) reserved += held.micros;
    return this.#usageOf(keyId).usedMicros + reserved;
  }

  #usageOf(keyId: number): KeyUsage {
    const month = new Date(this.#clock.now()).toISOString().slice(0, 7);
    let usage = this.#usage.get(keyId);
    if (!usage || usage.month !== month) {
      usage = { month, usedMicros: 0 };
      this.#usage.set(keyId, usage);
    }
    return usage;
  }
}

function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Payments newest first: the configured ones, or a fixed sample dated back from `nowMs`. */
export function listPayments(configured: readonly PaymentConfig[] | null, nowMs: number): PaymentConfig[] {
  const payments = configured ?? samplePayments(nowMs);
  return [...payments].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id);
}

const SAMPLE: ReadonlyArray<[number, PaymentConfig['status'], string]> = [
  [10, 'paid', 'stripe'],
  [25, 'paid', 'stripe'],
  [50, 'failed', 'stripe'],
  [50, 'paid', 'paypal'],
  [20, 'cancelled', 'stripe'],
  [100, 'paid', 'stripe'],
  [15, 'pending', 'crypto'],
];

function samplePayments(nowMs: number): PaymentConfig[] {
  const day = 86_400_000;
  return SAMPLE.map(([amount, status, provider], i) => ({
    id: i + 1,
    amount,
    currency: 'USD',
    status,
    provider,
    created_at: formatIsoOffset(nowMs - (SAMPLE.length - i) * 7 * day),
  }));
}

/** Formats virtual epoch ms as ISO 8601 with an explicit offset (`2025-01-02T03:04:05+00:00`). */
function formatIsoOffset(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
