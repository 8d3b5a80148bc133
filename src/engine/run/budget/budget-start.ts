/**
 * The budget gate of a run, before anything is submitted: the quote's high end for the work
 * still to do, plus what earlier sessions of the run already spent, against the cap. Items
 * done in an earlier session are paid for and are not priced again; items with no price fail
 * the gate unless `--allow-unpriced`.
 */
import { UsdTally } from '../../../common/index.js';
import { decideGate, type GateOutcome, type Quote, type QuoteTotal, TotalAccumulator } from '../../quote/index.js';
import type { JobGraph } from '../../../workflow/index.js';
import type { SeedNode } from '../../contracts/seed-node.js';

/** USD charged for the nodes an earlier session finished, and their graph indexes. */
export function earlierSpend(graph: JobGraph, seeds: readonly SeedNode[]): { spent: number; done: Set<number> } {
  const spent = new UsdTally();
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
    spent.add(seed.state === 'done' ? (seed.result.cost ?? 0) : (paid?.cost ?? 0));
  }
  return { spent: spent.usd, done };
}

/** The quote's total over the nodes not in `done`. */
export function remainingTotal(graph: JobGraph, quote: Quote, done: ReadonlySet<number>): QuoteTotal {
  if (done.size === 0) return quote.total;
  const remaining = new TotalAccumulator();
  for (const step of quote.steps) {
    let offset: number;
    try {
      offset = graph.step(step.id).offset;
    } catch {
      continue;
    }
    for (const item of step.quoted_items) if (!done.has(offset + item.index)) remaining.add(item);
  }
  return remaining.total();
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
