/**
 * `--compare-to previous.json`: the change of each step's quoted cost and of the total
 * against an earlier JSON quote. Costs compared are point estimates (exact + estimated).
 */
import { DeflowError, readNamedFile, roundUsd } from '../../common/index.js';
import { pointTotal } from './quote-totals.js';
import type { Quote, QuoteTotal } from './quote-types.js';

/** One line of a comparison: a step, or the total. */
export interface QuoteDelta {
  readonly id: string;
  /** Point cost in the earlier quote; null when the step is new. */
  readonly before: number | null;
  /** Point cost now; null when the step is gone. */
  readonly after: number | null;
  /** after − before (a missing side counts as 0). */
  readonly change: number;
  /** change / before × 100, or null when before is 0 or missing. */
  readonly change_pct: number | null;
}

export interface QuoteComparison {
  /** Where the earlier quote came from, for the report. */
  readonly previous: string;
  readonly steps: readonly QuoteDelta[];
  readonly total: QuoteDelta;
}

function delta(id: string, before: QuoteTotal | undefined, after: QuoteTotal | undefined): QuoteDelta {
  const b = before ? pointTotal(before) : null;
  const a = after ? pointTotal(after) : null;
  const change = roundUsd((a ?? 0) - (b ?? 0));
  return { id, before: b, after: a, change, change_pct: b ? Number(((change / b) * 100).toFixed(2)) : null };
}

/** Compares `current` with `previous`, step by step (steps matched by id; new ones first seen last). */
export function compareQuotes(previous: Quote, current: Quote, previousName = 'previous quote'): QuoteComparison {
  const before = new Map(previous.steps.map((s) => [s.id, s.subtotal]));
  const now = new Map(current.steps.map((s) => [s.id, s.subtotal]));
  const ids = [...current.steps.map((s) => s.id), ...previous.steps.map((s) => s.id).filter((id) => !now.has(id))];
  return {
    previous: previousName,
    steps: ids.map((id) => delta(id, before.get(id), now.get(id))),
    total: delta('total', previous.total, current.total),
  };
}

/**
 * Reads an earlier `deflow quote --format json` output.
 * @throws DeflowError `E_INPUT_QUOTE` when the file cannot be read or is not a version-1 quote.
 */
export async function readQuoteFile(path: string): Promise<Quote> {
  const text = await readNamedFile(path, 'E_INPUT_QUOTE', 'the earlier quote');
  let value: Partial<Quote>;
  try {
    value = JSON.parse(text) as Partial<Quote>;
  } catch (error) {
    throw new DeflowError('E_INPUT_QUOTE', `${path}: expected the JSON of \`deflow quote --format json\`, found text that is not JSON`, {
      cause: error,
      details: { file: path },
    });
  }
  const version = (value as { format_version?: unknown } | null)?.format_version;
  if ((version !== 1 && version !== 2) || !Array.isArray(value.steps) || typeof value.total !== 'object' || value.total === null) {
    throw new DeflowError('E_INPUT_QUOTE', `${path}: expected a quote with format_version 1 or 2, steps and total, found ${describe(value)}`, {
      details: { file: path },
    });
  }
  return version === 1 ? upgradeQuote(value as unknown as QuoteV1) : (value as Quote);
}

/** A format-1 total: flat numbers. */
interface TotalV1 {
  readonly exact: number;
  readonly estimated: number;
  readonly low: number;
  readonly high: number;
  readonly unknown: number;
}

type QuoteV1 = Omit<Quote, 'format_version' | 'total' | 'steps'> & {
  readonly format_version: 1;
  readonly total: TotalV1;
  readonly steps: readonly (Omit<Quote['steps'][number], 'subtotal'> & { readonly subtotal: TotalV1 })[];
};

/** A format-1 total in the format-2 shape (its low and high were already whole-total ends). */
function upgradeTotal(t: TotalV1): QuoteTotal {
  const exact = Number(t.exact) || 0;
  const point = roundUsd(exact + (Number(t.estimated) || 0));
  const low = Number(t.low) || point;
  const high = Number(t.high) || point;
  return {
    exact,
    estimated: { point: roundUsd(point - exact), low: roundUsd(low - exact), high: roundUsd(high - exact) },
    point,
    low,
    high,
    unknown_items: Number(t.unknown) || 0,
  };
}

/** An earlier quote of format 1, read as format 2 (for comparisons). */
function upgradeQuote(v1: QuoteV1): Quote {
  return {
    ...v1,
    format_version: 2,
    total: upgradeTotal(v1.total),
    steps: v1.steps.map((step) => ({ ...step, subtotal: upgradeTotal(step.subtotal) })),
    allow_unpriced: false,
    verdict: v1.over_budget ? 'over-budget' : v1.max_cost === null ? 'no-budget' : 'within',
    verdict_reason: 'read from a format-1 quote',
    prices_unavailable: null,
  };
}

function describe(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)?.slice(0, 40) ?? String(value);
  const version = (value as { format_version?: unknown }).format_version;
  return version === undefined ? 'no format_version' : `format_version ${JSON.stringify(version)}`;
}
