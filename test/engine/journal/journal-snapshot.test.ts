import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/engine/journal/journal-records.js';
import { readJournal, readRunState, replayRunState } from '../../../src/engine/journal/journal-replay.js';
import { readJournalSnapshot, snapshotPath, writeJournalSnapshot } from '../../../src/engine/journal/journal-snapshot.js';
import { runPaths } from '../../../src/engine/journal/state-dir.js';
import { useFastEmulator, useWorkspace } from '../run-helpers.js';
import { CHAIN, clips, runDurablyIn } from './durable-helpers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'deflow-snapshot-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const paid = (node: string, n: number, ts: number) => ({ v: 1, ts, t: 'paid', node, request_id: RID(n), result_url: `https://results.example/${n}.mp3`, cost: 0.01 });

/** Every kind of record, nodes in every phase, a node settled twice, an end record followed by more. */
const RECORDS = [
  { v: 1, ts: 1, t: 'run', run_id: '20261127-090000-abcd', workflow: '/w/podcast.yaml', workflow_digest: 'd'.repeat(64), inputs: { voice: 'af_bella' }, started_at: 1 },
  { v: 1, ts: 2, t: 'intent', node: 'a/1', step: 'a', index: 0, attempt: 1, params_digest: 'p'.repeat(64), cache_key: 'c'.repeat(64) },
  { v: 1, ts: 3, t: 'submitted', node: 'a/1', attempt: 1, request_id: RID(1) },
  { v: 1, ts: 4, t: 'status', node: 'a/1', status: 'processing', progress: 40 },
  { v: 1, ts: 5, t: 'intent', node: 'a/2', step: 'a', index: 1, attempt: 1, params_digest: 'q'.repeat(64), cache_key: null },
  { v: 1, ts: 6, t: 'submitted', node: 'a/2', attempt: 1, request_id: RID(2) },
  paid('a/1', 1, 7),
  { v: 1, ts: 8, t: 'done', node: 'a/1', request_id: RID(1), cost: 0.01, result: { url: 'https://results.example/1.mp3', text: 'héllo 🎧' }, outputs: ['out/1.txt'] },
  paid('a/2', 2, 9),
  { v: 1, ts: 10, t: 'unsaved', node: 'a/2', request_id: RID(2), error: { code: 'E_SAVE', message: 'disk full' } },
  { v: 1, ts: 11, t: 'intent', node: 'a/3', step: 'a', index: 2, attempt: 1, params_digest: 'r'.repeat(64), cache_key: null },
  { v: 1, ts: 12, t: 'failed', node: 'a/3', attempt: 1, retryable: true, error: { code: 'E_JOB_FAILED', message: 'boom' } },
  { v: 1, ts: 13, t: 'skipped', node: 'b/1', reason: 'its if: condition is false' },
  { v: 1, ts: 14, t: 'cached', node: 'b/2', cache_key: 'e'.repeat(64) },
  { v: 1, ts: 15, t: 'unknown', node: 'b/3', reason: 'carried over (run x)' },
  { v: 1, ts: 16, t: 'deferred', node: 'b/4', pool: 'audio/speech', reset_at: 86_400_000 },
  { v: 1, ts: 17, t: 'intent', node: 'b/5', step: 'b', index: 4, attempt: 2, params_digest: 's'.repeat(64), cache_key: null },
  { v: 1, ts: 18, t: 'end', status: 'interrupted' },
  { v: 1, ts: 19, t: 'intent', node: 'a/3', step: 'a', index: 2, attempt: 2, params_digest: 'r'.repeat(64), cache_key: null },
  { v: 1, ts: 20, t: 'submitted', node: 'a/3', attempt: 2, request_id: RID(3) },
  paid('a/3', 3, 21),
  { v: 1, ts: 22, t: 'done', node: 'a/3', request_id: RID(3), cost: 0.02, result: { blob: 'f'.repeat(64) }, outputs: [] },
  { v: 1, ts: 23, t: 'status', node: 'a/3', status: 'processing', progress: 99 },
  { v: 1, ts: 24, t: 'end', status: 'done' },
] as unknown as JournalRecord[];

const lines = RECORDS.map((record) => `${JSON.stringify(record)}\n`);

/** A journal of the first `n` records with a snapshot of them, then the rest appended. */
async function journalWithSnapshotAt(name: string, n: number): Promise<string> {
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, lines.slice(0, n).join(''));
  const state = await readRunState(path);
  writeJournalSnapshot(path, { run: state.run, end: state.end, nodes: [...state.nodes.values()] }, { bytes: state.validBytes, lines: state.validLines });
  writeFileSync(path, lines.join(''));
  return path;
}

describe('a journal snapshot', () => {
  it('replays to the same state as the whole journal, wherever it was taken', async () => {
    const whole = replayRunState(RECORDS);
    for (let n = 1; n <= RECORDS.length; n++) {
      const path = await journalWithSnapshotAt(`cut-${n}`, n);
      expect(readJournalSnapshot(path)?.bytes, `snapshot after ${n} records`).toBe(Buffer.byteLength(lines.slice(0, n).join('')));
      const read = await readRunState(path);
      expect({ run: read.run, end: read.end, nodes: [...read.nodes.values()] }, `snapshot after ${n} records`).toEqual({ run: whole.run, end: whole.end, nodes: [...whole.nodes.values()] });
      expect(read).toMatchObject({ tornTail: false, validBytes: Buffer.byteLength(lines.join('')), validLines: RECORDS.length });
    }
  });

  it('stands in for the records it covers: they are not read again', async () => {
    const path = await journalWithSnapshotAt('covered', 12);
    // The second record made unreadable (same length): a whole read calls it corruption.
    const bytes = readFileSync(path);
    const second = lines[0]!.length;
    bytes.fill('x', second, second + lines[1]!.length - 1);
    writeFileSync(path, bytes);
    await expect(readJournal(path)).rejects.toMatchObject({ code: 'E_JOURNAL_CORRUPT' });
    const read = await readRunState(path);
    expect(read.nodes.get('a/1')).toMatchObject({ phase: 'done', requestId: RID(1) });
  });

  it('is ignored when the journal no longer holds what it covers: cut shorter, its last covered line changed, or replaced', async () => {
    const whole = replayRunState(RECORDS);
    const expectWholeRead = async (path: string) => {
      expect(readJournalSnapshot(path)).toBeUndefined();
      const read = await readRunState(path);
      return [...read.nodes.values()];
    };
    // Cut shorter than the snapshot (the records it covers lost, e.g. never synced before a power loss).
    const shorter = await journalWithSnapshotAt('shorter', 20);
    writeFileSync(shorter, lines.slice(0, 18).join(''));
    expect(await expectWholeRead(shorter)).toEqual([...replayRunState(RECORDS.slice(0, 18)).nodes.values()]);
    // The last covered line differs (another journal of the same length under the name).
    const changed = await journalWithSnapshotAt('changed', 8);
    writeFileSync(changed, lines.join('').replace('"progress":40', '"progress":41'));
    const changedAt = await journalWithSnapshotAt('changed-last', 8);
    const text = readFileSync(changedAt, 'utf8').replace(RID(1) + '","cost":0.01,"result"', RID(1) + '","cost":0.03,"result"');
    writeFileSync(changedAt, text);
    const nodes = await expectWholeRead(changedAt);
    expect(nodes.find((node) => node.node === 'a/1')?.last).toMatchObject({ cost: 0.03 });
    expect(readJournalSnapshot(changed)).toBeDefined(); // a change before the last covered line is not looked for
    // A snapshot of another version, or not a snapshot.
    const other = await journalWithSnapshotAt('other-version', 10);
    const snapshot = JSON.parse(readFileSync(snapshotPath(other), 'utf8')) as { v: number };
    writeFileSync(snapshotPath(other), JSON.stringify({ ...snapshot, v: 2 }));
    expect(await expectWholeRead(other)).toEqual([...whole.nodes.values()]);
    writeFileSync(snapshotPath(other), '{"v":1,"journal_bytes":');
    expect(await expectWholeRead(other)).toEqual([...whole.nodes.values()]);
  });

  it('is written when a session closes unfinished, covering its whole journal, and the next session resumes from it', async () => {
    const work = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    let interrupt: () => void = () => {};
    const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
    let done = 0;
    const first = await runDurablyIn(work, emulator, { interrupted, graceMs: 0, onEvent: (event) => event.type === 'item-done' && ++done === 2 && interrupt() });
    expect(first.outcome.status).toBe('interrupted');
    const journal = runPaths(join(work, '.deflow'), first.outcome.runId).journal;
    const snapshot = readJournalSnapshot(journal);
    expect(snapshot?.bytes).toBe(readFileSync(journal).length);
    const whole = replayRunState((await readJournal(journal)).records);
    expect(snapshot?.nodes).toEqual([...whole.nodes.values()]);

    const second = await runDurablyIn(work, emulator);
    expect(second.outcome).toMatchObject({ status: 'done', resumed: true, runId: first.outcome.runId });
    expect(emulator.stats().submissions).toBe(6); // 3 transcriptions and 3 speeches, none twice
    // A run that ends done writes none (nothing resumes it); the first session's still covers its start.
    expect(readJournalSnapshot(journal)?.bytes).toBe(snapshot?.bytes);
    expect(readFileSync(journal).length).toBeGreaterThan(snapshot!.bytes);
  });
});
