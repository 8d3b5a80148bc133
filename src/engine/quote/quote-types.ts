/**
 * The Quote: the price of every node of a workflow and how it was obtained, before anything
 * is spent. It is plain JSON (`deflow quote --format json` writes it as is; `run` reads it for
 * its budget), versioned by `format_version`. Money is USD, rounded to 1e-6.
 *
 * Format 2 (this one): `total` and each `subtotal` carry `exact`, `estimated { point, low,
 * high }`, the whole `point`, `low` and `high`, and `unknown_items`; budget gates compare the
 * high end. `to_pay` (= `total`) leaves out what the run already has, shown in `already_have`. Format 1 had `estimated`, `low`, `high` and `unknown` as flat numbers.
 */

import type { BudgetVerdict, ErrorCode } from '../../common/index.js';

/**
 * How an item's price was obtained:
 * - `exact`: the price twin answered for exactly these parameters;
 * - `derived`: an identical request was already quoted in this run or is in the quote cache, or
 *   the twin priced what the workflow fixes about a pending input (an image of the size the
 *   generating step is given, a video of its frames and fps);
 * - `fitted`: predicted by a line fitted on quotes of the same class, checked on a held-out quote;
 * - `estimated`: an input comes from an upstream result not produced yet; priced under a stated assumption;
 * - `unknown`: no price could be given (see `reason`).
 */
export type PriceMethod = 'exact' | 'derived' | 'fitted' | 'estimated' | 'unknown';

export const PRICE_METHODS: readonly PriceMethod[] = ['exact', 'derived', 'fitted', 'estimated', 'unknown'];

/** A range of USD: a point estimate and its low and high ends. */
export interface PriceRange {
  readonly point: number;
  readonly low: number;
  readonly high: number;
}

/** A sum of prices. Items with no price are counted, never guessed: with any, the sums are lower bounds. */
export interface QuoteTotal {
  /** Σ exact + derived prices. */
  readonly exact: number;
  /** Σ fitted + estimated prices: their point estimates and the ends of their ranges. */
  readonly estimated: PriceRange;
  /** exact + estimated.point. */
  readonly point: number;
  /** exact + estimated.low. */
  readonly low: number;
  /** exact + estimated.high: what budget gates compare with the cap. */
  readonly high: number;
  /** Items with no price (not included in the sums). */
  readonly unknown_items: number;
}

/**
 * An item the run already has (issue 27): its result is in the result cache, or an earlier
 * session of the run finished or paid for it (the journal). It is priced at $0.
 */
export interface HeldItem {
  readonly source: 'cache' | 'journal';
  /** USD it cost once, when known. */
  readonly cost: number | null;
}

/** Items already had and what they cost once (not part of what is to pay). */
export interface AlreadyHave {
  readonly items: number;
  /** Σ what they cost when they were paid for (unknown costs count 0). */
  readonly cost: number;
}

/** A quote a line was fitted on. */
export interface FitPoint {
  /** Value of the size variable. */
  readonly x: number;
  readonly price: number;
}

/** The held-out check of a fitted line. */
export interface FitCheck {
  readonly x: number;
  /** What the price twin answered. */
  readonly quoted: number;
  /** What the line predicted. */
  readonly predicted: number;
  /** predicted − quoted, USD. */
  readonly error: number;
  /** |error| / quoted × 100 (0 when both are 0). */
  readonly error_pct: number;
  readonly accepted: boolean;
}

/** Where a derived price came from. */
export interface DerivedFrom {
  /** `run`: an identical request of this quote; `cache`: the quote cache; `workflow`: what the workflow fixes upstream. */
  readonly source: 'run' | 'cache' | 'workflow';
  /** The item that sent the identical request (`source: run`), or the upstream step (`source: workflow`). */
  readonly step?: string;
  readonly index?: number;
  /** Age of the cached answer in seconds (`source: cache`). */
  readonly age_s?: number;
}

export interface QuotedItem {
  readonly index: number;
  readonly key: string;
  /** Point price; null when `unknown`. */
  readonly price: number | null;
  readonly low: number | null;
  readonly high: number | null;
  readonly method: PriceMethod;
  /** One line saying how the price was obtained. */
  readonly basis: string;
  /** Value of the class's size variable for this item (seconds, characters), when it has one. */
  readonly x?: number;
  /** The price class of the item (`classes[].id` of its step), when it has one. */
  readonly class?: string;
  readonly derived_from?: DerivedFrom;
  readonly fitted_on?: readonly FitPoint[];
  readonly check?: FitCheck;
  readonly assumption?: string;
  readonly reason?: string;
  /**
   * Unknown items the service refused to price (422): its message. The same parameters would be
   * refused at submission, so `deflow quote` exits 2 naming each such item.
   */
  readonly refused?: string;
  /** Unknown items: what would make the price known (fields to fix in the workflow, or a source to measure). */
  readonly would_know?: string;
  /** Set when the run already has the item: its price is 0 and it is not in `subtotal`. */
  readonly held?: HeldItem;
}

/** A group of items of one step that differ only in a size variable. */
export interface QuotedClass {
  readonly id: string;
  /** The size variable (`duration_seconds`, `count_text`, `duration`). */
  readonly variable: string;
  /** The price-twin fields the class shares (files by digest), for the report. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly items: number;
  /** Distinct values of the variable the items need. */
  readonly distinct: number;
  /** `exact`: each value was quoted; `fitted`: a line was accepted; `refused`: the check failed and values were quoted one by one. */
  readonly outcome: 'exact' | 'fitted' | 'refused';
  readonly line?: { readonly slope: number; readonly intercept: number };
  readonly fitted_on?: readonly FitPoint[];
  readonly check?: FitCheck;
  /** Every value of the variable the twin answered for this class, with its price (what a run re-prices from). */
  readonly points?: readonly FitPoint[];
}

export interface QuotedStep {
  readonly id: string;
  readonly task: string;
  /** The model of the step's items (the first one found), or null. */
  readonly model: string | null;
  readonly items: number;
  /** What this run will pay for the step's items (held items excluded). */
  readonly subtotal: QuoteTotal;
  /** Items of the step the run already has. */
  readonly already_have: AlreadyHave;
  readonly counts: Readonly<Record<PriceMethod, number>>;
  /** Lowest and highest price of one item (low and high ends included), or null when none is known. */
  readonly unit_price: { readonly min: number; readonly max: number } | null;
  readonly classes: readonly QuotedClass[];
  /** Assumptions made for the step's estimates (each stated once). */
  readonly assumptions: readonly string[];
  readonly quoted_items: readonly QuotedItem[];
}

/**
 * What a budget gate concludes: `within` the cap, `over-budget` (the high end is above it),
 * `unpriced` (items have no price and `--allow-unpriced` was not given), `over-balance` (the
 * point is above the balance), `unavailable` (prices could not be obtained), or `no-budget`.
 * Common's exit-codes.ts gives each its exit code.
 */
export type { BudgetVerdict };

/** Why prices could not be obtained at all (the service unreachable, the key refused, the price pool exhausted). */
export interface PricesUnavailable {
  readonly code: ErrorCode;
  readonly message: string;
}

export interface Quote {
  readonly format_version: 2;
  readonly workflow: string;
  /** ISO date-time, on the quoting clock. */
  readonly created_at: string;
  readonly currency: 'USD';
  /** What this run will pay: items it already has are priced at $0 and counted in `already_have`. The gate compares `to_pay.high`. */
  readonly to_pay: QuoteTotal;
  /** Items the run already has (result-cache hits, items the journal holds) and what they cost once. */
  readonly already_have: AlreadyHave;
  /** The same as `to_pay` (kept for readers of earlier format-2 quotes). */
  readonly total: QuoteTotal;
  /** Price requests sent to the service for this quote (cache hits and duplicates are not sent). */
  readonly price_requests: number;
  /** Answers reused from the on-disk quote cache. */
  readonly cache_hits: number;
  /** Account balance (GET balance), or null when it could not be read. */
  readonly balance: number | null;
  /** The budget: `--max-cost`, else the workflow's `budget.max_cost`, else null. */
  readonly max_cost: number | null;
  /** `--allow-unpriced`: items with no price do not fail the budget gate. */
  readonly allow_unpriced: boolean;
  /** The high end of the total exceeds max_cost. */
  readonly over_budget: boolean;
  /** The high end of the total exceeds the balance. */
  readonly over_balance: boolean;
  /** The budget gate's conclusion (see {@link BudgetVerdict}). */
  readonly verdict: BudgetVerdict;
  /** One line saying why, for people. */
  readonly verdict_reason: string;
  /** Set when prices could not be obtained: the quote is incomplete and no verdict but `unavailable` is given. */
  readonly prices_unavailable: PricesUnavailable | null;
  readonly steps: readonly QuotedStep[];
  readonly warnings: readonly string[];
}
