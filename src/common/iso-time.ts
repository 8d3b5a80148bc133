/** Epoch milliseconds as the ISO 8601 text the files and answers deflow writes carry. */

/** ISO 8601 for epoch milliseconds; `null` for null or NaN. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null || Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
