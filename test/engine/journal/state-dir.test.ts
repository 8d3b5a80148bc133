import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../../src/common/clock.js';
import { acquireLock } from '../../../src/engine/journal/lock-file.js';
import {
  assertRunId,
  createRunDir,
  findResumableRun,
  listRuns,
  newRunId,
  type RunMeta,
  readRunMeta,
  resolveStateDir,
  runPaths,
  writeRunMeta,
} from '../../../src/engine/journal/state-dir.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deflow-state-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function meta(runId: string, status: RunMeta['status'], startedAt: number, digest = 'd1'): RunMeta {
  return { v: 1, run_id: runId, workflow: '/w/podcast.yaml', workflow_digest: digest, status, started_at: startedAt, finished_at: status === 'running' ? null : startedAt + 1 };
}
function addRun(runId: string, status: RunMeta['status'], startedAt: number, digest = 'd1'): void {
  createRunDir(dir, runId);
  writeRunMeta(dir, meta(runId, status, startedAt, digest));
}

describe('state folder', () => {
  it('defaults to .deflow beside the workflow; --state-dir overrides it', () => {
    expect(resolveStateDir({ workflowPath: 'flows/podcast.yaml', cwd: '/home/u/proj' })).toBe('/home/u/proj/flows/.deflow');
    expect(resolveStateDir({ workflowPath: 'flows/podcast.yaml', stateDir: 'state', cwd: '/home/u/proj' })).toBe('/home/u/proj/state');
    expect(resolveStateDir({ workflowPath: 'podcast.yaml', stateDir: '/var/deflow', cwd: '/x' })).toBe('/var/deflow');
  });

  it('lays a run out as runs/<id>/journal.jsonl and run.json', () => {
    expect(runPaths('/s', '20261122-230000-abcd')).toEqual({
      dir: '/s/runs/20261122-230000-abcd',
      journal: '/s/runs/20261122-230000-abcd/journal.jsonl',
      lock: '/s/runs/20261122-230000-abcd/journal.jsonl.lock',
      meta: '/s/runs/20261122-230000-abcd/run.json',
    });
  });

  it('makes sortable run ids from the clock (UTC)', () => {
    const id = newRunId(createVirtualClock({ startMs: Date.UTC(2026, 10, 22, 23, 5, 9), timeScale: 1e-9 }));
    expect(id).toMatch(/^20261122-230509-[0-9a-f]{4}$/);
    const later = newRunId(createVirtualClock({ startMs: Date.UTC(2026, 10, 23, 0, 0, 0), timeScale: 1e-9 }));
    expect(later > id).toBe(true);
  });

  it('refuses run ids that are not plain folder names', () => {
    for (const bad of ['../x', 'a/b', '', '.hidden', 'a..b', 'x'.repeat(129)]) {
      expect(() => assertRunId(bad), bad).toThrow(expect.objectContaining({ code: 'E_USAGE_RUN_ID' }));
    }
    assertRunId('nightly-2026.11.22_1');
  });

  it('writes run.json atomically and reads it back', async () => {
    addRun('r1', 'running', 100);
    writeRunMeta(dir, meta('r1', 'done', 100));
    expect(await readRunMeta(dir, 'r1')).toEqual(meta('r1', 'done', 100));
    expect(readdirSync(runPaths(dir, 'r1').dir)).toEqual(['run.json']);
    expect(await readRunMeta(dir, 'missing')).toBeUndefined();
  });

  it('lists runs newest first; a running run without a live lock is crashed', async () => {
    addRun('20261101-000000-aaaa', 'done', 1_000);
    addRun('20261102-000000-bbbb', 'running', 2_000);
    addRun('20261103-000000-cccc', 'running', 3_000);
    const lock = acquireLock(runPaths(dir, '20261103-000000-cccc').lock);
    createRunDir(dir, '20261104-000000-dddd'); // died before writing run.json
    try {
      const runs = await listRuns(dir);
      expect(runs.map((r) => [r.runId, r.status, r.active])).toEqual([
        ['20261103-000000-cccc', 'running', true],
        ['20261102-000000-bbbb', 'crashed', false],
        ['20261101-000000-aaaa', 'done', false],
        ['20261104-000000-dddd', 'crashed', false],
      ]);
    } finally {
      lock.release();
    }
    expect(await listRuns(join(dir, 'nowhere'))).toEqual([]);
  });

  it('resumes the newest run of the same workflow only while it is unfinished', async () => {
    expect(await findResumableRun(dir, 'd1')).toBeUndefined();
    addRun('r1', 'interrupted', 1_000);
    addRun('r2', 'done', 2_000, 'other');
    expect(await findResumableRun(dir, 'd1')).toMatchObject({ runId: 'r1', status: 'interrupted' });
    addRun('r3', 'running', 3_000);
    expect(await findResumableRun(dir, 'd1')).toMatchObject({ runId: 'r3', status: 'crashed' });
    addRun('r4', 'daily-limit', 4_000);
    expect(await findResumableRun(dir, 'd1')).toMatchObject({ runId: 'r4' });
    addRun('r5', 'failed', 5_000);
    expect(await findResumableRun(dir, 'd1')).toBeUndefined();
  });

  it('skips unreadable run.json files when resuming', async () => {
    createRunDir(dir, 'r1');
    writeFileSync(runPaths(dir, 'r1').meta, '{"v":1,');
    expect(await listRuns(dir)).toMatchObject([{ runId: 'r1', meta: undefined, status: 'crashed' }]);
    expect(await findResumableRun(dir, 'd1')).toBeUndefined();
  });
});
