/**
 * The budget gate: what `deflow quote --max-cost` and `deflow run --max-cost` conclude from a
 * total. It fails closed: the cap is compared with the high end of the total, an item with no
 * price fails it (unless `--allow-unpriced`), and a total that could not be computed is never
 * "within budget".
 */
import { addMicros, formatUsd, toMicros, toMicrosDown } from '../../common/index.js';
import type { BudgetVerdict, PricesUnavailable, QuoteTotal } from './quote-types.js';

export interface GateInput {
  readonly total: QuoteTotal;
  /** The cap in USD, or null for none. */
  readonly maxCost: number | null;
  /** `--allow-unpriced`: items with no price do not fail the gate. */
  readonly allowUnpriced: boolean;
  /** The account balance, when read. */
  readonly balance: number | null;
  readonly unavailable: PricesUnavailable | null;
  /** USD already spent by earlier sessions of the same run (counted against the cap). @default 0 */
  readonly spent?: number;
}

export interface GateOutcome {
  readonly verdict: BudgetVerdict;
  readonly reason: string;
  /** The high end (plus what was spent) is above the cap. */
  readonly overBudget: boolean;
  /** The high end of the total is above the balance (the account could not pay the worst case). */
  readonly overBalance: boolean;
}

/** The gate's verdict on `input`, with one line saying why. */
export function decideGate(input: GateInput): GateOutcome {
  const { total, maxCost, balance } = input;
  const spent = input.spent ?? 0;
  // Compared in whole micro-dollars; a cap allows no part of one more than it says.
  const high = addMicros(toMicros(spent), toMicros(total.high));
  const overBudget = maxCost !== null && high > toMicrosDown(maxCost);
  const overBalance = balance !== null && toMicros(total.high) > toMicrosDown(balance);
  const flags = { overBudget, overBalance };
  const already = spent > 0 ? ` plus ${formatUsd(spent)} already spent by this run` : '';
  if (input.unavailable !== null) {
    return { verdict: 'unavailable', reason: `prices could not be obtained: ${input.unavailable.message}`, ...flags };
  }
  const unpriced = total.unknown_items;
  if (maxCost !== null && unpriced > 0 && !input.allowUnpriced) {
    return {
      verdict: 'unpriced',
      reason: `${unpriced} item(s) have no price, so the cost cannot be shown to stay within ${formatUsd(maxCost)} (--allow-unpriced runs them under per-job reservations)`,
      ...flags,
    };
  }
  if (overBudget) {
    return { verdict: 'over-budget', reason: `the high end of the quote, ${formatUsd(total.high)}${already}, is above the cap of ${formatUsd(maxCost)}`, ...flags };
  }
  if (overBalance) return { verdict: 'over-balance', reason: `the high end of the quote, ${formatUsd(total.high)}, is above the balance of ${formatUsd(balance)}`, ...flags };
  if (maxCost === null) return { verdict: 'no-budget', reason: 'no budget was set', ...flags };
  const unpricedNote = unpriced > 0 ? `; ${unpriced} unpriced item(s) run under per-job reservations (--allow-unpriced)` : '';
  return { verdict: 'within', reason: `the high end of the quote, ${formatUsd(total.high)}${already}, is within the cap of ${formatUsd(maxCost)}${unpricedNote}`, ...flags };
}

/** Whether a verdict lets a run start (and `deflow quote` exit 0). */
export function gatePasses(verdict: BudgetVerdict): boolean {
  return verdict === 'within' || verdict === 'no-budget';
}
