/**
 * `poll-rates.json` in the state folder: the poll estimator's learned keys (each task and model's
 * duration, per unit of input for measured jobs, and the share of a job's life spent queued),
 * written when a run ends and read when the next starts, so its first polls are placed from the
 * start instead of after a search (docs/running.md, Polling). A missing, unreadable or foreign
 * file is ignored: the estimator starts from its priors, as it would without the file.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../../../common/index.js';
import type { LearnedKey, PollEstimator } from './poll-estimator.js';

/** The file's name in the state folder. */
export const POLL_MEMORY_FILE = 'poll-rates.json';

const VERSION = 1;

interface PollMemoryFile {
  readonly version: number;
  readonly keys: ReadonlyArray<{ task: string; model: string; per_input: boolean; estimate_ms: number; queued_share: number; share_samples: number; unit_size?: number }>;
}

/** Keys of a measured job end with this part (job-runner.ts). */
export const PER_INPUT_SUFFIX = '\u0000per-input';

function toKey(entry: PollMemoryFile['keys'][number]): string {
  return `${entry.task}\u0000${entry.model}${entry.per_input ? PER_INPUT_SUFFIX : ''}`;
}

function fromKey(learned: LearnedKey): PollMemoryFile['keys'][number] | undefined {
  const perInput = learned.key.endsWith(PER_INPUT_SUFFIX);
  const bare = perInput ? learned.key.slice(0, -PER_INPUT_SUFFIX.length) : learned.key;
  const [task, model, extra] = bare.split('\u0000');
  if (task === undefined || model === undefined || extra !== undefined) return undefined;
  const unit = learned.unitSize === undefined ? {} : { unit_size: learned.unitSize };
  return { task, model, per_input: perInput, estimate_ms: Math.round(learned.estimateMs * 1000) / 1000, queued_share: Math.round(learned.queuedShare * 10_000) / 10_000, share_samples: learned.shareSamples, ...unit };
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Restores what an earlier run of `stateDir` learned into `estimator` (nothing when there is no usable file). */
export async function loadPollMemory(stateDir: string, estimator: PollEstimator): Promise<number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(stateDir, POLL_MEMORY_FILE), 'utf8'));
  } catch {
    return 0;
  }
  const file = parsed as Partial<PollMemoryFile> | null;
  if (file === null || typeof file !== 'object' || file.version !== VERSION || !Array.isArray(file.keys)) return 0;
  const learned: LearnedKey[] = [];
  for (const entry of file.keys) {
    if (typeof entry?.task !== 'string' || typeof entry.model !== 'string' || typeof entry.per_input !== 'boolean') continue;
    if (!isNumber(entry.estimate_ms) || !isNumber(entry.queued_share) || !isNumber(entry.share_samples)) continue;
    // A measured key's estimate means nothing without the size it is for.
    if (entry.per_input && !isNumber(entry.unit_size)) continue;
    learned.push({ key: toKey(entry), estimateMs: entry.estimate_ms, queuedShare: entry.queued_share, shareSamples: entry.share_samples, unitSize: entry.per_input ? entry.unit_size : undefined });
  }
  estimator.restore(learned);
  return learned.length;
}

/** Writes what `estimator` knows now (the earlier file's keys it restored included). Nothing learned: the file is left alone. */
export async function savePollMemory(stateDir: string, estimator: PollEstimator): Promise<void> {
  const keys = estimator.snapshot().map(fromKey).filter((k) => k !== undefined);
  if (keys.length === 0) return;
  keys.sort((a, b) => toKey(a).localeCompare(toKey(b)));
  const file: PollMemoryFile = { version: VERSION, keys };
  await writeFileAtomically(join(stateDir, POLL_MEMORY_FILE), `${JSON.stringify(file, null, 2)}\n`, { makeFolder: true });
}
