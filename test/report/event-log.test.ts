import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/index.js';
import { EventLogRenderer, readEventLog } from '../../src/report/terminal/event-log.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** An item-done event that counts how often it is serialized (its node is read then). */
function doneEvent(k: number, reads: { count: number }): RunEvent {
  const node = { step: 'speak', k, key: `speak/${k}` };
  return {
    type: 'item-done',
    ts: k,
    get node() {
      reads.count++;
      return node;
    },
    requestId: `r${k}`,
    cost: 0,
    quotedCost: null,
    cached: false,
    earlier: true,
    outputs: [],
    startedAt: k,
  } as unknown as RunEvent;
}

describe('the event log', () => {
  it('takes a burst of events without serializing them in the caller, then writes them all in order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-event-log-'));
    dirs.push(dir);
    const path = join(dir, 'events.ndjson');
    const log = new EventLogRenderer(path);
    const reads = { count: 0 };
    for (let k = 0; k < 2500; k++) log.handle(doneEvent(k, reads));
    // A resume hands over every item done before: none is serialized before the caller goes on.
    expect(reads.count).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    // One batch per turn of the event loop: the turn stays short, requests get out between.
    expect(reads.count).toBeGreaterThan(0);
    expect(reads.count).toBeLessThan(2500);
    await log.finish();
    expect(reads.count).toBe(2500);
    const { events, skipped } = await readEventLog(path);
    expect(skipped).toBe(0);
    expect(events[0]).toMatchObject({ type: 'version' });
    expect(events.slice(1).map((e) => e['request_id'])).toEqual(Array.from({ length: 2500 }, (_, k) => `r${k}`));
    expect(events[1]).toMatchObject({ type: 'item-done', request_id: 'r0', quoted_cost: null, started_at: 0, node: { step: 'speak', k: 0 } });
  });

  it('appends a session after the one before, the version line first', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-event-log-'));
    dirs.push(dir);
    const path = join(dir, 'events.ndjson');
    for (const session of [0, 1]) {
      const log = new EventLogRenderer(path);
      log.handle(doneEvent(session, { count: 0 }));
      await log.finish();
    }
    const lines = (await readFile(path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { type: string; request_id?: string });
    expect(lines.map((l) => l.request_id ?? l.type)).toEqual(['version', 'r0', 'version', 'r1']);
  });
});
