import { describe, expect, it } from 'vitest';
import { type JournalEntry, type JournalRecord, stampEntry } from '../../../src/engine/journal/journal-records.js';
import { replayRunState, UNKNOWN_AFTER_INTENT } from '../../../src/engine/journal/journal-replay.js';

let ts = 0;
const records = (...entries: JournalEntry[]): JournalRecord[] => entries.map((entry) => stampEntry(entry, ++ts));
const intent = (node: string, attempt = 1): JournalEntry => ({
  t: 'intent',
  node,
  step: node.split('/')[0]!,
  index: Number(node.split('/')[1]),
  attempt,
  params_digest: 'p'.repeat(64),
  cache_key: `k-${node}`,
});
const submitted = (node: string, request_id: string, attempt = 1): JournalEntry => ({ t: 'submitted', node, attempt, request_id });
const done = (node: string, request_id: string): JournalEntry => ({ t: 'done', node, request_id, cost: 0.01, result: { text: 'hi' }, outputs: [`out/${node}.txt`] });

describe('replayRunState', () => {
  it('folds each node to its latest state: done, polling, unknown', () => {
    const state = replayRunState(
      records(
        { t: 'run', run_id: 'r1', workflow: 'w.yaml', workflow_digest: 'd', inputs: {}, started_at: 0 },
        intent('t/0'),
        submitted('t/0', 'req-0'),
        intent('t/1'),
        submitted('t/1', 'req-1'),
        { t: 'status', node: 't/1', status: 'processing', progress: 40 },
        intent('t/2'),
        done('t/0', 'req-0'),
      ),
    );
    expect(state.run).toMatchObject({ run_id: 'r1' });
    expect(state.end).toBeNull();
    expect([...state.nodes.keys()]).toEqual(['t/0', 't/1', 't/2']);
    expect(state.nodes.get('t/0')).toMatchObject({ phase: 'done', requestId: 'req-0', last: { t: 'done', outputs: ['out/t/0.txt'] } });
    expect(state.nodes.get('t/1')).toMatchObject({ phase: 'submitted', requestId: 'req-1', status: 'processing', progress: 40 });
    expect(state.nodes.get('t/2')).toMatchObject({ phase: 'unknown', requestId: null, reason: UNKNOWN_AFTER_INTENT, step: 't', index: 2 });
  });

  it('treats a new intent after a retryable failure as a new, unknown attempt', () => {
    const state = replayRunState(
      records(
        intent('s/0', 1),
        submitted('s/0', 'req-a', 1),
        { t: 'failed', node: 's/0', error: { code: 'E_JOB_FAILED', message: 'worker timeout' }, retryable: true },
        intent('s/0', 2),
      ),
    );
    expect(state.nodes.get('s/0')).toMatchObject({ phase: 'unknown', attempt: 2, requestId: null });
  });

  it('records failed, skipped, cached and explicit unknown outcomes', () => {
    const state = replayRunState(
      records(
        intent('a/0'),
        submitted('a/0', 'req'),
        { t: 'failed', node: 'a/0', error: { code: 'E_JOB_FAILED', message: 'bad input' }, retryable: false },
        { t: 'skipped', node: 'b/0', reason: 'upstream a/0 failed' },
        { t: 'cached', node: 'c/0', cache_key: 'k'.repeat(64) },
        intent('d/0'),
        { t: 'unknown', node: 'd/0', reason: 'reported unknown at resume' },
      ),
    );
    expect(state.nodes.get('a/0')).toMatchObject({ phase: 'failed', requestId: 'req' });
    expect(state.nodes.get('b/0')).toMatchObject({ phase: 'skipped', reason: 'upstream a/0 failed' });
    expect(state.nodes.get('c/0')).toMatchObject({ phase: 'cached', cacheKey: 'k'.repeat(64) });
    expect(state.nodes.get('d/0')).toMatchObject({ phase: 'unknown', reason: 'reported unknown at resume' });
  });

  it('ignores a late status answer for a node that already settled', () => {
    const state = replayRunState(records(intent('a/0'), submitted('a/0', 'r'), done('a/0', 'r'), { t: 'status', node: 'a/0', status: 'processing', progress: 90 }));
    expect(state.nodes.get('a/0')).toMatchObject({ phase: 'done', status: null });
  });

  it('tolerates duplicates: the last record wins', () => {
    const state = replayRunState(records(intent('a/0'), submitted('a/0', 'r'), submitted('a/0', 'r'), done('a/0', 'r'), done('a/0', 'r')));
    expect(state.nodes.get('a/0')).toMatchObject({ phase: 'done', requestId: 'r' });
  });

  it('reports the end record, unless the run was resumed after it', () => {
    expect(replayRunState(records(intent('a/0'), { t: 'end', status: 'interrupted' })).end).toMatchObject({ status: 'interrupted' });
    expect(replayRunState(records({ t: 'end', status: 'interrupted' }, intent('a/0'))).end).toBeNull();
  });
});
