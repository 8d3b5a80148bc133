/**
 * Money, the one way: USD amounts are summed and compared in whole micro-dollars
 * ({@link Micros}, 1 USD = 1,000,000), so ten thousand items add up without floating-point
 * drift, and given back as USD numbers rounded to the micro-dollar (what quotes, journals,
 * reports and events carry on disk: plain JSON numbers, unchanged). Nothing else in src
 * multiplies or divides by a million (eslint.config.js refuses it outside this file).
 */

declare const MICROS: unique symbol;

/** An amount in whole micro-dollars. Made only here (from USD, or by adding two of them). */
export type Micros = number & { readonly [MICROS]: true };

/** Micro-dollars in one dollar. */
export const MICROS_PER_USD = 1_000_000;

/** No money. */
export const ZERO: Micros = 0 as Micros;

/** USD → micro-dollars, to the nearest one (`NaN` stays `NaN`). */
export function toMicros(usd: number): Micros {
  return Math.round(usd * MICROS_PER_USD) as Micros;
}

/**
 * USD → micro-dollars, rounded up: an amount held against a budget never falls short by
 * rounding (a float a hair above a whole micro-dollar, such as 0.1 + 0.2, is not rounded up).
 */
export function toMicrosUp(usd: number): Micros {
  return Math.ceil(usd * MICROS_PER_USD - 1e-6) as Micros;
}

/**
 * USD → micro-dollars, rounded down: a cap (`--max-cost`, a balance) allows no part of a
 * micro-dollar more than it says (a float a hair below a whole micro-dollar is not rounded down).
 */
export function toMicrosDown(usd: number): Micros {
  return Math.floor(usd * MICROS_PER_USD + 1e-6) as Micros;
}

/** Micro-dollars (a {@link Micros}, or an integer count such as the emulator's prices) → USD. */
export function toUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}

/** The sum of micro-dollar amounts. */
export function addMicros(...amounts: readonly Micros[]): Micros {
  let sum = 0;
  for (const a of amounts) sum += a;
  return sum as Micros;
}

/** `a - b`, never below zero. */
export function subtractMicros(a: Micros, b: Micros): Micros {
  return Math.max(0, a - b) as Micros;
}

/**
 * USD rounded to the micro-dollar (`decimals` 6), or to another number of decimals (a price
 * fit's error is kept to the nano-dollar, 9).
 */
export function roundUsd(usd: number, decimals = 6): number {
  if (decimals === 6) return toUsd(toMicros(usd));
  const scale = 10 ** decimals;
  return Math.round(usd * scale) / scale;
}

/** USD amounts added in micro-dollars, given back in USD. */
export function sumUsd(amounts: Iterable<number>): number {
  let sum = 0;
  for (const usd of amounts) sum += toMicros(usd);
  return toUsd(sum);
}

/** `$0.123457`: an amount as messages state it, to the micro-dollar, without trailing zeros. */
export function formatUsd(usd: number): string {
  return `$${roundUsd(usd)}`;
}

/** A running USD total kept in micro-dollars. */
export class UsdTally {
  #micros = 0;

  /** Adds an amount in USD (rounded to the micro-dollar first). */
  add(usd: number): this {
    this.#micros += toMicros(usd);
    return this;
  }

  /** Adds an amount in micro-dollars. */
  addMicros(micros: Micros): this {
    this.#micros += micros;
    return this;
  }

  get micros(): Micros {
    return this.#micros as Micros;
  }

  get usd(): number {
    return toUsd(this.micros);
  }
}
