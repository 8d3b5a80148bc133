/**
 * `<stateDir>/adoptions.jsonl`: verified deliveries that name a submission of this state
 * folder (webhook-correlation.ts) with a job its run may not know, one JSON line each, fsynced
 * before the delivery is answered. The next session that opens the run adopts from it the
 * items it left `unknown` (journal/adopt-deliveries.ts), whichever session received them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendLineDurable } from '../../common/index.js';
import type { Correlation } from './webhook-correlation.js';

export const ADOPTIONS_FILE = 'adoptions.jsonl';

/** One kept delivery: the submission its URL names and the job it reports on. */
export interface Adoption extends Correlation {
  readonly requestId: string;
}

/** Keeps one delivery durably (throws when it cannot: the delivery is then not answered 2xx). */
export function appendAdoption(stateDir: string, adoption: Adoption): void {
  appendLineDurable(join(stateDir, ADOPTIONS_FILE), JSON.stringify({ run: adoption.runId, node: adoption.node, attempt: adoption.attempt, request_id: adoption.requestId }));
}

/** Every kept delivery, oldest first (a torn or foreign line is skipped). */
export function readAdoptions(stateDir: string): Adoption[] {
  let text: string;
  try {
    text = readFileSync(join(stateDir, ADOPTIONS_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const adoptions: Adoption[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as Record<string, unknown>;
      const { run, node, attempt, request_id: requestId } = value;
      if (typeof run === 'string' && typeof node === 'string' && typeof attempt === 'number' && typeof requestId === 'string') adoptions.push({ runId: run, node, attempt, requestId });
    } catch {
      // A torn last line (a crash mid-append): its delivery was never answered, so it comes again.
    }
  }
  return adoptions;
}
