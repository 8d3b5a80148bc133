/**
 * A least-squares line through a few quotes of one price class, and the check that decides
 * whether the rest of the class may be priced from it. Prices are only ever fitted when the
 * line reproduces its own points and predicts a quote it was not fitted on, both within the
 * tolerance; a step function (TikTok price bands) or any other curve is refused.
 */
import { roundUsd } from '../../common/index.js';
import type { FitCheck, FitPoint } from './quote-types.js';

/** How close a prediction must come to a quote. A prediction passes within either bound. */
export interface FitTolerance {
  /**
   * Relative bound (0.005 = 0.5 %).
   * @default 0.005
   */
  readonly relative: number;
  /**
   * Absolute bound in USD (one micro-dollar absorbs the service's rounding).
   * @default 0.000001
   */
  readonly absolute: number;
}

export const DEFAULT_FIT_TOLERANCE: FitTolerance = { relative: 0.005, absolute: 1e-6 };

export interface LinearFit {
  readonly slope: number;
  readonly intercept: number;
}

/** The least-squares line through `points` (a flat line when they share one x). */
export function fitLine(points: readonly FitPoint[]): LinearFit {
  const n = points.length;
  if (n === 0) return { slope: 0, intercept: 0 };
  const meanX = points.reduce((s, p) => s + p.x, 0) / n;
  const meanY = points.reduce((s, p) => s + p.price, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - meanX) ** 2;
    sxy += (p.x - meanX) * (p.price - meanY);
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: meanY - slope * meanX };
}

/** The line's price at `x`. */
export function predictPrice(fit: LinearFit, x: number): number {
  return fit.slope * x + fit.intercept;
}

/** True when `predicted` is within the tolerance of `quoted`. */
export function withinTolerance(predicted: number, quoted: number, tolerance: FitTolerance = DEFAULT_FIT_TOLERANCE): boolean {
  const error = Math.abs(predicted - quoted);
  // A hair of slack so a rounding error of exactly one bound is not refused by float noise.
  const slack = 1e-12;
  return error <= tolerance.absolute + slack || error <= tolerance.relative * Math.abs(quoted) + slack;
}

/** Compares the line's prediction at a held-out quote with the quote. */
export function checkFit(fit: LinearFit, heldOut: FitPoint, tolerance: FitTolerance = DEFAULT_FIT_TOLERANCE): FitCheck {
  const predicted = predictPrice(fit, heldOut.x);
  const error = predicted - heldOut.price;
  const errorPct = heldOut.price === 0 ? (error === 0 ? 0 : 100) : (Math.abs(error) / Math.abs(heldOut.price)) * 100;
  return {
    x: heldOut.x,
    quoted: heldOut.price,
    predicted: roundUsd(predicted),
    error: roundUsd(error, 9),
    error_pct: Number(errorPct.toFixed(4)),
    accepted: withinTolerance(predicted, heldOut.price, tolerance),
  };
}

/** The outcome of fitting a class: the line, and whether it may be used. */
export interface FitOutcome {
  readonly fit: LinearFit;
  readonly check: FitCheck;
  /** The line reproduces its own points and the held-out check passed. */
  readonly accepted: boolean;
  /** Why it was refused, when it was. */
  readonly refusal?: string;
}

/** Fits a line on `points`, then checks it against its own points and the held-out quote. */
export function fitAndCheck(points: readonly FitPoint[], heldOut: FitPoint, tolerance: FitTolerance = DEFAULT_FIT_TOLERANCE): FitOutcome {
  const fit = fitLine(points);
  const check = checkFit(fit, heldOut, tolerance);
  const off = points.find((p) => !withinTolerance(predictPrice(fit, p.x), p.price, tolerance));
  if (off) return { fit, check, accepted: false, refusal: `the line misses its own quote at x=${off.x} (not linear)` };
  if (!check.accepted) {
    return { fit, check, accepted: false, refusal: `held-out quote at x=${heldOut.x} is off by ${check.error_pct}% (not linear)` };
  }
  return { fit, check, accepted: true };
}

/** Which values of a class to quote: three spread points to fit on, and one to hold out. */
export interface FitPlan {
  readonly fitOn: readonly number[];
  readonly heldOut: number;
}

/**
 * Picks the minimum, the maximum and the median of `values` to fit on, and the value nearest
 * the lower quartile (between min and median) to hold out. Needs at least 4 distinct values.
 */
export function planFitPoints(values: readonly number[]): FitPlan | undefined {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const n = sorted.length;
  if (n < 4) return undefined;
  const mid = Math.floor((n - 1) / 2);
  const fitOn = [sorted[0]!, sorted[mid]!, sorted[n - 1]!];
  let quartile = Math.max(1, Math.round((n - 1) / 4));
  if (quartile === mid) quartile = mid + 1 < n - 1 ? mid + 1 : mid - 1;
  return { fitOn, heldOut: sorted[quartile]! };
}
