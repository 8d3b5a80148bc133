import { describe, expect, it } from 'vitest';
import { JournalNodeIds } from '../../../src/engine/journal/journal-node-ids.js';
import { type JournalEntry, type JournalRecord, stampEntry } from '../../../src/engine/journal/journal-records.js';
import { replayRunState } from '../../../src/engine/journal/journal-replay.js';
import { planResume } from '../../../src/engine/journal/resume-plan.js';
import { graphOf, useWorkspace, yaml } from '../run-helpers.js';

/** Two steps over a list with a repeated value, so two items share the key "b". */
const WORKFLOW = yaml(
  'version: 1',
  'name: plan',
  'steps:',
  '  speak:',
  '    task: audio.speech',
  '    for_each: { items: [a, b, c, b, e, f, g] }',
  '    with: { text: "Say ${{ item.value }}.", model: Kokoro, voice: af_sky, lang: en-us }',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: speak',
  '    with: { source_file: "${{ steps.speak.result_url }}", model: WhisperLargeV3, include_ts: false }',
);

let ts = 0;
const records = (...entries: JournalEntry[]): JournalRecord[] => entries.map((entry) => stampEntry(entry, ++ts));
const intent = (node: string, key: string | null = `key-${node}`, attempt = 1): JournalEntry => ({ t: 'intent', node, step: node.split('/')[0]!, index: 0, attempt, params_digest: 'p'.repeat(64), cache_key: key });
const submitted = (node: string, id: string): JournalEntry => ({ t: 'submitted', node, attempt: 1, request_id: id });

async function idsOf(): Promise<JournalNodeIds> {
  const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW });
  return new JournalNodeIds(await graphOf(dir));
}

describe('JournalNodeIds', () => {
  it('names nodes by step and item key, telling a repeated key apart by position', async () => {
    const ids = await idsOf();
    expect(ids.nameOf('speak', 0, 'a')).toBe('speak/a');
    expect(ids.nameOf('speak', 1, 'b')).toBe('speak/b');
    expect(ids.nameOf('speak', 3, 'b')).toBe('speak/b#3');
    expect(ids.find('speak/b')).toMatchObject({ k: 1 });
    expect(ids.find('speak/b#3')).toMatchObject({ k: 3 });
    expect(ids.find('transcribe/g')).toMatchObject({ k: 6, id: 13 });
    expect(ids.find('speak/zzz')).toBeUndefined();
    expect(ids.find('gone/a')).toBeUndefined();
    expect(ids.find('speak/a#0')).toBeUndefined();
  });
});

describe('planResume', () => {
  it('fetches a paid node again instead of submitting it, even after a failure was recorded; one whose job is gone is reported lost', async () => {
    const ids = await idsOf();
    const paid = (node: string, id: string): JournalEntry => ({ t: 'paid', node, request_id: id, result_url: `https://r/${id}.mp3`, cost: 0.01 });
    const replayed = replayRunState(
      records(
        { t: 'run', run_id: 'r', workflow: 'w', workflow_digest: 'd', inputs: {}, started_at: 0 },
        intent('speak/a'),
        submitted('speak/a', 'req-a'),
        paid('speak/a', 'req-a'),
        { t: 'unsaved', node: 'speak/a', request_id: 'req-a', error: { code: 'E_TRANSFER', message: 'cut' } },
        intent('speak/c'),
        submitted('speak/c', 'req-c'),
        paid('speak/c', 'req-c'),
        // A failure journalled after payment (an older deflow) does not make it failed.
        { t: 'failed', node: 'speak/c', error: { code: 'E_TRANSFER', message: 'cut' }, retryable: false },
        intent('speak/e'),
        submitted('speak/e', 'req-e'),
        paid('speak/e', 'req-e'),
        { t: 'unsaved', node: 'speak/e', request_id: 'req-e', error: { code: 'E_RESULT_LOST', message: 'job req-e was paid for, but its result can no longer be fetched' } },
      ),
    );
    const plan = planResume(replayed, { ids });
    expect(plan.counts).toMatchObject({ paid: 2, lost: 1, submitted: 0, failed: 0, retried: 0 });
    expect(plan.seeds).toEqual([
      { state: 'unsaved', step: 'speak', k: 4, requestId: 'req-e', error: { code: 'E_RESULT_LOST', message: 'job req-e was paid for, but its result can no longer be fetched' } },
      { state: 'submitted', step: 'speak', k: 0, requestId: 'req-a', attempt: 1, cacheKey: 'key-speak/a', paid: { cost: 0.01 } },
      { state: 'submitted', step: 'speak', k: 2, requestId: 'req-c', attempt: 1, cacheKey: 'key-speak/c', paid: { cost: 0.01 } },
    ]);
    expect(plan.paid.map((p) => p.node)).toEqual(['speak/a', 'speak/c', 'speak/e']);
  });

  it('skips done nodes, polls submitted ones, reports unknowns, keeps non-retryable failures and reruns the rest', async () => {
    const ids = await idsOf();
    const replayed = replayRunState(
      records(
        { t: 'run', run_id: 'r', workflow: 'w', workflow_digest: 'd', inputs: {}, started_at: 0 },
        intent('speak/a'),
        submitted('speak/a', 'req-a'),
        { t: 'done', node: 'speak/a', request_id: 'req-a', cost: 0.02, result: { url: 'https://r/a.mp3', blob: 'f'.repeat(64) }, outputs: ['out/a.mp3'] },
        intent('transcribe/a'),
        submitted('transcribe/a', 'req-ta'),
        intent('speak/b'),
        intent('speak/b#3'),
        submitted('speak/b#3', 'req-b3'),
        { t: 'unknown', node: 'speak/b#3', reason: 'cannot read the status of job req-b3' },
        intent('speak/c'),
        submitted('speak/c', 'req-c'),
        { t: 'failed', node: 'speak/c', error: { code: 'E_JOB_FAILED', message: 'refused by policy', job_error_code: 'CONTENT_POLICY' }, retryable: false },
        intent('speak/e'),
        submitted('speak/e', 'req-e'),
        { t: 'failed', node: 'speak/e', error: { code: 'E_JOB_FAILED', message: 'worker timeout' }, retryable: true },
        { t: 'skipped', node: 'transcribe/e', reason: 'steps.speak item 4 failed' },
        { t: 'cached', node: 'speak/f', cache_key: 'cf' },
        { t: 'done', node: 'speak/f', request_id: 'req-old', cost: 0, result: { text: 'x' }, outputs: [] },
        { t: 'done', node: 'gone/x', request_id: null, cost: 0, result: {}, outputs: [] },
      ),
    );
    const plan = planResume(replayed, { ids });
    expect(plan.counts).toEqual({ done: 2, cached: 1, submitted: 2, paid: 0, lost: 0, unknown: 1, resubmitted: 0, timedOut: 0, resubmittedTimedOut: 0, failed: 1, retried: 1, skipped: 1, deferred: 0, stale: 1 });
    expect(plan.seeds.map((s) => `${s.state} ${s.step}/${s.k}`)).toEqual(['done speak/0', 'done speak/5', 'failed speak/2', 'unknown speak/1', 'submitted transcribe/0', 'submitted speak/3']);
    expect(plan.seeds[0]).toMatchObject({ result: { kind: 'audio', requestId: 'req-a', url: 'https://r/a.mp3', blob: 'f'.repeat(64), cost: 0.02 }, outputs: ['out/a.mp3'] });
    expect(plan.seeds.find((s) => s.state === 'failed')).toMatchObject({ error: { code: 'E_JOB_FAILED', jobErrorCode: 'CONTENT_POLICY', retryable: false } });
    expect(plan.seeds.find((s) => s.state === 'submitted' && s.step === 'speak')).toMatchObject({ requestId: 'req-b3', cacheKey: 'key-speak/b#3' });
    expect(plan.unknowns).toEqual([{ node: 'speak/b', step: 'speak', k: 1, reason: expect.stringContaining('no request_id') }]);
    expect([...plan.cacheKeys]).toEqual([
      [0, 'key-speak/a'],
      [7, 'key-transcribe/a'],
      [3, 'key-speak/b#3'],
      [5, 'cf'],
    ]);
  });

  it('leaves unknown nodes to run again with --resubmit-unknown', async () => {
    const ids = await idsOf();
    const plan = planResume(replayRunState(records(intent('speak/a'), intent('speak/g'))), { ids, resubmitUnknown: true });
    expect(plan.seeds).toEqual([]);
    expect(plan.counts).toMatchObject({ unknown: 0, resubmitted: 2 });
    expect(plan.unknowns.map((u) => u.node)).toEqual(['speak/a', 'speak/g']);
  });
});
