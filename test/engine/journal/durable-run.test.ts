import { appendFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/engine/journal/journal-records.js';
import { listRuns } from '../../../src/engine/journal/state-dir.js';
import { CHAIN, clips, duplicateJobs, journalOf, runDurablyIn } from './durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../run-helpers.js';

/** Fails the journal right after the n-th durable record of `type`, as if the process died there. */
function failAfter(type: JournalRecord['t'], n = 1) {
  let seen = 0;
  return {
    onAfterSync(record: JournalRecord) {
      if (record.t === type && ++seen === n) throw new Error(`injected failure after ${type} #${n}`);
    },
  };
}

const types = (records: readonly JournalRecord[]) => records.map((r) => r.t);

describe('the run journal', () => {
  it('makes the intent durable before the POST: a failure right after the intent record sends nothing', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const run = await runDurablyIn(dir, emulator, { concurrency: 1, journalHooks: failAfter('intent') });
    expect(run.outcome.status).toBe('failed');
    expect(String(run.outcome.error)).toContain('injected failure after intent #1');
    expect(emulator.stats().submissions).toBe(0);
    const records = await journalOf(dir);
    expect(types(records)).toEqual(['run', 'intent']);
    expect(records[1]).toMatchObject({ t: 'intent', node: 'transcribe/clips/c0.mp3', step: 'transcribe', attempt: 1, params_digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('makes the request id durable before polling: after a failure right after it, the next run polls that job instead of paying again', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const first = await runDurablyIn(dir, emulator, { concurrency: 1, journalHooks: failAfter('submitted') });
    expect(first.outcome.status).toBe('failed');
    expect(emulator.stats().submissions).toBe(1);
    const [job] = emulator.jobs();
    expect((await journalOf(dir)).at(-1)).toMatchObject({ t: 'submitted', node: 'transcribe/clips/c0.mp3', request_id: job!.request_id });

    const second = await runDurablyIn(dir, emulator);
    expect(second.outcome).toMatchObject({ status: 'done', resumed: true, runId: first.outcome.runId });
    // 2 transcriptions + 2 speeches: the first transcription was polled, not submitted again.
    expect(emulator.stats().submissions).toBe(4);
    expect(duplicateJobs(emulator)).toEqual([]);
    const done = second.of('item-done').find((e) => e.node.key === 'clips/c0.mp3');
    expect(done?.requestId).toBe(job!.request_id);
  });

  it('ignores a torn last line left by a crash and resumes from the records before it', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const first = await runDurablyIn(dir, emulator, { concurrency: 1, journalHooks: failAfter('done', 2) });
    expect(first.outcome.status).toBe('failed');
    const runDir = join(dir, '.deflow', 'runs', first.outcome.runId);
    await appendFile(join(runDir, 'journal.jsonl'), '{"v":1,"t":"done","node":"speak/clips/c1.mp3","ts":17');
    const notices: string[] = [];
    const second = await runDurablyIn(dir, emulator, { runId: first.outcome.runId, onOpened: (run) => notices.push(...run.notices) });
    expect(second.outcome).toMatchObject({ status: 'done', resumed: true });
    expect(notices.join('\n')).toMatch(/cut a torn last record \(\d+ bytes\)/);
    expect(duplicateJobs(emulator)).toEqual([]);
    expect(emulator.stats().submissions).toBe(4);
    const journal = await readFile(join(runDir, 'journal.jsonl'), 'utf8');
    expect(journal.endsWith('\n')).toBe(true);
    expect(journal.split('\n').filter(Boolean).every((line) => JSON.parse(line) !== null)).toBe(true);
  });

  it('resumes an interrupted run: done items are skipped, jobs in flight are polled, not submitted again', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(4) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 4000, jitter: 0.5 } });
    let interrupt: () => void = () => {};
    const interrupted = new Promise<void>((resolve) => {
      interrupt = resolve;
    });
    const first = await runDurablyIn(dir, emulator, {
      interrupted,
      graceMs: 0,
      onEvent: (event) => {
        if (event.type === 'item-done') interrupt();
      },
    });
    expect(first.outcome.status).toBe('interrupted');
    const before = emulator.jobs().length;
    const doneBefore = first.of('item-done').map((e) => `${e.node.step}/${e.node.key}`);
    const inFlight = (await journalOf(dir)).filter((r) => r.t === 'submitted').length - doneBefore.length;
    expect(inFlight).toBeGreaterThan(0);
    expect((await listRuns(join(dir, '.deflow')))[0]).toMatchObject({ status: 'interrupted' });

    const second = await runDurablyIn(dir, emulator);
    expect(second.outcome).toMatchObject({ status: 'done', resumed: true, runId: first.outcome.runId, counts: { done: 8 } });
    expect(duplicateJobs(emulator)).toEqual([]);
    expect(emulator.jobs().length).toBe(8);
    // Submitted in the second session: only what had not been submitted before.
    expect(second.of('item-submitted').filter((e) => e.attempt > 0).length).toBeGreaterThanOrEqual(8 - before);
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['c0.mp3', 'c0.txt', 'c1.mp3', 'c1.txt', 'c2.mp3', 'c2.txt', 'c3.mp3', 'c3.txt']);
  });

  it('reports an intent without a request id as unknown and never resubmits it, unless --resubmit-unknown', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    await runDurablyIn(dir, emulator, { concurrency: 1, journalHooks: failAfter('intent') });

    const second = await runDurablyIn(dir, emulator);
    expect(second.outcome).toMatchObject({ status: 'failed', exitCode: 1, counts: { unknown: 1, done: 2, skipped: 1 } });
    expect(second.of('item-unknown').map((e) => e.node.key)).toEqual(['clips/c0.mp3']);
    expect(second.of('item-unknown')[0]!.reason).toContain('no request_id');
    expect(emulator.jobs().filter((j) => j.task === 'audio.transcribe')).toHaveLength(1);

    // A later plain run keeps it unknown: the service has no idempotency key.
    const third = await runDurablyIn(dir, emulator);
    expect(third.outcome.counts.unknown).toBe(1);
    expect(emulator.jobs().filter((j) => j.task === 'audio.transcribe')).toHaveLength(1);

    const fourth = await runDurablyIn(dir, emulator, { resubmitUnknown: true });
    expect(fourth.outcome).toMatchObject({ status: 'done', counts: { unknown: 0 } });
    expect(emulator.jobs().filter((j) => j.task === 'audio.transcribe')).toHaveLength(2);
    expect(duplicateJobs(emulator)).toEqual([]);
  });

  it('two runs of one workflow started together: the second is refused before it chooses a run, nothing submitted twice', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const settled = await Promise.allSettled([runDurablyIn(dir, emulator), runDurablyIn(dir, emulator)]);
    // Whichever took the lock first runs; the other is refused.
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = settled.find((s) => s.status === 'rejected')!;
    expect(refused).toMatchObject({ reason: { code: 'E_STATE_LOCKED' } });
    expect(String(refused.reason.message)).toMatch(new RegExp(`^another deflow run \\(pid ${process.pid}, started \\S+\\) holds ${join(dir, '.deflow').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expect(emulator.stats().submissions).toBe(4);
    expect(await readdir(join(dir, '.deflow', 'runs'))).toHaveLength(1);
  });

  it('with waitLockMs the second waits for the first, then finds its run done: nothing submitted twice', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const [first, second] = await Promise.all([runDurablyIn(dir, emulator, { waitLockMs: 60_000 }), runDurablyIn(dir, emulator, { waitLockMs: 60_000 })]);
    expect(first.outcome.status).toBe('done');
    expect(second.outcome.status).toBe('done');
    expect(emulator.stats().submissions).toBe(4);
    expect(duplicateJobs(emulator)).toEqual([]);
  });
});
