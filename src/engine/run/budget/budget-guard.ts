/**
 * The spending cap during a run. Each submission first reserves the most its job can cost
 * (run-pricer.ts says how much); the reservation becomes the actual charge when the job
 * finishes. A submission whose reservation would take spent plus reserved past the cap is not
 * made, and the first one refused is remembered for the message that ends the run. What
 * earlier sessions of the same run spent counts against the cap from the start.
 */
import type { NodeRef } from '../../contracts/events.js';

/** Slack for floating-point sums of prices (USD). */
const EPSILON = 1e-9;

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

export class BudgetGuard {
  /** USD charged by finished jobs (earlier sessions of the run included). */
  spent: number;
  /** USD held by jobs in flight. */
  reserved = 0;
  /** The first submission the cap refused. */
  refusal: BudgetRefusal | null = null;

  /** `maxCost` in USD, or null for no cap; `spentBefore`: charged by earlier sessions of the run. */
  constructor(
    readonly maxCost: number | null,
    readonly spentBefore = 0,
  ) {
    this.spent = spentBefore;
  }

  get capped(): boolean {
    return this.maxCost !== null;
  }

  /** Holds `amount` for a submission; false when that could exceed the cap (nothing is held then). */
  reserve(amount: number): boolean {
    if (this.maxCost !== null && this.spent + this.reserved + amount > this.maxCost + EPSILON) return false;
    this.reserved += amount;
    return true;
  }

  /** Records the first refused submission (the run stops on it). */
  refuse(node: NodeRef, amount: number, how: string): void {
    this.refusal ??= { node, amount, how, spent: this.spent, reserved: this.reserved };
  }

  /** Holds `amount` whatever the cap says (a job an earlier run already submitted). */
  hold(amount: number): void {
    this.reserved += amount;
  }

  /** The job finished: its reservation becomes what it actually cost. */
  settle(reservedAmount: number, actual: number): void {
    this.reserved = Math.max(0, this.reserved - reservedAmount);
    this.spent += actual;
  }

  /** Nothing was charged (never submitted, or a failed job): the reservation is given back. */
  release(reservedAmount: number): void {
    this.reserved = Math.max(0, this.reserved - reservedAmount);
  }
}
