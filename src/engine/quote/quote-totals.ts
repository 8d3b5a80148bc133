/**
 * Sums of quoted prices. Summed in whole micro-dollars so a thousand items add up without
 * floating-point drift, then given back in USD.
 */
import { addMicros, type Micros, toMicros, toUsd, UsdTally, ZERO } from '../../common/index.js';
import { type AlreadyHave, type HeldItem, PRICE_METHODS, type PriceMethod, type QuotedItem, type QuoteTotal } from './quote-types.js';

/** A running total of quoted items. */
export class TotalAccumulator {
  #exact: Micros = ZERO;
  #point: Micros = ZERO;
  #low: Micros = ZERO;
  #high: Micros = ZERO;
  #unknown = 0;
  readonly #counts: Record<PriceMethod, number> = Object.fromEntries(PRICE_METHODS.map((m) => [m, 0])) as Record<PriceMethod, number>;
  #min: Micros | null = null;
  #max: Micros | null = null;

  add(item: QuotedItem): void {
    this.#counts[item.method]++;
    if (item.method === 'unknown' || item.price === null) {
      this.#unknown++;
      return;
    }
    const price = toMicros(item.price);
    const low = toMicros(item.low ?? item.price);
    const high = toMicros(item.high ?? item.price);
    if (item.method === 'exact' || item.method === 'derived') this.#exact = addMicros(this.#exact, price);
    else {
      this.#point = addMicros(this.#point, price);
      this.#low = addMicros(this.#low, low);
      this.#high = addMicros(this.#high, high);
    }
    this.#min = this.#min === null || low < this.#min ? low : this.#min;
    this.#max = this.#max === null || high > this.#max ? high : this.#max;
  }

  /** Adds another accumulator's sums (a step's subtotal into the total). */
  merge(other: TotalAccumulator): void {
    this.#exact = addMicros(this.#exact, other.#exact);
    this.#point = addMicros(this.#point, other.#point);
    this.#low = addMicros(this.#low, other.#low);
    this.#high = addMicros(this.#high, other.#high);
    this.#unknown += other.#unknown;
    for (const m of PRICE_METHODS) this.#counts[m] += other.#counts[m];
  }

  total(): QuoteTotal {
    return {
      exact: toUsd(this.#exact),
      estimated: { point: toUsd(this.#point), low: toUsd(this.#low), high: toUsd(this.#high) },
      point: toUsd(addMicros(this.#exact, this.#point)),
      low: toUsd(addMicros(this.#exact, this.#low)),
      high: toUsd(addMicros(this.#exact, this.#high)),
      unknown_items: this.#unknown,
    };
  }

  counts(): Record<PriceMethod, number> {
    return { ...this.#counts };
  }

  /** Lowest and highest price of a single item, or null when none is known. */
  unitRange(): { min: number; max: number } | null {
    return this.#min === null || this.#max === null ? null : { min: toUsd(this.#min), max: toUsd(this.#max) };
  }
}

/** exact + estimated point: the point estimate of a total (format 1 totals too). */
export function pointTotal(total: QuoteTotal): number {
  return total.point;
}

/** Items the run already has, and what they cost once. */
export class HaveAccumulator {
  #items = 0;
  readonly #cost = new UsdTally();

  add(held: HeldItem): void {
    this.#items++;
    this.#cost.add(held.cost ?? 0);
  }

  merge(other: HaveAccumulator): void {
    this.#items += other.#items;
    this.#cost.addMicros(other.#cost.micros);
  }

  total(): AlreadyHave {
    return { items: this.#items, cost: this.#cost.usd };
  }
}
