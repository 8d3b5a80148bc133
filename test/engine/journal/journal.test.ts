import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync, fdatasync, fstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/common/clock.js';
import { JOURNAL_DURABLE_CHANNEL, openJournal } from '../../../src/engine/journal/journal.js';
import type { JournalEntry, JournalRecord } from '../../../src/engine/journal/journal-records.js';
import { readJournal, replayRunState } from '../../../src/engine/journal/journal-replay.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deflow-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fixedClock: Clock = { now: () => 1_790_000_000_000, sleep: async () => {}, realPerVirtual: 1 };

function intent(node: string, attempt = 1): JournalEntry {
  return { t: 'intent', node, step: node.split('/')[0]!, index: 0, attempt, params_digest: 'p'.repeat(64), cache_key: 'c'.repeat(64) };
}
function submitted(node: string, requestId: string, attempt = 1): JournalEntry {
  return { t: 'submitted', node, attempt, request_id: requestId };
}

/** A datasync that counts calls and notes the file size each one covered. */
function countingSync(): { datasync: (fd: number) => Promise<void>; sizes: number[] } {
  const sizes: number[] = [];
  return {
    sizes,
    datasync: (fd) =>
      new Promise((resolve, reject) => {
        sizes.push(fstatSync(fd).size);
        fdatasync(fd, (error) => (error ? reject(error) : resolve()));
      }),
  };
}

describe('journal append', () => {
  it('resolves each append only after a sync that covers its line, in call order', async () => {
    const path = join(dir, 'runs', 'r1', 'journal.jsonl');
    const sync = countingSync();
    const journal = openJournal(path, { create: true, clock: fixedClock, datasync: sync.datasync });
    const entries = [intent('a/0'), submitted('a/0', 'req-1'), intent('b/0'), submitted('b/0', 'req-2')];
    for (const [i, entry] of entries.entries()) {
      await journal.append(entry);
      const size = readFileSync(path).length;
      expect(sync.sizes.at(-1)).toBe(size);
      const { records, tornTail } = await readJournal(path);
      expect(tornTail).toBe(false);
      expect(records).toHaveLength(i + 1);
      expect(records[i]).toEqual({ v: 1, ts: 1_790_000_000_000, ...entry });
    }
    await journal.close();
  });

  it('group-commits concurrent appends into fewer syncs than records, keeping call order', async () => {
    const path = join(dir, 'journal.jsonl');
    const sync = countingSync();
    const journal = openJournal(path, { create: true, datasync: sync.datasync });
    const nodes = Array.from({ length: 64 }, (_, i) => `step/${i}`);
    await Promise.all(nodes.map((node) => journal.append(intent(node))));
    expect(sync.sizes.length).toBeLessThan(nodes.length);
    const { records } = await readJournal(path);
    expect(records.map((r) => (r as { node: string }).node)).toEqual(nodes);
    await journal.close();
  });

  it('lets records appended while a sync is in flight share the next sync', async () => {
    const path = join(dir, 'journal.jsonl');
    let release: () => void = () => {};
    let calls = 0;
    const journal = openJournal(path, {
      create: true,
      datasync: () => {
        calls++;
        return calls === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
    });
    const settled: string[] = [];
    const first = journal.append(intent('a/0')).then(() => settled.push('a'));
    await new Promise((resolve) => setImmediate(resolve)); // the first sync is now in flight
    const rest = ['b', 'c', 'd', 'e'].map((n) => journal.append(intent(`${n}/0`)).then(() => settled.push(n)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
    expect(settled).toEqual([]);
    release();
    await Promise.all([first, ...rest]);
    expect(calls).toBe(2);
    expect(settled).toEqual(['a', 'b', 'c', 'd', 'e']);
    await journal.close();
  });

  it('refuses to create over an existing journal and to reopen a missing one', () => {
    const path = join(dir, 'journal.jsonl');
    writeFileSync(path, '');
    expect(() => openJournal(path, { create: true })).toThrow(expect.objectContaining({ code: 'E_JOURNAL_EXISTS' }));
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(() => openJournal(join(dir, 'nope.jsonl'), { create: false })).toThrow(
      expect.objectContaining({ code: 'E_JOURNAL_MISSING' }),
    );
  });

  it('rejects appends after close and releases the lock so the journal can be reopened', async () => {
    const path = join(dir, 'journal.jsonl');
    const journal = openJournal(path, { create: true });
    await journal.append(intent('a/0'));
    expect(() => openJournal(path, { create: false })).toThrow(expect.objectContaining({ code: 'E_STATE_LOCKED' }));
    await journal.close();
    await expect(journal.append(intent('b/0'))).rejects.toMatchObject({ code: 'E_JOURNAL_CLOSED' });
    const again = openJournal(path, { create: false });
    await again.append(submitted('a/0', 'req-1'));
    await again.close();
    expect((await readJournal(path)).records).toHaveLength(2);
  });

  it('fails every later append once a sync fails', async () => {
    const journal = openJournal(join(dir, 'journal.jsonl'), {
      create: true,
      datasync: () => Promise.reject(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' })),
    });
    await expect(journal.append(intent('a/0'))).rejects.toMatchObject({ code: 'E_JOURNAL_WRITE' });
    await expect(journal.append(intent('b/0'))).rejects.toMatchObject({ code: 'E_JOURNAL_WRITE' });
    await journal.close();
  });

  it('publishes each record on the durable channel once it is synced, before its append resolves', async () => {
    const path = join(dir, 'j.jsonl');
    const seen: string[] = [];
    const listener = (message: unknown): void => {
      const { path: from, record } = message as { path: string; record: JournalRecord };
      if (from === path) seen.push(`${record.t} after ${sync.sizes.length} sync`);
    };
    const sync = countingSync();
    subscribe(JOURNAL_DURABLE_CHANNEL, listener);
    try {
      const journal = openJournal(path, { create: true, datasync: sync.datasync });
      const appended = journal.append(intent('a/0'));
      expect(seen).toEqual([]);
      await appended;
      expect(seen).toEqual(['intent after 1 sync']);
      await journal.close();
    } finally {
      unsubscribe(JOURNAL_DURABLE_CHANNEL, listener);
    }
  });
});

describe('journal failure hook (a crash right after a durable record)', () => {
  class Crash extends Error {}

  async function crashAfter(type: JournalRecord['t'], entries: JournalEntry[]): Promise<string> {
    const path = join(dir, 'journal.jsonl');
    const journal = openJournal(path, {
      create: true,
      onAfterSync: (record) => {
        if (record.t === type) throw new Crash(type);
      },
    });
    let crashed = false;
    for (const entry of entries) {
      try {
        await journal.append(entry);
      } catch (error) {
        expect(error).toBeInstanceOf(Crash);
        crashed = true;
        // The "dead" process writes nothing more.
        await expect(journal.append({ t: 'end', status: 'done' })).rejects.toBeInstanceOf(Crash);
        break;
      }
    }
    expect(crashed).toBe(true);
    await journal.close();
    return path;
  }

  it('leaves an intent that replays as unknown when the crash follows the intent', async () => {
    const path = await crashAfter('intent', [intent('speak/0'), submitted('speak/0', 'req-1')]);
    const { records, tornTail } = await readJournal(path);
    expect(tornTail).toBe(false);
    expect(records.map((r) => r.t)).toEqual(['intent']);
    const node = replayRunState(records).nodes.get('speak/0');
    expect(node).toMatchObject({ phase: 'unknown', attempt: 1, requestId: null });
  });

  it('leaves the request id durable when the crash follows the submitted record', async () => {
    const path = await crashAfter('submitted', [intent('speak/0'), submitted('speak/0', 'req-1'), { t: 'status', node: 'speak/0', status: 'processing', progress: 10 }]);
    const { records } = await readJournal(path);
    expect(records.map((r) => r.t)).toEqual(['intent', 'submitted']);
    expect(replayRunState(records).nodes.get('speak/0')).toMatchObject({ phase: 'submitted', requestId: 'req-1' });
  });
});
