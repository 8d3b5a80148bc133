/**
 * Sums of quoted prices. Summed in whole micro-dollars so a thousand items add up without
 * floating-point drift, then given back in USD.
 */
import { type AlreadyHave, type HeldItem, PRICE_METHODS, type PriceMethod, type QuotedItem, type QuoteTotal } from './quote-types.js';

const micros = (usd: number): number => Math.round(usd * 1e6);

/** A running total of quoted items. */
export class TotalAccumulator {
  #exact = 0;
  #point = 0;
  #low = 0;
  #high = 0;
  #unknown = 0;
  readonly #counts: Record<PriceMethod, number> = Object.fromEntries(PRICE_METHODS.map((m) => [m, 0])) as Record<PriceMethod, number>;
  #min: number | null = null;
  #max: number | null = null;

  add(item: QuotedItem): void {
    this.#counts[item.method]++;
    if (item.method === 'unknown' || item.price === null) {
      this.#unknown++;
      return;
    }
    const price = micros(item.price);
    const low = micros(item.low ?? item.price);
    const high = micros(item.high ?? item.price);
    if (item.method === 'exact' || item.method === 'derived') this.#exact += price;
    else {
      this.#point += price;
      this.#low += low;
      this.#high += high;
    }
    this.#min = this.#min === null ? low : Math.min(this.#min, low);
    this.#max = this.#max === null ? high : Math.max(this.#max, high);
  }

  /** Adds another accumulator's sums (a step's subtotal into the total). */
  merge(other: TotalAccumulator): void {
    this.#exact += other.#exact;
    this.#point += other.#point;
    this.#low += other.#low;
    this.#high += other.#high;
    this.#unknown += other.#unknown;
    for (const m of PRICE_METHODS) this.#counts[m] += other.#counts[m];
  }

  total(): QuoteTotal {
    return {
      exact: this.#exact / 1e6,
      estimated: { point: this.#point / 1e6, low: this.#low / 1e6, high: this.#high / 1e6 },
      point: (this.#exact + this.#point) / 1e6,
      low: (this.#exact + this.#low) / 1e6,
      high: (this.#exact + this.#high) / 1e6,
      unknown_items: this.#unknown,
    };
  }

  counts(): Record<PriceMethod, number> {
    return { ...this.#counts };
  }

  /** Lowest and highest price of a single item, or null when none is known. */
  unitRange(): { min: number; max: number } | null {
    return this.#min === null || this.#max === null ? null : { min: this.#min / 1e6, max: this.#max / 1e6 };
  }
}

/** exact + estimated point: the point estimate of a total (format 1 totals too). */
export function pointTotal(total: QuoteTotal): number {
  return total.point;
}

/** Items the run already has, and what they cost once. */
export class HaveAccumulator {
  #items = 0;
  #cost = 0;

  add(held: HeldItem): void {
    this.#items++;
    this.#cost += micros(held.cost ?? 0);
  }

  merge(other: HaveAccumulator): void {
    this.#items += other.#items;
    this.#cost += other.#cost;
  }

  total(): AlreadyHave {
    return { items: this.#items, cost: this.#cost / 1e6 };
  }
}
