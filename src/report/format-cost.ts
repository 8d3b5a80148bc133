/**
 * Formats a USD amount for people, keeping the digits that matter: job prices are fractions
 * of a cent, so `$0.000308` must not print as `$0.0000`. From $1 up, cents (`$12.40`); from
 * 1¢, four decimals (`$0.0811`); below, three significant digits down to the micro-dollar
 * (`$0.00410`, `$0.000308`, `$0.000001`). Amounts are rounded to micro-dollars first.
 * `null` (no price known) is `—`.
 */
import { toMicros, toUsd } from '../common/index.js';

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '—';
  const micros = toMicros(usd);
  if (micros === 0) return '$0.00';
  const abs = Math.abs(toUsd(micros));
  const sign = micros < 0 ? '-' : '';
  if (abs >= 1) return `${sign}$${abs.toFixed(2)}`;
  if (abs >= 0.01) return `${sign}$${abs.toFixed(4)}`;
  const decimals = Math.min(6, 2 - Math.floor(Math.log10(abs)));
  return `${sign}$${abs.toFixed(decimals)}`;
}

/** A total as a point and its high end: `$0.0289` or `$0.0289 (up to $0.0369)`. */
export function formatPointAndHigh(point: number, high: number): string {
  const [p, h] = [formatCost(point), formatCost(high)];
  return p === h ? p : `${p} (up to ${h})`;
}

/**
 * A total that may hide unpriced items, as the point and the high end; with unpriced items it
 * is a lower bound and says so: `at least $0.0289 (1 item unpriced; the priced ones up to $0.0369)`.
 */
export function formatTotal(total: { readonly point: number; readonly high: number; readonly unknown_items: number }): string {
  if (total.unknown_items === 0) return formatPointAndHigh(total.point, total.high);
  const n = total.unknown_items;
  const [p, h] = [formatCost(total.point), formatCost(total.high)];
  return `at least ${p} (${n} item${n === 1 ? '' : 's'} unpriced${p === h ? '' : `; the priced ones up to ${h}`})`;
}
