import { describe, expect, it } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import type { CacheLookup } from '../../../src/engine/cache/cache-lookup.js';
import type { NodeResult } from '../../../src/engine/contracts/node-result.js';
import { NO_RECORDER, type RecordedNode, type StateRecorder } from '../../../src/engine/contracts/state-recorder.js';
import { clientFor, runIn, useFastEmulator, useWorkspace } from '../run-helpers.js';
import { transcribeThenSpeakWorkflow } from '../../../bench/_bench-util.js';

const CHAIN = transcribeThenSpeakWorkflow('hooks');
const clips = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`clips/c${i}.mp3`, makeMp3(3)]));

interface Call {
  readonly hook: string;
  readonly node: string;
  readonly at: number;
  readonly detail?: unknown;
}

/** A recorder that logs every hook with the clock time it was called at. */
function loggingRecorder(now: () => number, calls: Call[]): StateRecorder {
  const log = (hook: string) => async (node: RecordedNode, detail?: unknown) => {
    calls.push({ hook, node: `${node.step}/${node.index}`, at: now(), detail });
  };
  return {
    intent: (node, attempt, digest) => log('intent')(node, { attempt, digest }),
    withdrawn: (node) => log('withdrawn')(node),
    submitted: (node, _attempt, requestId) => log('submitted')(node, requestId),
    progress: (node) => log('progress')(node),
    paid: (node, requestId) => log('paid')(node, requestId),
    unsaved: (node) => log('unsaved')(node),
    done: (node, done) => log('done')(node, done.requestId),
    retrying: (node) => log('retrying')(node),
    failed: (node) => log('failed')(node),
    skipped: (node) => log('skipped')(node),
    deferred: (node) => log('deferred')(node),
    unknown: (node) => log('unknown')(node),
    timedOut: (node, requestId) => log('timedOut')(node, requestId),
    finished: async (status) => {
      calls.push({ hook: 'finished', node: '', at: now(), detail: status });
    },
  };
}

describe('state changes go through one recorder', () => {
  it('records the intent after the rate window allows the POST and before it, then the request id, then done', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 1 } } }, jobs: { duration_ms: 3000 } });
    const calls: Call[] = [];
    const run = await runIn(dir, emulator, { recorder: loggingRecorder(() => emulator.clock.now(), calls) });
    expect(run.outcome.status).toBe('done');
    const of = (hook: string, node: string) => calls.find((c) => c.hook === hook && c.node === node)!;
    for (const node of ['transcribe/0', 'transcribe/1', 'speak/0', 'speak/1']) {
      const order = calls.filter((c) => c.node === node && c.hook !== 'progress').map((c) => c.hook);
      expect(order).toEqual(['intent', 'submitted', 'paid', 'done']);
      expect(of('intent', node).detail).toMatchObject({ attempt: 1, digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
    // One transcription per minute: the second intent is recorded when its window opens, not while it waits.
    const [first, second] = ['transcribe/0', 'transcribe/1'].map((n) => of('intent', n).at).sort((a, b) => a - b);
    expect(second! - first!).toBeGreaterThan(50_000);
    const submittedIds = calls.filter((c) => c.hook === 'submitted').map((c) => c.detail);
    expect(submittedIds.sort()).toEqual(emulator.jobs().map((j) => j.request_id).sort());
    expect(calls.at(-1)).toMatchObject({ hook: 'finished', detail: 'done' });
  });

  it('stops the run when a state change cannot be recorded, and sends nothing after it', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 3000 } });
    const broken = new Error('disk full');
    const recorder: StateRecorder = { ...NO_RECORDER, intent: async () => Promise.reject(broken) };
    const run = await runIn(dir, emulator, { recorder });
    expect(run.outcome).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(run.outcome.error).toBe(broken);
    expect(emulator.stats().submissions).toBe(0);
  });

  it('takes a cached result instead of submitting, and passes it downstream', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 3000 } });
    const hit: NodeResult = { kind: 'text', requestId: null, url: null, cost: 0, text: 'words from the cache' };
    const stored: string[] = [];
    const cache: CacheLookup = {
      lookup: async (query) => ({ key: `key-${query.node.step}-${query.node.index}`, hit: query.node.step === 'transcribe' && query.node.index === 0 ? hit : null }),
      store: async (key) => {
        stored.push(key);
      },
    };
    const run = await runIn(dir, emulator, { cache });
    expect(run.outcome.status).toBe('done');
    expect(run.of('item-done').filter((e) => e.cached).map((e) => [e.node.step, e.node.index, e.cost])).toEqual([['transcribe', 0, 0]]);
    expect(emulator.jobs().map((j) => j.task).sort()).toEqual(['audio.speech', 'audio.speech', 'audio.transcribe']);
    expect(stored.sort()).toEqual(['key-speak-0', 'key-speak-1', 'key-transcribe-1']);
  });

  it('picks up the node states of an earlier run: done nodes feed their dependents, submitted jobs are polled', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 3000 } });
    const client = clientFor(emulator);
    const earlier = await client.submit('audio.transcribe', { source_file: { path: `${dir}/clips/c1.mp3` }, model: 'WhisperLargeV3', include_ts: false, return_result_in_response: true });
    if (earlier.kind !== 'job') throw new Error('expected a job');
    const run = await runIn(dir, emulator, {
      client,
      resumed: true,
      seed: [
        { state: 'done', step: 'transcribe', k: 0, result: { kind: 'text', requestId: 'from-before', url: null, cost: 0.01, text: 'said before' }, outputs: [] },
        { state: 'submitted', step: 'transcribe', k: 1, requestId: earlier.requestId, attempt: 1 },
        { state: 'unknown', step: 'transcribe', k: 2, reason: 'no request id was recorded' },
      ],
    });
    expect(run.of('run-started')[0]!.resumed).toBe(true);
    // Only the two speech jobs were submitted now; the transcription of item 1 was polled to its end.
    expect(emulator.stats().submissions).toBe(1 + 2);
    expect(run.of('item-done').map((e) => `${e.node.step}/${e.node.index}`).sort()).toEqual(['speak/0', 'speak/1', 'transcribe/0', 'transcribe/1']);
    expect(run.of('item-skipped').map((e) => `${e.node.step}/${e.node.index}`)).toEqual(['speak/2']);
    expect(run.outcome).toMatchObject({ status: 'failed', exitCode: 1, counts: { unknown: 1 } });
  });
});
