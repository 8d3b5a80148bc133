/**
 * Helpers for durable-run tests: `runDurably` in a workspace against an emulator, with every
 * event captured, and the journal read back.
 */
import { join } from 'node:path';
import type { RunningEmulator } from '../../../src/emulator/start-emulator.js';
import type { RunEvent } from '../../../src/engine/contracts/events.js';
import { readJournal } from '../../../src/engine/journal/journal-replay.js';
import type { JournalRecord } from '../../../src/engine/journal/journal-records.js';
import { type DurableOutcome, type RunDurablyInternals, runDurablyWith } from '../../../src/engine/run-durably.js';
import { listRuns, runPaths } from '../../../src/engine/journal/state-dir.js';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { clientFor, graphOf } from '../run-helpers.js';
import { transcribeThenSpeak } from '../../fixtures/workflows.js';

/** Transcribe every clip, then speak each transcript; both saved. */
export const CHAIN = transcribeThenSpeak('durable');

/** `n` clips of distinct content (`clips/c0.mp3`, …), numbered from `from`. */
export function clips(n: number, from = 0): Record<string, Buffer> {
  // 50 ms apart: at least two 24 ms frames, so no two files are equal.
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`clips/c${from + i}.mp3`, makeMp3(2 + (from + i) * 0.05)]));
}

export interface DurableRunResult {
  readonly outcome: DurableOutcome;
  readonly events: RunEvent[];
  of<T extends RunEvent['type']>(type: T): Extract<RunEvent, { type: T }>[];
}

/** `runDurably` on the workflow in `dir` (state in `dir/.deflow`), events captured. */
export async function runDurablyIn(
  dir: string,
  emulator: RunningEmulator,
  options: Partial<Omit<RunDurablyInternals, 'graph' | 'onEvent'>> & { onEvent?: (event: RunEvent) => void } = {},
): Promise<DurableRunResult> {
  const graph = await graphOf(dir);
  const events: RunEvent[] = [];
  const outcome = await runDurablyWith({
    client: options.client ?? clientFor(emulator),
    stateDir: join(dir, '.deflow'),
    ...options,
    graph,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  return { outcome, events, of: <T extends RunEvent['type']>(type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type) };
}

/** The records of the journal of run `runId` (the latest run when omitted). */
export async function journalOf(dir: string, runId?: string): Promise<JournalRecord[]> {
  const stateDir = join(dir, '.deflow');
  const id = runId ?? (await listRuns(stateDir))[0]!.runId;
  return (await readJournal(runPaths(stateDir, id).journal)).records;
}

/** Submissions the emulator saw more than once: same task and parameters (file contents included). */
export function duplicateJobs(emulator: RunningEmulator): string[] {
  const seen = new Map<string, number>();
  for (const job of emulator.jobs()) seen.set(`${job.task} ${job.params_digest}`, (seen.get(`${job.task} ${job.params_digest}`) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([key]) => key);
}
