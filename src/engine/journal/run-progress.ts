/**
 * A run's progress as its journal tells it, for `deflow status`: per step, how many items
 * are done (and how many of those came from the cache), in flight, unknown, failed and
 * skipped, plus every unknown item by name. Read-only: a live run keeps writing meanwhile.
 */
import type { NodeState, RunState as ReplayedRun } from './replayed-state.js';
import type { RecordOf } from './journal-records.js';
import { WITHDRAWN_PREFIX } from './journal-recorder.js';

export interface StepProgress {
  readonly step: string;
  done: number;
  /** Done items served from the cache (also counted in `done`). */
  cached: number;
  /** Submitted and not finished: polled on resume. */
  running: number;
  /** Submitted or not, nobody can tell. */
  unknown: number;
  failed: number;
  skipped: number;
  /** Refused before a job existed (a daily limit, a refusal): submitted on resume. */
  withdrawn: number;
  /** Paid, not saved: a re-run fetches the result again (never pays again). */
  unsaved: number;
  /** Waiting for its pool's daily window to refill: submitted by a run after the reset. */
  deferred: number;
  /** Its job ran past the step's timeout and may still finish: the next run polls it and adopts its result. */
  timed_out: number;
  /** USD charged by the done items, as far as the journal knows. */
  cost: number;
}

export interface RunProgress {
  /** Steps in the order the journal first mentions them. */
  readonly steps: readonly StepProgress[];
  readonly unknowns: readonly { readonly node: string; readonly reason: string; readonly requestId: string | null }[];
  /** Items paid for whose result is not saved, by name, with their job and why. */
  readonly unsaved: readonly { readonly node: string; readonly reason: string; readonly requestId: string | null; readonly lost: boolean }[];
  /** Items whose job timed out, by name, with their job (polled and adopted by the next run). */
  readonly timedOut: readonly { readonly node: string; readonly reason: string; readonly requestId: string }[];
  /** Items not finished for a retryable reason (in flight, withdrawn, retryable failure). */
  readonly resumable: number;
  /** Items whose lost submission answer a webhook delivery naming them stood in for, with their job. */
  readonly adopted: readonly { readonly node: string; readonly requestId: string }[];
}

/** Counts the replayed nodes of a journal per step. */
export function summariseProgress(run: ReplayedRun): RunProgress {
  const steps = new Map<string, StepProgress>();
  const unknowns: { node: string; reason: string; requestId: string | null }[] = [];
  const unsaved: { node: string; reason: string; requestId: string | null; lost: boolean }[] = [];
  const timedOut: { node: string; reason: string; requestId: string }[] = [];
  let resumable = 0;
  const adopted: { node: string; requestId: string }[] = [];
  for (const node of run.nodes.values()) {
    if (node.adopted && node.requestId !== null) adopted.push({ node: node.node, requestId: node.requestId });
    const id = node.step ?? stepOf(node.node);
    let step = steps.get(id);
    if (step === undefined) {
      step = { step: id, done: 0, cached: 0, running: 0, unknown: 0, failed: 0, skipped: 0, withdrawn: 0, unsaved: 0, deferred: 0, timed_out: 0, cost: 0 };
      steps.set(id, step);
    }
    if (node.phase === 'paid') {
      step.unsaved++;
      step.cost += node.paid?.cost ?? 0;
      unsaved.push({ node: node.node, reason: node.reason ?? 'its result is being fetched', requestId: node.requestId, lost: node.lost });
      if (!node.lost) resumable++;
      continue;
    }
    if (node.phase === 'timed-out') {
      step.timed_out++;
      timedOut.push({ node: node.node, reason: node.reason ?? 'timed out', requestId: node.requestId! });
      resumable++;
      continue;
    }
    resumable += count(step, node, unknowns);
  }
  return { steps: [...steps.values()], unknowns, unsaved, timedOut, resumable, adopted };
}

/** Adds one node to its step; returns 1 when a resume would still work on it. */
function count(step: StepProgress, node: NodeState, unknowns: { node: string; reason: string; requestId: string | null }[]): number {
  switch (node.phase) {
    case 'done': {
      step.done++;
      step.cost += (node.last as RecordOf<'done'>).cost ?? 0;
      if (node.attempt === 0 && node.cacheKey !== null) step.cached++;
      return 0;
    }
    case 'submitted':
      step.running++;
      return 1;
    case 'unknown':
      if (node.requestId !== null) {
        // Its job exists; only its status could not be read: resume polls it.
        step.running++;
        return 1;
      }
      step.unknown++;
      unknowns.push({ node: node.node, reason: node.reason ?? 'unknown', requestId: null });
      return 0;
    case 'paid': // counted by the caller
    case 'timed-out':
      return 0;
    case 'failed': {
      step.failed++;
      return (node.last as RecordOf<'failed'>).retryable ? 1 : 0;
    }
    case 'deferred':
      step.deferred++;
      return 1;
    case 'skipped':
    case 'cached':
      if (node.reason?.startsWith(WITHDRAWN_PREFIX)) {
        step.withdrawn++;
        return 1;
      }
      step.skipped++;
      return 0;
  }
}

function stepOf(name: string): string {
  const slash = name.indexOf('/');
  return slash > 0 ? name.slice(0, slash) : name;
}
