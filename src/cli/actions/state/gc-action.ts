/** What `deflow gc` does (gc.ts defines the command). */
import { relative, resolve } from 'node:path';
import { DeflowError, EXIT, STATE_DIR_NAME } from '../../../common/index.js';
import type { CliIO } from '../../../common/index.js';
import { collectGarbage, resolveStateDir } from '../../../engine/index.js';
import { parseWaitLock } from '../../wait-lock.js';

export interface GcFlags {
  readonly keepDays: string;
  readonly maxSize?: string;
  readonly dryRun?: boolean;
  readonly stateDir?: string;
  readonly json?: boolean;
  /** `--wait-lock[=DURATION]`: wait for a run holding the state folder instead of exiting 2. */
  readonly waitLock?: string | boolean;
}

const UNITS: Readonly<Record<string, number>> = { '': 1, B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** `500M`, `2G`, `10GB`, `1.5GiB`, `1048576`: bytes (powers of 1024). */
export function parseSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:([KMGT])(?:i?B)?|B)?\s*$/i.exec(text);
  if (!match) {
    throw new DeflowError('E_USAGE_OPTION', `--max-size: expected a size such as 500M, 2G or 10GB (powers of 1024), got ${JSON.stringify(text)}`, { details: { option: '--max-size' } });
  }
  return Math.floor(Number(match[1]) * UNITS[(match[2] ?? '').toUpperCase()]!);
}

export async function runGc(workflow: string | undefined, flags: GcFlags, io: CliIO): Promise<number> {
  const keepDays = Number(flags.keepDays);
  if (flags.keepDays.trim() === '' || !Number.isFinite(keepDays) || keepDays < 0) {
    throw new DeflowError('E_USAGE_OPTION', `--keep-days: expected a number of days ≥ 0, got ${JSON.stringify(flags.keepDays)}`, { details: { option: '--keep-days' } });
  }
  const maxBytes = flags.maxSize === undefined ? undefined : parseSize(flags.maxSize);
  const waitLockMs = parseWaitLock(flags.waitLock);
  const stateDir =
    workflow === undefined
      ? resolve(io.cwd, flags.stateDir ?? STATE_DIR_NAME)
      : resolveStateDir({ workflowPath: workflow, stateDir: flags.stateDir, cwd: io.cwd });
  // Holding the state folder's lock: beside a live run it exits 2 naming the run, or waits with --wait-lock.
  const result = await collectGarbage({
    stateDir,
    keepDays,
    maxBytes,
    dryRun: flags.dryRun === true,
    waitLockMs,
    onLockWait: (message) => io.stderr.write(`deflow: ${message}\n`),
    interrupted: io.interrupted,
  });
  if (flags.json) {
    io.stdout.write(`${JSON.stringify({ state_dir: stateDir, ...result })}\n`);
    return EXIT.ok;
  }
  const shown = relative(io.cwd, stateDir) || '.';
  const verb = result.dryRun ? 'would free' : 'freed';
  io.stdout.write(
    [
      `${shown}: ${verb} ${formatBytes(result.freedBytes)}: ${result.runs.removed.length} finished run(s), ${result.cacheEntries} cache entr${result.cacheEntries === 1 ? 'y' : 'ies'}, ${result.blobs} blob(s); ` +
        `${formatBytes(result.beforeBytes)} -> ${formatBytes(result.afterBytes)}`,
      ...result.runs.needed.map((n) => `kept run ${n.runId}: ${n.why}`),
      ...(result.runs.removed.length > 0 ? [`${result.dryRun ? 'would remove' : 'removed'} run(s): ${result.runs.removed.join(', ')}`] : []),
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
