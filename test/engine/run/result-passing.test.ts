import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeMp3, makeMp4 } from '../../../src/emulator/media/index.js';
import { createBlobStore } from '../../../src/engine/cache/blob-store.js';
import { PollEstimator } from '../../../src/engine/run/poll/poll-estimator.js';
import { pollJob } from '../../../src/engine/run/poll/poller.js';
import { collectJobResult } from '../../../src/engine/run/result-passing.js';
import { getTask } from '../../../src/service/tasks.js';
import { clientFor, runIn, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

describe('result passing', () => {
  it('downloads a result file into the blob store and uploads it from there into the next step', async () => {
    const workflow = yaml(
      'version: 1',
      'name: upscale',
      'steps:',
      '  generate:',
      '    task: image.generate',
      '    with: { prompt: "a lighthouse at dusk", model: Flux1schnell, width: 256, height: 256 }',
      '    save: generated.png',
      '  upscale:',
      '    task: image.upscale',
      '    with: { image: "${{ steps.generate.result_url }}", model: RealESRGAN_x4 }',
      '    save: upscaled.png',
    );
    const dir = await useWorkspace({ 'workflow.yaml': workflow });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const run = await runIn(dir, emulator);
    expect(run.outcome).toMatchObject({ status: 'done', exitCode: 0 });
    expect(emulator.jobs().map((j) => [j.task, j.status])).toEqual([
      ['image.generate', 'done'],
      ['image.upscale', 'done'],
    ]);
    // The generated image is downloaded once (it is uploaded from the blob store), the upscaled once for save.
    expect(emulator.stats().downloads).toBe(2);
    const generated = await readFile(join(dir, 'out', 'generated.png'));
    expect(generated.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(run.of('item-done').map((e) => e.outputs)).toEqual([['out/generated.png'], ['out/upscaled.png']]);
  });

  it('reads a text result from the inline result when the job status has one, else downloads it', async () => {
    const step = (inline: boolean) =>
      yaml(
        'version: 1',
        'name: text',
        'steps:',
        '  transcribe:',
        '    task: audio.transcribe',
        `    with: { source_file: clip.mp3, model: WhisperLargeV3, include_ts: false, return_result_in_response: ${inline} }`,
        '    save: transcript.txt',
      );
    for (const inline of [true, false]) {
      const dir = await useWorkspace({ 'workflow.yaml': step(inline), 'clip.mp3': makeMp3(4) });
      const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
      const run = await runIn(dir, emulator);
      expect(run.outcome.status).toBe('done');
      expect(emulator.stats().downloads).toBe(inline ? 0 : 1);
      expect((await readFile(join(dir, 'out', 'transcript.txt'), 'utf8')).length).toBeGreaterThan(3);
    }
  });

  it('parses the video description JSON string into steps.<id>.json', async () => {
    const dir = await useWorkspace({ 'clip.mp4': makeMp4({ seconds: 12, width: 64, height: 48 }) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const client = clientFor(emulator);
    const task = getTask('video.describe');
    const answer = await client.submit('video.describe', { video_file: { path: join(dir, 'clip.mp4') }, model: 'Marlin_2B', preset: 'fast' });
    if (answer.kind !== 'job') throw new Error('expected a job');
    const acceptedAt = emulator.clock.now();
    const status = await pollJob({ client, clock: emulator.clock, estimator: new PollEstimator(), key: 'describe', kind: 'json', requestId: answer.requestId, acceptedAt });
    const result = await collectJobResult({ client, blobs: createBlobStore(join(dir, 'blobs')) }, task, answer.requestId, status, 0, { content: true });
    expect(result.kind).toBe('json');
    expect(Object.keys(result.json as object).sort()).toEqual(['events', 'meta', 'scenes']);
    expect(JSON.parse(result.text!)).toEqual(result.json);
  });

  it('fetches nothing for a result no step reads and no save writes', async () => {
    const workflow = yaml(
      'version: 1',
      'name: fire-and-forget',
      'steps:',
      '  speak:',
      '    task: audio.speech',
      '    with: { text: "nobody listens", model: Kokoro, voice: af_sky, lang: en-us }',
    );
    const dir = await useWorkspace({ 'workflow.yaml': workflow });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const run = await runIn(dir, emulator);
    expect(run.outcome.status).toBe('done');
    expect(emulator.stats().downloads).toBe(0);
  });

  it('takes the answer of a synchronous task as its result', async () => {
    const workflow = yaml(
      'version: 1',
      'name: enhance',
      'steps:',
      '  enhance:',
      '    task: prompt.enhance',
      '    with: { prompt: "a red fox in snow", type: images.generations, model_slug: Flux1schnell }',
      '  draw:',
      '    task: image.generate',
      '    with: { prompt: "${{ steps.enhance.text }}", model: Flux1schnell, width: 512, height: 512 }',
    );
    const dir = await useWorkspace({ 'workflow.yaml': workflow });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const run = await runIn(dir, emulator);
    expect(run.outcome).toMatchObject({ status: 'done', exitCode: 0 });
    expect(run.of('item-submitted').map((e) => e.node.step)).toEqual(['draw']);
    expect(run.of('item-done').map((e) => [e.node.step, e.requestId === null])).toEqual([
      ['enhance', true],
      ['draw', false],
    ]);
  });
});
