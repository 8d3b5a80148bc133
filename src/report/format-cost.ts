/**
 * Formats a USD amount for people: 4 decimals below $10 (job prices are fractions of a cent,
 * so `$0.0123` must not round to `$0.01`), 2 decimals from $10 up. `null` (no price known) is `—`.
 */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '—';
  const abs = Math.abs(usd);
  const sign = usd < 0 && abs >= 0.00005 ? '-' : '';
  return `${sign}$${abs.toFixed(abs < 10 ? 4 : 2)}`;
}
