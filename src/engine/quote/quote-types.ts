/**
 * The Quote: the price of every node of a workflow and how it was obtained, before anything
 * is spent. It is plain JSON (`deflow quote --format json` writes it as is; `run` reads it for
 * its budget), versioned by `format_version`. Money is USD, rounded to 1e-6.
 */

/**
 * How an item's price was obtained:
 * - `exact`: the price twin answered for exactly these parameters;
 * - `derived`: an identical request was already quoted in this run or is in the quote cache;
 * - `fitted`: predicted by a line fitted on quotes of the same class, checked on a held-out quote;
 * - `estimated`: an input comes from an upstream result not produced yet; priced under a stated assumption;
 * - `unknown`: no price could be given (see `reason`).
 */
export type PriceMethod = 'exact' | 'derived' | 'fitted' | 'estimated' | 'unknown';

export const PRICE_METHODS: readonly PriceMethod[] = ['exact', 'derived', 'fitted', 'estimated', 'unknown'];

/** A sum of prices. */
export interface QuoteTotal {
  /** Σ exact + derived prices. */
  readonly exact: number;
  /** Σ fitted + estimated point estimates. */
  readonly estimated: number;
  /** Low end of the whole total (exact part plus the low end of every fitted and estimated price). */
  readonly low: number;
  /** High end of the whole total. */
  readonly high: number;
  /** Items with no price (not included in the sums). */
  readonly unknown: number;
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
  readonly source: 'run' | 'cache';
  /** The item that sent the identical request (`source: run`). */
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
  readonly derived_from?: DerivedFrom;
  readonly fitted_on?: readonly FitPoint[];
  readonly check?: FitCheck;
  readonly assumption?: string;
  readonly reason?: string;
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
}

export interface QuotedStep {
  readonly id: string;
  readonly task: string;
  /** The model of the step's items (the first one found), or null. */
  readonly model: string | null;
  readonly items: number;
  readonly subtotal: QuoteTotal;
  readonly counts: Readonly<Record<PriceMethod, number>>;
  /** Lowest and highest price of one item (low and high ends included), or null when none is known. */
  readonly unit_price: { readonly min: number; readonly max: number } | null;
  readonly classes: readonly QuotedClass[];
  /** Assumptions made for the step's estimates (each stated once). */
  readonly assumptions: readonly string[];
  readonly quoted_items: readonly QuotedItem[];
}

export interface Quote {
  readonly format_version: 1;
  readonly workflow: string;
  /** ISO date-time, on the quoting clock. */
  readonly created_at: string;
  readonly currency: 'USD';
  readonly total: QuoteTotal;
  /** Price requests sent to the service for this quote (cache hits and duplicates are not sent). */
  readonly price_requests: number;
  /** Answers reused from the on-disk quote cache. */
  readonly cache_hits: number;
  /** Account balance (GET balance), or null when it could not be read. */
  readonly balance: number | null;
  /** The budget: `--max-cost`, else the workflow's `budget.max_cost`, else null. */
  readonly max_cost: number | null;
  /** exact + estimated exceeds max_cost. */
  readonly over_budget: boolean;
  /** exact + estimated exceeds the balance. */
  readonly over_balance: boolean;
  readonly steps: readonly QuotedStep[];
  readonly warnings: readonly string[];
}
