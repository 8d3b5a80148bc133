/**
 * Adopts, when a run is opened, the items an earlier session left `unknown` whose job a kept
 * webhook delivery named (webhooks/adoption-log.ts): a `submitted` record marked `adopted` is
 * appended to their run's journal, so the resume plan polls the job, saves its result, caches
 * it and counts its charge once, and never submits the item again. An item carried into a
 * newer run as unknown (its reason names the run that lost the answer) is adopted there.
 * Runs under the state folder's lock, before the run to continue is chosen.
 */
import { existsSync } from 'node:fs';
import type { Clock } from '../../common/index.js';
import { type Adoption, readAdoptions } from '../webhooks/index.js';
import { openJournal } from './journal.js';
import { readRunState } from './journal-replay.js';
import type { JournalEntry } from './journal-records.js';
import { carriedFrom } from './resume-plan.js';
import { type RunSummary, runPaths } from './state-dir.js';

/** Appends the adoptions kept for `runs` (newest first, one workflow's); returns how many items were adopted. */
export async function adoptKeptDeliveries(stateDir: string, runs: readonly RunSummary[], clock: Clock): Promise<number> {
  const kept = readAdoptions(stateDir);
  if (kept.length === 0 || runs.length === 0) return 0;
  const byRun = new Map<string, Adoption[]>();
  for (const adoption of kept) {
    const list = byRun.get(adoption.runId) ?? [];
    list.push(adoption);
    byRun.set(adoption.runId, list);
  }
  // The runs deliveries name, and the latest run (which may carry their unknown items).
  const candidates = runs.filter((run, i) => i === 0 || byRun.has(run.runId));
  let adopted = 0;
  for (const run of candidates) {
    const path = runPaths(stateDir, run.runId).journal;
    if (!existsSync(path)) continue;
    const entries = await adoptionsFor(path, byRun);
    if (entries.length === 0) continue;
    const journal = openJournal(path, { create: false, clock });
    try {
      for (const entry of entries) await journal.append(entry);
    } finally {
      await journal.close();
    }
    adopted += entries.length;
  }
  return adopted;
}

async function adoptionsFor(path: string, byRun: ReadonlyMap<string, readonly Adoption[]>): Promise<JournalEntry[]> {
  let state;
  try {
    state = await readRunState(path);
  } catch {
    return []; // unreadable: reported when the run itself is opened
  }
  const runId = state.run?.run_id;
  const entries: JournalEntry[] = [];
  for (const node of state.nodes.values()) {
    if (node.phase !== 'unknown' || node.requestId !== null) continue;
    // Its own submission (the last intent's attempt), or one a run it was carried from made.
    const own = runId === undefined ? undefined : byRun.get(runId)?.findLast((a) => a.node === node.node && a.attempt === node.attempt);
    const from = carriedFrom(node.reason ?? '').from;
    const carried = own === undefined && from !== undefined ? byRun.get(from)?.findLast((a) => a.node === node.node) : undefined;
    const adoption = own ?? carried;
    if (adoption === undefined) continue;
    entries.push({ t: 'submitted', node: node.node, attempt: Math.max(1, own === undefined ? adoption.attempt : node.attempt), request_id: adoption.requestId, adopted: true });
  }
  return entries;
}
