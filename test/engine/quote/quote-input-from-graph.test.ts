import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import type { QuoteItem, QuoteStep } from '../../../src/engine/quote/quote-input.js';
import { quoteInputFromGraph } from '../../../src/engine/quote/quote-input-from-graph.js';
import { validateWorkflow } from '../../../src/workflow/validate/validate-workflow.js';
import { useTempDir } from './quote-fixtures.js';

async function items(step: QuoteStep): Promise<QuoteItem[]> {
  const out: QuoteItem[] = [];
  for await (const item of step.iterate()) out.push(item);
  return out;
}

async function inputFor(yaml: string, inputs: Record<string, unknown> = {}) {
  const dir = await useTempDir();
  await mkdir(join(dir, 'ep'));
  await writeFile(join(dir, 'ep', 'one.mp3'), makeMp3(3));
  await writeFile(join(dir, 'ep', 'two.mp3'), makeMp3(4));
  await writeFile(join(dir, 'w.yaml'), yaml);
  const result = await validateWorkflow('w.yaml', { cwd: dir, offline: true, inputs: { values: inputs } });
  expect(result.errors.map((e) => e.message)).toEqual([]);
  return { dir, input: quoteInputFromGraph(result.graph!) };
}

describe('quote input from a job graph', () => {
  it('renders known fields, resolves files against the workflow folder and marks step results pending', async () => {
    const { dir, input } = await inputFor(`version: 1
name: chain
budget: { max_cost: 2.5 }
inputs:
  voice: { type: string, default: af_sky }
steps:
  hear:
    task: audio.transcribe
    for_each: { glob: "ep/*.mp3" }
    with: { source_file: "\${{ item.path }}", model: WhisperLargeV3, include_ts: false }
  say:
    task: audio.speech
    for_each: hear
    with: { text: "Episode \${{ item.stem }}: \${{ steps.hear.text }}", model: Kokoro, voice: "\${{ inputs.voice }}", lang: en-us }
`);
    expect(input).toMatchObject({ workflow: 'w.yaml', maxCost: 2.5 });
    const [hear, say] = input.steps;
    expect(hear).toMatchObject({ id: 'hear', task: 'audio.transcribe', items: 2, upstream: null });
    expect(await items(hear!)).toEqual([
      { index: 0, key: 'ep/one.mp3', fields: { source_file: { path: join(dir, 'ep', 'one.mp3') }, model: 'WhisperLargeV3', include_ts: false }, pending: [] },
      { index: 1, key: 'ep/two.mp3', fields: { source_file: { path: join(dir, 'ep', 'two.mp3') }, model: 'WhisperLargeV3', include_ts: false }, pending: [] },
    ]);
    expect(say).toMatchObject({ id: 'say', task: 'audio.speech', items: 2, upstream: 'hear' });
    const [first] = await items(say!);
    expect(first).toMatchObject({ index: 0, key: 'ep/one.mp3', pending: ['text'] });
    expect(first!.fields).toMatchObject({ model: 'Kokoro', voice: 'af_sky', lang: 'en-us' });
    expect(first!.fields).not.toHaveProperty('text');
  });

  it('points a gathering step at every upstream item and leaves out nodes whose `if` is false', async () => {
    const { input } = await inputFor(
      `version: 1
name: gather
inputs:
  embed: { type: boolean, default: true }
steps:
  hear:
    task: audio.transcribe
    for_each: { glob: "ep/*.mp3" }
    if: \${{ item.stem != 'two' }}
    with: { source_file: "\${{ item.path }}", model: WhisperLargeV3, include_ts: false }
  embed:
    task: text.embed
    if: \${{ inputs.embed }}
    with: { input: "\${{ steps.hear.text }}", model: Bge_M3_FP16 }
`,
      { embed: false },
    );
    const [hear, embed] = input.steps;
    expect((await items(hear!)).map((i) => i.key)).toEqual(['ep/one.mp3']);
    expect(await items(embed!)).toEqual([]);
    const again = await inputFor(
      `version: 1
name: gather
steps:
  hear:
    task: audio.transcribe
    for_each: { glob: "ep/*.mp3" }
    with: { source_file: "\${{ item.path }}", model: WhisperLargeV3, include_ts: false }
  embed:
    task: text.embed
    with: { input: "\${{ steps.hear.text }}", model: Bge_M3_FP16 }
`,
    );
    const [gathered] = await items(again.input.steps[1]!);
    expect(gathered).toMatchObject({ index: 0, key: 'embed', pending: ['input'], upstreamIndexes: [0, 1] });
  });
});
