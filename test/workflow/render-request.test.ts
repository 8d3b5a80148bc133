import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandGraph } from '../../src/workflow/graph/expand-graph.js';
import { itemKey, renderKnownFields, renderRequest, renderSavePath } from '../../src/workflow/graph/render-request.js';
import { validateText, useTempDirs } from './helpers.js';
import { loadWorkflow } from '../../src/workflow/validate/load-workflow.js';

const tempDir = useTempDirs();
const yaml = `version: 1
steps:
  gen:
    task: image.generate
    for_each: { file: prompts.csv }
    with: { prompt: "\${{ item.prompt }}", model: Flux1schnell, seed: "\${{ item.seed }}" }
    save: "img/\${{ item.index }}.png"
  up:
    task: image.upscale
    for_each: gen
    with: { image: "\${{ steps.gen.result_url }}", model: RealESRGAN_x4 }
  ocr:
    task: image.ocr
    with: { image: scans/page.png, model: Nanonets_Ocr_S_F16 }
`;
const files = { 'prompts.csv': 'prompt,seed\na fox,7\na cat,8\n', 'scans/page.png': Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077533e0000000c4944415408d763f8ffff3f0005fe02fea7356b0000000049454e44ae426082', 'hex') };

describe('rendering a job for the engine', () => {
  it('renders fields, converts CSV strings and fills defaults from the model', async () => {
    const result = await validateText(tempDir, yaml, { files });
    expect(result.errors.map((e) => e.message)).toEqual([]);
    const graph = result.graph!;
    const request = renderRequest(graph, graph.step('gen'), 1, graph.scope('gen', 1, () => undefined, { id: 'r', started_at: 't' }));
    expect(request).toEqual({
      fields: { prompt: 'a cat', model: 'Flux1schnell', seed: 8, width: 1024, height: 1024, guidance: 0, steps: 4 },
      filled: ['width', 'height', 'guidance', 'steps'],
    });
  });

  it('leaves out a field whose single expression renders to null', async () => {
    const withUrl = 'version: 1\nsteps:\n  d:\n    task: video.describe\n    for_each: { items: [{ url: "https://youtu.be/a" }, { file: v.mp4 }] }\n    with: { video_url: "${{ item.url }}", video_file: "${{ item.file }}", model: Marlin_2B }\n';
    const { graph, dir } = await validateText(tempDir, withUrl, { files: { 'v.mp4': Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex') } });
    const render = (k: number) => renderRequest(graph!, graph!.step('d'), k, graph!.scope('d', k, () => undefined, { id: 'r', started_at: 't' })).fields;
    expect(render(0)).toEqual({ video_url: 'https://youtu.be/a', model: 'Marlin_2B' });
    expect(render(1)).toEqual({ video_file: resolve(dir, 'v.mp4'), model: 'Marlin_2B' });
  });

  it('passes an upstream result URL into a file field and resolves local files against the workflow', async () => {
    const { graph, dir } = await validateText(tempDir, yaml, { files });
    const results = () => ({ result_url: 'https://cdn.example/gen-0.png' });
    expect(renderRequest(graph!, graph!.step('up'), 0, graph!.scope('up', 0, results, { id: 'r', started_at: 't' })).fields).toEqual({
      image: 'https://cdn.example/gen-0.png',
      model: 'RealESRGAN_x4',
    });
    expect(renderRequest(graph!, graph!.step('ocr'), 0, graph!.scope('ocr', 0, results, { id: 'r', started_at: 't' })).fields.image).toBe(resolve(dir, 'scans/page.png'));
  });

  it('refuses a rendered value outside the model limits before anything is sent', async () => {
    const chain = 'version: 1\nsteps:\n  t:\n    task: audio.transcribe\n    with: { source_url: "https://youtu.be/a", model: WhisperLargeV3, include_ts: false }\n  s:\n    task: audio.speech\n    with: { text: "${{ steps.t.text }}", model: Kokoro }\n';
    const { graph } = await validateText(tempDir, chain);
    const scope = graph!.scope('s', 0, () => ({ text: 'Hi' }), { id: 'r', started_at: 't' });
    expect(() => renderRequest(graph!, graph!.step('s'), 0, scope)).toThrow(
      expect.objectContaining({ code: 'E_WORKFLOW_LIMIT', message: 'steps.s: with.text: expected at least 3 characters for model Kokoro (info.limits.min_text), got 2' }),
    );
  });

  it('says which fields wait for upstream results', async () => {
    const { graph } = await validateText(tempDir, yaml, { files });
    expect(renderKnownFields(graph!, graph!.step('up'), 0)).toEqual({ fields: { model: 'RealESRGAN_x4' }, pending: ['image'] });
    expect(renderKnownFields(graph!, graph!.step('gen'), 0).fields).toMatchObject({ prompt: 'a fox', seed: 7, width: 1024 });
  });

  it('renders the save path under the output folder, and a stable item key', async () => {
    const dir = await tempDir();
    const { writeTree } = await import('./helpers.js');
    await writeTree(dir, { 'wf.yaml': yaml, ...files });
    const graph = await expandGraph((await loadWorkflow('wf.yaml', { cwd: dir })).workflow!, {});
    const step = graph.step('gen');
    expect(renderSavePath(graph, step, graph.scope('gen', 1, () => undefined, { id: 'r', started_at: 't' }))).toBe(resolve(dir, 'out/img/1.png'));
    expect(itemKey(step, 1)).toBe('{"prompt":"a cat","seed":"8"}');
    expect(itemKey(graph.step('ocr'), 0)).toBe('ocr');
  });
});
