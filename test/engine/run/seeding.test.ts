import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWorkflowWith } from '../../../src/engine/run-workflow.js';
import { NO_RECORDER, type StateRecorder } from '../../../src/engine/run/index.js';
import type { NodeRunners } from '../../../src/engine/run/scheduler.js';
import { clientFor, graphOf, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

const WORKFLOW = yaml(
  'version: 1',
  'name: seeding',
  'steps:',
  '  speak:',
  '    task: audio.speech',
  '    for_each: { file: lines.txt }',
  '    with: { text: "${{ item.value }}", model: Kokoro, voice: af_sky, lang: en-us }',
);

describe('seeding a resumed run', () => {
  it('starts nothing new until every earlier state is applied, even when a job polled again settles meanwhile', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW, 'lines.txt': 'one\ntwo\nthree\nfour\n' });
    const graph = await graphOf(dir);
    const emulator = await useFastEmulator();
    const client = clientFor(emulator);
    const started: number[] = [];
    // Item 0 was at the service: polled again, it settles at the next turn of the event loop.
    const runners: NodeRunners = {
      async resume(ctx, id, requestId) {
        await new Promise((resolve) => setImmediate(resolve));
        await ctx.state.submitted(id, 1, requestId);
        await ctx.state.done(id, { result: { kind: 'audio', requestId, url: null, cost: 0 }, outputs: [], cached: false, cacheKey: null });
        return 'done';
      },
      async run(_ctx, id) {
        started.push(id);
        return 'failed';
      },
    };
    // Items 1-3 were left out (invalid input); recording each takes a while, as a synced journal does.
    const recorder: StateRecorder = { ...NO_RECORDER, skipped: () => new Promise((resolve) => setTimeout(resolve, 20)) };
    const outcome = await runWorkflowWith({
      graph,
      client,
      stateDir: join(dir, '.deflow'),
      onEvent: () => {},
      concurrency: 8,
      recorder,
      runners,
      seed: [{ state: 'submitted', step: 'speak', k: 0, requestId: 'r0', attempt: 1 }],
      excluded: [1, 2, 3].map((index) => ({ step: 'speak', index, reason: 'not a valid input' })),
    });
    expect(started).toEqual([]);
    expect(outcome.counts).toMatchObject({ done: 1, skipped: 3, failed: 0 });
  });

  it('lets the first poll of a job still at the service out before the next one is prepared, then 2, 4, … 32 at a time', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW, 'lines.txt': `${lines}\n` });
    const graph = await graphOf(dir);
    const emulator = await useFastEmulator();
    const client = clientFor(emulator);
    let launched = 0;
    const runners: NodeRunners = {
      async resume(ctx, id, requestId) {
        launched++;
        await new Promise((resolve) => setImmediate(resolve));
        await ctx.state.done(id, { result: { kind: 'audio', requestId, url: null, cost: 0 }, outputs: [], cached: false, cacheKey: null });
        return 'done';
      },
      run: () => Promise.resolve('failed'),
    };
    // What the event loop (where requests go out) sees at each turn after a resume began.
    const seenAtTurns: number[] = [];
    const watch = (): void => {
      if (launched > 0 && seenAtTurns.at(-1) !== launched) seenAtTurns.push(launched);
      if (launched < 100) setImmediate(watch);
    };
    setImmediate(watch);
    const outcome = await runWorkflowWith({
      graph,
      client,
      stateDir: join(dir, '.deflow'),
      onEvent: () => {},
      concurrency: 200,
      runners,
      seed: Array.from({ length: 100 }, (_, k) => ({ state: 'submitted' as const, step: 'speak', k, requestId: `r${k}`, attempt: 1 })),
    });
    expect(outcome.counts).toMatchObject({ done: 100 });
    // The first request alone, then a second (its connection is open by then), doubling up to 32 a turn.
    expect(seenAtTurns).toEqual([1, 2, 4, 8, 16, 32, 64, 96, 100]);
  });
});

describe('seeding order', () => {
  it('polls again the jobs still at the service before it applies the done states of other items', async () => {
    const lines = Array.from({ length: 201 }, (_, i) => `line ${i}`).join('\n');
    const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW, 'lines.txt': `${lines}\n` });
    const graph = await graphOf(dir);
    const emulator = await useFastEmulator();
    const client = clientFor(emulator);
    let doneWhenPolled = -1;
    const runners: NodeRunners = {
      async resume(ctx, id, requestId) {
        doneWhenPolled = ctx.state.counts.done;
        await ctx.state.done(id, { result: { kind: 'audio', requestId, url: null, cost: 0 }, outputs: [], cached: false, cacheKey: null });
        return 'done';
      },
      run: () => Promise.resolve('failed'),
    };
    // Items 0-199 were done in the earlier session (listed first, as a journal lists them); item 200 was at the service.
    const done = Array.from({ length: 200 }, (_, k) => ({ state: 'done' as const, step: 'speak', k, result: { kind: 'audio' as const, requestId: `r${k}`, url: null, cost: 0 }, outputs: [] }));
    const outcome = await runWorkflowWith({
      graph,
      client,
      stateDir: join(dir, '.deflow'),
      onEvent: () => {},
      concurrency: 8,
      runners,
      seed: [...done, { state: 'submitted', step: 'speak', k: 200, requestId: 'r200', attempt: 1 }],
    });
    expect(outcome.counts).toMatchObject({ done: 201 });
    expect(doneWhenPolled).toBe(0);
  });
});
