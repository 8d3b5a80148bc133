/** `--wait-lock[=DURATION]` of `deflow run` and `deflow gc`: how long to wait for another process holding the state folder. */
import { DeflowError } from '../common/index.js';

const LOCK_WAIT_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86_400e3 };

/** `--wait-lock[=DURATION]`: ms to wait for the state folder (Infinity alone, 0 without the flag). */
export function parseWaitLock(value: string | boolean | undefined): number {
  if (value === undefined || value === false) return 0;
  if (value === true || value.trim() === '') return Number.POSITIVE_INFINITY;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (match === null) {
    throw new DeflowError('E_USAGE_OPTION', `--wait-lock: expected a duration such as 90s, 10m or 2h (or --wait-lock alone: as long as it takes), got ${JSON.stringify(value)}`, {
      details: { option: '--wait-lock' },
    });
  }
  return Number(match[1]) * (LOCK_WAIT_UNITS[match[2] ?? 's'] ?? 1e3);
}
