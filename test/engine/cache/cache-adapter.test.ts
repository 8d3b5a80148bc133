import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { CHAIN, clips, journalOf, runDurablyIn } from '../journal/durable-helpers.js';
import { useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

const tasks = (emulator: { jobs(): { task: string }[] }) => emulator.jobs().map((j) => j.task);

describe('the result cache across runs', () => {
  it('submits nothing for an unchanged workflow the second time, and saves every output again from the cache', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const first = await runDurablyIn(dir, emulator);
    expect(first.outcome).toMatchObject({ status: 'done', cacheHits: 0 });
    expect(emulator.stats().submissions).toBe(6);
    const transcript = await readFile(join(dir, 'out', 'c1.txt'), 'utf8');
    const speech = await readFile(join(dir, 'out', 'c1.mp3'));
    await rm(join(dir, 'out'), { recursive: true });

    const second = await runDurablyIn(dir, emulator);
    expect(second.outcome).toMatchObject({ status: 'done', resumed: false, cacheHits: 6, spent: 0, counts: { done: 6, cached: 6 } });
    expect(second.outcome.runId).not.toBe(first.outcome.runId);
    expect(emulator.stats().submissions).toBe(6);
    expect(second.of('item-done').every((e) => e.cached && e.cost === 0)).toBe(true);
    expect(await readFile(join(dir, 'out', 'c1.txt'), 'utf8')).toBe(transcript);
    expect((await readFile(join(dir, 'out', 'c1.mp3'))).equals(speech)).toBe(true);
    expect((await journalOf(dir)).filter((r) => r.t === 'cached')).toHaveLength(6);
  });

  it('submits exactly the jobs of files added since the last run', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    await runDurablyIn(dir, emulator);
    for (const [path, content] of Object.entries(clips(2, 2))) await writeFile(join(dir, path), content);

    const second = await runDurablyIn(dir, emulator);
    expect(second.outcome).toMatchObject({ status: 'done', cacheHits: 4, counts: { done: 8, cached: 4 } });
    expect(emulator.stats().submissions).toBe(4 + 4);
    const fresh = second.of('item-submitted').map((e) => `${e.node.step}/${e.node.key}`).sort();
    expect(fresh).toEqual(['speak/clips/c2.mp3', 'speak/clips/c3.mp3', 'transcribe/clips/c2.mp3', 'transcribe/clips/c3.mp3']);
  });

  it('misses for a file whose content changed under the same name, and for every job downstream of it', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    await runDurablyIn(dir, emulator);
    await writeFile(join(dir, 'clips', 'c0.mp3'), makeMp3(7));

    const second = await runDurablyIn(dir, emulator);
    expect(second.outcome).toMatchObject({ status: 'done', cacheHits: 2 });
    expect(second.of('item-submitted').map((e) => `${e.node.step}/${e.node.key}`).sort()).toEqual(['speak/clips/c0.mp3', 'transcribe/clips/c0.mp3']);
  });

  it('misses downstream when an upstream input changed, even if its own request is the same', async () => {
    const workflow = yaml(
      'version: 1',
      'name: upstream-key',
      'steps:',
      '  transcribe:',
      '    task: audio.transcribe',
      '    with: { source_file: clips/c0.mp3, model: WhisperLargeV3, include_ts: false }',
      '  speak:',
      '    task: audio.speech',
      '    needs: [transcribe]',
      '    with: { text: "A fixed line.", model: Kokoro, voice: af_sky, lang: en-us }',
      '    save: line.mp3',
    );
    const dir = await useWorkspace({ 'workflow.yaml': workflow, ...clips(1) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    await runDurablyIn(dir, emulator);
    expect((await runDurablyIn(dir, emulator)).outcome.cacheHits).toBe(2);
    await writeFile(join(dir, 'clips', 'c0.mp3'), makeMp3(9));

    const third = await runDurablyIn(dir, emulator);
    expect(third.outcome).toMatchObject({ status: 'done', cacheHits: 0 });
    expect(tasks(emulator)).toEqual(['audio.transcribe', 'audio.speech', 'audio.transcribe', 'audio.speech']);
  });

  it('--no-cache and a step with cache: false submit again', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    await runDurablyIn(dir, emulator);
    const uncached = await runDurablyIn(dir, emulator, { useCache: false });
    expect(uncached.outcome).toMatchObject({ status: 'done', cacheHits: 0 });
    expect(emulator.stats().submissions).toBe(8);
    expect((await journalOf(dir)).filter((r) => r.t === 'intent').every((r) => r.t === 'intent' && r.cache_key === null)).toBe(true);

    await writeFile(join(dir, 'workflow.yaml'), CHAIN.replace('    save: "${{ item.stem }}.txt"', '    save: "${{ item.stem }}.txt"\n    cache: false'));
    const stepOff = await runDurablyIn(dir, emulator);
    expect(stepOff.of('item-submitted').map((e) => e.node.step)).toContain('transcribe');
    expect(stepOff.of('item-submitted').filter((e) => e.node.step === 'transcribe')).toHaveLength(2);
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(['c0.mp3', 'c0.txt', 'c1.mp3', 'c1.txt']);
  });
});
