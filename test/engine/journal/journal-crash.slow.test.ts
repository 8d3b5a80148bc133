import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal, replayRunState } from '../../../src/engine/journal/journal-replay.js';
import { readLockHolder } from '../../../src/engine/journal/lock-file.js';
import { createBlobStore } from '../../../src/engine/cache/blob-store.js';
import { createResultCache } from '../../../src/engine/cache/result-cache.js';
import { JournalNodeIds } from '../../../src/engine/journal/journal-node-ids.js';
import { planResume } from '../../../src/engine/journal/resume-plan.js';
import { CRASH_HOOK } from '../../helpers/crash-hook.js';
import { graphOf, yaml } from '../run-helpers.js';
import { transpileSrc } from '../helpers/transpile-src.js';

let dir: string;
let src: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'deflow-crash-'));
  src = await transpileSrc(join(dir, 'build'));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runChild(script: string, env: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const file = join(dir, `child-${Math.random().toString(16).slice(2)}.mjs`);
  writeFileSync(file, script.replaceAll('$SRC', pathToFileURL(src).href));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', CRASH_HOOK, file], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A writer that journals intent → submitted for 5 nodes, printing each acknowledged record. */
const writer = (journal: string) => `
import { openJournal } from '$SRC/engine/journal/journal.js';
const journal = openJournal(${JSON.stringify(journal)}, { create: true });
for (let i = 0; i < 5; i++) {
  await journal.append({ t: 'intent', node: 'n/' + i, step: 'n', index: i, attempt: 1, params_digest: 'p', cache_key: null });
  console.log('ack intent n/' + i);
  await journal.append({ t: 'submitted', node: 'n/' + i, attempt: 1, request_id: 'req-' + i });
  console.log('ack submitted n/' + i);
}
await journal.close();
`;

describe('DEFLOW_TEST_CRASH_AFTER (test-only crash hook)', () => {
  it('refuses a malformed kill point instead of running without one', async () => {
    const result = await runChild('console.log("ran");', { DEFLOW_TEST_CRASH_AFTER: 'intents:x' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('DEFLOW_TEST_CRASH_AFTER=intents:x: expected <record type>:<n>');
  });

  for (const [point, acked, phases] of [
    ['intent:3', 4, ['submitted', 'submitted', 'unknown']],
    ['submitted:2', 3, ['submitted', 'submitted']],
  ] as const) {
    it(`SIGKILLs the process right after the durable ${point} record`, async () => {
      const journal = join(dir, point.replace(':', '-'), 'journal.jsonl');
      const result = await runChild(writer(journal), { DEFLOW_TEST_CRASH_AFTER: point });
      expect(result.signal, result.stderr).toBe('SIGKILL');
      // The crashing append never resolved, so its record was never acknowledged...
      expect(result.stdout.trim().split('\n')).toHaveLength(acked);
      // ...but it is durable, and the journal replays to the state at the crash.
      const { records, tornTail } = await readJournal(journal);
      expect(tornTail).toBe(false);
      expect([...replayRunState(records).nodes.values()].map((n) => n.phase)).toEqual(phases);
      // The dead writer's lock is stale: a new writer takes it over.
      expect(readLockHolder(`${journal}.lock`)).toMatchObject({ alive: false });
    });
  }
});

/** A writer that journals a run, then intent → submitted → paid for 5 nodes of step `n` (items "0".."4"). */
const payingWriter = (journal: string) => `
import { openJournal } from '$SRC/engine/journal/journal.js';
const journal = openJournal(${JSON.stringify(journal)}, { create: true });
await journal.append({ t: 'run', run_id: 'r', workflow: 'w', workflow_digest: 'd', inputs: {}, started_at: 0 });
for (let i = 0; i < 5; i++) {
  await journal.append({ t: 'intent', node: 'n/' + i, step: 'n', index: i, attempt: 1, params_digest: 'p', cache_key: null });
  await journal.append({ t: 'submitted', node: 'n/' + i, attempt: 1, request_id: 'req-' + i });
  await journal.append({ t: 'paid', node: 'n/' + i, request_id: 'req-' + i, result_url: 'https://r/' + i + '.mp3', cost: 0.01 });
  console.log('ack paid n/' + i);
}
await journal.close();
`;

describe('a kill at the paid stage (the service charged, the result not saved yet)', () => {
  it('replays the paid jobs as paid, and the resume plan fetches each by its request id instead of submitting it again', async () => {
    const journal = join(dir, 'paid-2', 'journal.jsonl');
    const result = await runChild(payingWriter(journal), { DEFLOW_TEST_CRASH_AFTER: 'paid:2' });
    expect(result.signal, result.stderr).toBe('SIGKILL');
    expect(result.stdout.trim().split('\n')).toEqual(['ack paid n/0']);
    const { records } = await readJournal(journal);
    const replayed = replayRunState(records);
    expect([...replayed.nodes.values()].map((n) => [n.node, n.phase])).toEqual([
      ['n/0', 'paid'],
      ['n/1', 'paid'],
    ]);
    const workspace = join(dir, 'paid-2');
    writeFileSync(
      join(workspace, 'workflow.yaml'),
      yaml('version: 1', 'name: w', 'steps:', '  n:', '    task: audio.speech', '    for_each: { items: ["0", "1", "2", "3", "4"] }', '    with: { text: "Say ${{ item.value }}.", model: Kokoro, voice: af_sky, lang: en-us }'),
    );
    const plan = planResume(replayed, { ids: new JournalNodeIds(await graphOf(workspace)) });
    // Paid once: each charged job is polled again (its result fetched), never a new submission.
    expect(plan.paid.map((p) => [p.node, p.requestId])).toEqual([
      ['n/0', 'req-0'],
      ['n/1', 'req-1'],
    ]);
    expect(plan.seeds).toEqual([
      expect.objectContaining({ state: 'submitted', k: 0, requestId: 'req-0', paid: { cost: 0.01 } }),
      expect.objectContaining({ state: 'submitted', k: 1, requestId: 'req-1', paid: { cost: 0.01 } }),
    ]);
    expect(plan.counts).toMatchObject({ paid: 2, retried: 0, skipped: 0, unknown: 0 });
  });
});

describe('result cache shared by two processes', () => {
  it('keeps one complete entry per key when two processes write the same keys at once', async () => {
    const cacheDir = join(dir, 'shared', 'cache');
    const blobsDir = join(dir, 'shared', 'blobs');
    const script = (who: string) => `
import { createHash } from 'node:crypto';
import { createResultCache } from '$SRC/engine/cache/result-cache.js';
import { createBlobStore } from '$SRC/engine/cache/blob-store.js';
const cache = createResultCache({ dir: ${JSON.stringify(cacheDir)}, blobs: createBlobStore(${JSON.stringify(blobsDir)}) });
for (let i = 0; i < 200; i++) {
  const key = createHash('sha256').update('k' + i).digest('hex');
  await cache.put({ key, task: 'audio.transcribe', request_id: '${who}-' + i, cost: 0.01, created_at: 1, result: { kind: 'text', text: 'x'.repeat(5000) } });
}
`;
    const results = await Promise.all([runChild(script('a'), {}), runChild(script('b'), {})]);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const cache = createResultCache({ dir: cacheDir, blobs: createBlobStore(blobsDir) });
    const { createHash } = await import('node:crypto');
    for (let i = 0; i < 200; i++) {
      const entry = await cache.get(createHash('sha256').update(`k${i}`).digest('hex'));
      expect(entry?.request_id).toMatch(new RegExp(`^[ab]-${i}$`));
      expect(entry?.result.text).toHaveLength(5000);
    }
    const leftovers = readdirSync(cacheDir, { recursive: true }).filter((f) => String(f).includes('.tmp'));
    expect(leftovers).toEqual([]);
  });
});
