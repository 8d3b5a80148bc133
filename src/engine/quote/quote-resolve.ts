/**
 * Decides which price requests a quote sends, and sends them. A class with few distinct
 * values of its size variable is quoted value by value; a larger one gets three spread
 * quotes and a held-out fourth, and is fitted when the line passes; when it does not, every
 * value is quoted, within the price-request budget. Requests run concurrently.
 */
import { type FitTolerance, fitAndCheck, planFitPoints } from './price-fit.js';
import { classRequest, type Entry, type PriceClass } from './quote-entries.js';
import type { PriceAnswer, PriceBook } from './quote-price-book.js';
import type { FitPoint } from './quote-types.js';

export interface ResolveOptions {
  /** Distinct values beyond which a class is fitted instead of quoted value by value. */
  readonly fitThreshold: number;
  readonly tolerance: FitTolerance;
}

const sortedValues = (cls: PriceClass): number[] => [...cls.xs].sort((a, b) => a - b);

/** Sends the requests the quote needs; afterwards every price is in `book` or on a fitted class. */
export async function resolvePrices(classes: readonly PriceClass[], entries: Iterable<Entry>, book: PriceBook, options: ResolveOptions): Promise<void> {
  const fitted: { cls: PriceClass; fitOn: number[]; heldOut: number; answers: Promise<PriceAnswer[]> }[] = [];
  const first: Promise<unknown>[] = [];
  // Admission order is priority order when the budget is short: fit points, small classes, single requests.
  const small: PriceClass[] = [];
  for (const cls of classes) {
    const values = sortedValues(cls);
    // Planned from every value, not only uncached ones, so a repeated quote picks the same (cached) points.
    const plan = values.length > options.fitThreshold ? planFitPoints(values) : undefined;
    if (!plan) {
      small.push(cls);
      continue;
    }
    const points = [...plan.fitOn, plan.heldOut];
    const answers = Promise.all(points.map((x) => book.price(classRequest(cls, x))));
    fitted.push({ cls, fitOn: [...plan.fitOn], heldOut: plan.heldOut, answers });
    first.push(answers);
  }
  for (const cls of small) for (const x of sortedValues(cls)) first.push(book.price(classRequest(cls, x)));
  for (const entry of entries) if (entry.kind === 'request' && entry.cls === null) first.push(book.price(entry.request));
  await Promise.all(first);

  const refused: PriceClass[] = [];
  for (const { cls, fitOn, heldOut, answers } of fitted) {
    const got = await answers;
    const failed = got.find((a) => !a.ok);
    if (failed && !failed.ok) {
      cls.outcome = 'refused';
      cls.refusal = `a fit point could not be quoted (${failed.reason})`;
      refused.push(cls);
      continue;
    }
    const price = (i: number): number => (got[i] as Extract<PriceAnswer, { ok: true }>).price;
    const points: FitPoint[] = fitOn.map((x, i) => ({ x, price: price(i) }));
    const outcome = fitAndCheck(points, { x: heldOut, price: price(fitOn.length) }, options.tolerance);
    cls.fittedOn = points;
    cls.check = outcome.check;
    cls.fit = outcome.fit;
    if (outcome.accepted) cls.outcome = 'fitted';
    else {
      cls.outcome = 'refused';
      if (outcome.refusal !== undefined) cls.refusal = outcome.refusal;
      refused.push(cls);
    }
  }
  // A refused class is quoted value by value; values past the budget stay unknown.
  await Promise.all(refused.flatMap((cls) => sortedValues(cls).map((x) => book.price(classRequest(cls, x)))));
}
