/**
 * The budget gate of a run, before anything is submitted: the quote's high end for the work
 * still to do, plus what earlier sessions of the run already spent, against the cap. Items
 * done in an earlier session are paid for and are not priced again; items with no price fail
 * the gate unless `--allow-unpriced`.
 */
import { decideGate, type GateOutcome, type Quote, type QuoteTotal } from '../../quote/index.js';
import type { JobGraph } from '../../../workflow/index.js';
import type { SeedNode } from '../scheduler.js';

const micros = (usd: number): number => Math.round(usd * 1e6);

/** USD charged for the nodes an earlier session finished, and their graph indexes. */
export function earlierSpend(graph: JobGraph, seeds: readonly SeedNode[]): { spent: number; done: Set<number> } {
  let spent = 0;
  const done = new Set<number>();
  for (const seed of seeds) {
    // Paid in an earlier session, its result still to fetch: charged then, never again.
    const paid = seed.state === 'submitted' ? seed.paid : undefined;
    if (seed.state !== 'done' && paid === undefined) continue;
    try {
      done.add(graph.nodeIndex(seed.step, seed.k));
    } catch {
      continue;
    }
    spent += micros(seed.state === 'done' ? (seed.result.cost ?? 0) : (paid?.cost ?? 0));
  }
  return { spent: spent / 1e6, done };
}

/** The quote's total over the nodes not in `done`. */
export function remainingTotal(graph: JobGraph, quote: Quote, done: ReadonlySet<number>): QuoteTotal {
  if (done.size === 0) return quote.total;
  let exact = 0;
  let point = 0;
  let low = 0;
  let high = 0;
  let unknown = 0;
  for (const step of quote.steps) {
    let offset: number;
    try {
      offset = graph.step(step.id).offset;
    } catch {
      continue;
    }
    for (const item of step.quoted_items) {
      if (done.has(offset + item.index)) continue;
      if (item.price === null) {
        unknown++;
        continue;
      }
      if (item.method === 'exact' || item.method === 'derived') exact += micros(item.price);
      else {
        point += micros(item.price);
        low += micros(item.low ?? item.price);
        high += micros(item.high ?? item.price);
      }
    }
  }
  return {
    exact: exact / 1e6,
    estimated: { point: point / 1e6, low: low / 1e6, high: high / 1e6 },
    point: (exact + point) / 1e6,
    low: (exact + low) / 1e6,
    high: (exact + high) / 1e6,
    unknown_items: unknown,
  };
}

/** The gate for a run about to start (or resume) under `maxCost`. */
export function gateRun(graph: JobGraph, quote: Quote, options: { maxCost: number | null; allowUnpriced: boolean; spent: number; done: ReadonlySet<number> }): GateOutcome {
  return decideGate({
    total: remainingTotal(graph, quote, options.done),
    maxCost: options.maxCost,
    allowUnpriced: options.allowUnpriced,
    balance: quote.balance,
    unavailable: quote.prices_unavailable,
    spent: options.spent,
  });
}
