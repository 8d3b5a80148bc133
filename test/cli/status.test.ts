import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { JournalRecord } from '../../src/engine/journal/journal-records.js';
import { acquireLock } from '../../src/engine/journal/lock-file.js';
import { runPaths } from '../../src/engine/journal/state-dir.js';
import { CHAIN, clips, runDurablyIn } from '../engine/journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../engine/run-helpers.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';

async function status(dir: string, args: string[] = []): Promise<{ code: number; io: FakeCliIO }> {
  const io = createFakeCliIO(dir);
  return { code: await runCli(['status', ...args], io), io };
}

/** Fails the journal right after the first intent, as if the process died between journalling and sending. */
const dieAfterFirstIntent = {
  onAfterSync(record: JournalRecord) {
    if (record.t === 'intent') throw new Error('died');
  },
};

describe('deflow status', () => {
  it('says so when the state folder has no runs (exit 2)', async () => {
    const dir = await useWorkspace({});
    const { code, io } = await status(dir, ['--state-dir', '.deflow']);
    expect(code).toBe(2);
    expect(io.stderrText()).toContain(`${join(dir, '.deflow')}: no runs in this state folder (pass --state-dir to look elsewhere)`);
  });

  it('prints counts per step, each unknown item with its reason, and JSON with --json', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    await runDurablyIn(dir, emulator, { concurrency: 1, journalHooks: dieAfterFirstIntent });
    const second = await runDurablyIn(dir, emulator);
    // Clips are sent longest first: c2 (2.1 s) is the first intent, the one left unknown.

    const text = await status(dir, [second.outcome.runId]);
    expect(text.code).toBe(0);
    const out = text.io.stdoutText();
    expect(out).toContain(`run ${second.outcome.runId}: failed`);
    expect(out).toMatch(/STEP\s+DONE\s+CACHED\s+RUNNING\s+UNKNOWN\s+FAILED\s+SKIPPED\s+SPENT/);
    expect(out).toMatch(/transcribe\s+2\s+0\s+0\s+1\s+0\s+0\s+\$/);
    expect(out).toMatch(/speak\s+2\s+0\s+0\s+0\s+0\s+1\s+\$/);
    expect(out).toContain('unknown items (1): the service may or may not have created their jobs; deflow never submits them again unless --resubmit-unknown is given');
    expect(out).toContain('  transcribe/clips/c2.mp3: intent journalled but no request_id');

    const json = await status(dir, ['workflow.yaml', '--json']);
    const parsed = JSON.parse(json.io.stdoutText());
    expect(parsed).toMatchObject({ format_version: 2, run_id: second.outcome.runId, status: 'failed', active: false, resume_command: null, torn_tail: false });
    expect(parsed.steps).toEqual([
      expect.objectContaining({ step: 'transcribe', done: 2, unknown: 1 }),
      expect.objectContaining({ step: 'speak', done: 2, skipped: 1 }),
    ]);
    expect(parsed.unknowns).toEqual([expect.objectContaining({ node: 'transcribe/clips/c2.mp3', request_id: null })]);
  });

  it('shows the command that resumes an interrupted run, and finds runs by id or by workflow file', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 4000 } });
    let interrupt: () => void = () => {};
    const interrupted = new Promise<void>((resolve) => {
      interrupt = resolve;
    });
    const run = await runDurablyIn(dir, emulator, {
      stateDir: join(dir, 'state'),
      interrupted,
      graceMs: 0,
      onEvent: (event) => {
        if (event.type === 'item-submitted') interrupt();
      },
    });
    expect(run.outcome.status).toBe('interrupted');
    const byId = await status(dir, [run.outcome.runId, '--state-dir', 'state']);
    expect(byId.code).toBe(0);
    expect(byId.io.stdoutText()).toContain(`run ${run.outcome.runId}: interrupted`);
    expect(byId.io.stdoutText()).toContain(`resume: deflow run workflow.yaml --state-dir state --run-id ${run.outcome.runId}`);
    const byWorkflow = await status(dir, ['workflow.yaml', '--state-dir', 'state', '--json']);
    expect(JSON.parse(byWorkflow.io.stdoutText())).toMatchObject({ run_id: run.outcome.runId, status: 'interrupted' });
    const missing = await status(dir, ['no-such-run', '--state-dir', 'state']);
    expect(missing.code).toBe(2);
    expect(missing.io.stderrText()).toContain('no run "no-such-run"');
  });

  it('says when a process is writing the run now, and offers no resume command then', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const run = await runDurablyIn(dir, emulator);
    const lock = acquireLock(runPaths(join(dir, '.deflow'), run.outcome.runId).lock);
    try {
      const { io } = await status(dir, [run.outcome.runId, '--json']);
      expect(JSON.parse(io.stdoutText())).toMatchObject({ active: true, resume_command: null });
      expect((await status(dir, [run.outcome.runId])).io.stdoutText()).toContain('(a process is writing it now)');
    } finally {
      lock.release();
    }
  });

  it('with no argument lists the runs of every state folder below the current folder, newest first', async () => {
    const dir = await useWorkspace({ 'a/workflow.yaml': CHAIN, ...prefixed('a/', clips(1)), 'b/deep/workflow.yaml': CHAIN, ...prefixed('b/deep/', clips(1)) });
    const empty = await status(dir);
    expect(empty.code).toBe(0);
    expect(empty.io.stdoutText()).toContain(`no runs under ${dir}`);
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const first = await runDurablyIn(join(dir, 'a'), emulator);
    const second = await runDurablyIn(join(dir, 'b/deep'), emulator);
    const json = await status(dir, ['--json']);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.io.stdoutText()) as { format_version: number; runs: { run_id: string; state_dir: string; status: string }[] };
    expect(listed.format_version).toBe(2);
    expect(listed.runs.map((r) => [r.run_id, r.state_dir, r.status])).toEqual([
      [second.outcome.runId, join(dir, 'b/deep/.deflow'), 'done'],
      [first.outcome.runId, join(dir, 'a/.deflow'), 'done'],
    ]);
    const text = (await status(dir)).io.stdoutText();
    expect(text).toMatch(/RUN\s+STATUS\s+WORKFLOW\s+STARTED\s+FINISHED/);
    expect(text.indexOf(second.outcome.runId)).toBeLessThan(text.indexOf(first.outcome.runId));
    expect(text).toContain('b/deep/workflow.yaml');
    // A run id found below the current folder, without --state-dir.
    expect((await status(dir, [first.outcome.runId])).io.stdoutText()).toContain(`run ${first.outcome.runId}: done`);
  });
});

function prefixed(prefix: string, files: Record<string, Buffer>): Record<string, Buffer> {
  return Object.fromEntries(Object.entries(files).map(([path, content]) => [`${prefix}${path}`, content]));
}
