/**
 * The spending cap during a run. Each submission first reserves the most its job can cost
 * (its quoted price; the high end for fitted or estimated prices); the reservation becomes
 * the actual charge when the job finishes. A submission whose reservation would take spent
 * plus reserved past the cap is not made.
 */

/** Slack for floating-point sums of prices (USD). */
const EPSILON = 1e-9;

export class BudgetGuard {
  /** USD charged by finished jobs. */
  spent = 0;
  /** USD held by jobs in flight. */
  reserved = 0;

  /** `maxCost` in USD, or null for no cap. */
  constructor(readonly maxCost: number | null) {}

  get capped(): boolean {
    return this.maxCost !== null;
  }

  /** Holds `amount` for a submission; false when that could exceed the cap (nothing is held then). */
  reserve(amount: number): boolean {
    if (this.maxCost !== null && this.spent + this.reserved + amount > this.maxCost + EPSILON) return false;
    this.reserved += amount;
    return true;
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
