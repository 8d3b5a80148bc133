/**
 * Injected faults for clients' retry tests (config `faults`): added latency, connection
 * resets and 500s before anything happens, and bodies cut short after the headers. Each
 * request draws from the seeded generator the same number of times, so a seed replays.
 */
import type { ServerResponse } from 'node:http';
import type { RandomSource } from './random.js';
import type { FaultsConfig } from '../types.js';

/** What happens to one request. */
export interface FaultPlan {
  readonly latencyMs: number;
  readonly reset: boolean;
  readonly error500: boolean;
  readonly truncate: boolean;
}

export const NO_FAULTS: FaultPlan = { latencyMs: 0, reset: false, error500: false, truncate: false };

/** Draws the faults of each request. */
export class FaultInjector {
  readonly #config: FaultsConfig;
  readonly #random: RandomSource;
  #dropNext = 0;

  constructor(config: FaultsConfig, random: RandomSource) {
    this.#config = config;
    this.#random = random;
  }

  /** Faults of an /api request. */
  planApi(): FaultPlan {
    const reset = this.#random() < this.#config.reset_rate;
    const error500 = this.#random() < this.#config.error_500_rate;
    const truncate = this.#random() < this.#config.truncate_rate;
    return { latencyMs: this.#config.latency_ms, reset, error500: error500 && !reset, truncate };
  }

  /**
   * Whether an accepted submission's answer is lost (the job exists; the client sees a reset):
   * one of the next N targeted by {@link dropNextAnswers}, else at `drop_answer_rate`.
   */
  planDropAnswer(): boolean {
    if (this.#dropNext > 0) {
      this.#dropNext--;
      return true;
    }
    return this.#config.drop_answer_rate > 0 && this.#random() < this.#config.drop_answer_rate;
  }

  /** `POST /_emulator/faults {"drop_answers": N}`: the next N submissions lose their answer. */
  dropNextAnswers(count: number): void {
    this.#dropNext = count;
  }

  /** Targeted drops still to come. */
  get pendingDrops(): number {
    return this.#dropNext;
  }

  /** Faults of a result download (only truncation applies). */
  planDownload(): FaultPlan {
    return { ...NO_FAULTS, truncate: this.#random() < this.#config.truncate_rate };
  }
}

/** Drops the connection with a TCP reset, as a crashed proxy would. */
export function resetConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket?.destroy();
}

/** Sends the headers (announcing the full length) and half the body, then drops the connection. */
export function writeTruncated(res: ServerResponse, body: Buffer): void {
  res.setHeader('Content-Length', String(body.length));
  res.flushHeaders();
  const cut = body.subarray(0, Math.floor(body.length / 2));
  res.write(cut, () => res.socket?.destroy());
}
