/**
 * Formats a duration for people: `850ms`, `12.3s`, `4m 05s`, `2h 03m`. `null`, negative or
 * non-finite values (a timing that was never measured) are `—`.
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  // Below 59.95 s one decimal still reads well; above it `60.0s` would, so switch to minutes.
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)}s`;
  const total = Math.round(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours === 0) return `${minutes}m ${pad2(seconds)}s`;
  return `${hours}h ${pad2(minutes)}m`;
}

/**
 * A duration measured on the run's clock, for people: real time, and on the emulator's
 * accelerated clock (`timeScale` virtual seconds per real second) its virtual time beside it,
 * labelled: `1.2s (28.5s virtual)`.
 */
export function formatRunDuration(ms: number | null | undefined, timeScale = 1): string {
  if (timeScale === 1 || !(timeScale > 0) || ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return formatDuration(ms);
  return `${formatDuration(ms / timeScale)} (${formatDuration(ms)} virtual)`;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
