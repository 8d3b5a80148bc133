import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournal } from '../../../src/engine/journal/journal.js';
import type { JournalEntry } from '../../../src/engine/journal/journal-records.js';
import { readJournal } from '../../../src/engine/journal/journal-replay.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'deflow-torn-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entries: JournalEntry[] = [
  { t: 'run', run_id: '20261122-230000-abcd', workflow: '/w/podcast.yaml', workflow_digest: 'd'.repeat(64), inputs: { voice: 'af_bella' }, started_at: 1 },
  { t: 'intent', node: 'transcribe/ep1', step: 'transcribe', index: 0, attempt: 1, params_digest: 'p'.repeat(64), cache_key: null },
  { t: 'submitted', node: 'transcribe/ep1', attempt: 1, request_id: '5f0c7a4e-1f7b-4c55-9d7e-2a4f0b6c1d2e' },
  // Multi-byte characters, so some cuts fall inside a UTF-8 sequence.
  { t: 'skipped', node: 'speak/épisode-№1', reason: 'upstream failed — ünïcödé 🎧' },
];

async function writeJournal(path: string): Promise<{ lastStart: number; size: number }> {
  const journal = openJournal(path, { create: true });
  for (const entry of entries.slice(0, -1)) await journal.append(entry);
  const lastStart = statSync(path).size;
  await journal.append(entries.at(-1)!);
  await journal.close();
  return { lastStart, size: statSync(path).size };
}

describe('a torn last record', () => {
  it('loads at every byte offset inside the last record, losing at most that record', async () => {
    const original = join(dir, 'original.jsonl');
    const { lastStart, size } = await writeJournal(original);
    const bytes = readFileSync(original);
    let cases = 0;
    for (let cut = lastStart; cut <= size; cut++) {
      const path = join(dir, `cut-${cut}.jsonl`);
      writeFileSync(path, bytes.subarray(0, cut));
      const whole = cut === size;
      const read = await readJournal(path);
      expect(read.records).toHaveLength(whole ? entries.length : entries.length - 1);
      expect(read.tornTail).toBe(cut > lastStart && !whole);
      expect(read.validBytes).toBe(whole ? size : lastStart);

      // Reopening cuts the torn bytes, and a new record lands on a clean line.
      const journal = openJournal(path, { create: false });
      expect(journal.repairedBytes).toBe(whole ? 0 : cut - lastStart);
      await journal.append({ t: 'end', status: 'interrupted' });
      await journal.close();
      const after = await readJournal(path);
      expect(after.tornTail).toBe(false);
      expect(after.records.at(-1)).toMatchObject({ t: 'end', status: 'interrupted' });
      expect(after.records).toHaveLength(read.records.length + 1);
      rmSync(path);
      cases++;
    }
    expect(cases).toBe(size - lastStart + 1);
  });

  it('treats an unparsable complete last line (zeroed blocks after a power loss) as torn', async () => {
    const path = join(dir, 'zeros.jsonl');
    const { size } = await writeJournal(path);
    writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.alloc(37), Buffer.from('\n')]));
    const read = await readJournal(path);
    expect(read).toMatchObject({ tornTail: true, validBytes: size });
    expect(read.records).toHaveLength(entries.length);
    const journal = openJournal(path, { create: false });
    expect(journal.repairedBytes).toBe(38);
    await journal.close();
    expect(statSync(path).size).toBe(size);
  });

  it('reports an unreadable line followed by valid records as corruption, naming the line', async () => {
    const path = join(dir, 'corrupt.jsonl');
    await writeJournal(path);
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[1] = '{"v":1,"t":"intent"';
    writeFileSync(path, lines.join('\n'));
    await expect(readJournal(path)).rejects.toMatchObject({ code: 'E_JOURNAL_CORRUPT', details: { line: 2 } });
  });

  it('refuses records written by a newer journal format', async () => {
    const path = join(dir, 'newer.jsonl');
    writeFileSync(path, '{"v":2,"t":"run","ts":1}\n');
    await expect(readJournal(path)).rejects.toMatchObject({ code: 'E_JOURNAL_VERSION' });
  });

  it('reads a journal truncated to nothing as empty', async () => {
    const path = join(dir, 'empty.jsonl');
    await writeJournal(path);
    truncateSync(path, 0);
    expect(await readJournal(path)).toEqual({ records: [], tornTail: false, validBytes: 0, validLines: 0 });
  });
});
