/**
 * The spending cap during a run. Each submission first reserves the most its job can cost
 * (run-pricer.ts says how much); the reservation becomes the actual charge when the job
 * finishes. A submission whose reservation would take spent plus reserved past the cap is not
 * made, and the first one refused is remembered for the message that ends the run. What
 * earlier sessions of the same run spent counts against the cap from the start.
 */
import { addMicros, type Micros, subtractMicros, toMicros, toMicrosDown, toUsd } from '../../../common/index.js';
import type { NodeRef } from '../../contracts/events.js';

/** The submission the cap stopped. */
export interface BudgetRefusal {
  readonly node: NodeRef;
  /** What it would have held. */
  readonly amount: number;
  /** How that amount was arrived at. */
  readonly how: string;
  /** Spent and reserved when it was refused. */
  readonly spent: number;
  readonly reserved: number;
}

/** Amounts come and go in USD; they are kept in whole micro-dollars (common/money.ts). */
export class BudgetGuard {
  #spent: Micros;
  #reserved: Micros = toMicros(0);
  readonly #cap: Micros | null;
  /** The first submission the cap refused. */
  refusal: BudgetRefusal | null = null;

  /** `maxCost` in USD, or null for no cap; `spentBefore`: charged by earlier sessions of the run. */
  constructor(
    readonly maxCost: number | null,
    readonly spentBefore = 0,
  ) {
    this.#spent = toMicros(spentBefore);
    this.#cap = maxCost === null ? null : toMicrosDown(maxCost);
  }

  /** USD charged by finished jobs (earlier sessions of the run included). */
  get spent(): number {
    return toUsd(this.#spent);
  }

  /** USD held by jobs in flight. */
  get reserved(): number {
    return toUsd(this.#reserved);
  }

  get capped(): boolean {
    return this.maxCost !== null;
  }

  /** Holds `amount` for a submission; false when that could exceed the cap (nothing is held then). */
  reserve(amount: number): boolean {
    const held = toMicros(amount);
    if (this.#cap !== null && addMicros(this.#spent, this.#reserved, held) > this.#cap) return false;
    this.#reserved = addMicros(this.#reserved, held);
    return true;
  }

  /** Records the first refused submission (the run stops on it). */
  refuse(node: NodeRef, amount: number, how: string): void {
    this.refusal ??= { node, amount, how, spent: this.spent, reserved: this.reserved };
  }

  /** Holds `amount` whatever the cap says (a job an earlier run already submitted). */
  hold(amount: number): void {
    this.#reserved = addMicros(this.#reserved, toMicros(amount));
  }

  /** The job finished: its reservation becomes what it actually cost. */
  settle(reservedAmount: number, actual: number): void {
    this.#reserved = subtractMicros(this.#reserved, toMicros(reservedAmount));
    this.#spent = addMicros(this.#spent, toMicros(actual));
  }

  /** Nothing was charged (never submitted, or a failed job): the reservation is given back. */
  release(reservedAmount: number): void {
    this.#reserved = subtractMicros(this.#reserved, toMicros(reservedAmount));
  }
}
