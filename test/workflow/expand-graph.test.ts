import { describe, expect, it } from 'vitest';
import { expandGraph } from '../../src/workflow/graph/expand-graph.js';
import { loadWorkflow } from '../../src/workflow/validate/load-workflow.js';
import { WorkflowInvalidError } from '../../src/workflow/workflow-error.js';
import { useTempDirs, writeTree } from './helpers.js';

const tempDir = useTempDirs();

const PIPELINE = `version: 1
steps:
  speak:
    task: audio.speech
    for_each: transcribe
    with: { text: "\${{ steps.transcribe.text }}", model: Kokoro }
  transcribe:
    task: audio.transcribe
    for_each: { glob: "media/*.mp3" }
    with: { source_file: "\${{ item.path }}", model: WhisperLargeV3, include_ts: false }
  index:
    task: text.embed
    with: { input: "\${{ steps.transcribe.text }}", model: Bge_M3_FP16 }
  notify:
    task: prompt.enhance
    needs: index
    for_each: { matrix: { type: [audio.speech, audio.music], lang: [en, fr, de] } }
    with: { prompt: "about \${{ item.lang }}", type: "\${{ item.type }}", model_slug: Kokoro }
`;

async function graphOf(yaml: string, files: Record<string, string> = {}) {
  const dir = await tempDir();
  await writeTree(dir, { 'wf.yaml': yaml, ...files });
  const loaded = await loadWorkflow('wf.yaml', { cwd: dir });
  return expandGraph(loaded.workflow!, {});
}

const media = { 'media/b.mp3': '', 'media/a.mp3': '', 'media/c.mp3': '', 'media/.hidden.mp3': '' };

describe('expandGraph', () => {
  it('orders steps by dependency, sizes them and numbers nodes globally', async () => {
    const graph = await graphOf(PIPELINE, media);
    expect(graph.steps.map((s) => [s.id, s.itemCount, s.offset, s.fansOut])).toEqual([
      ['transcribe', 3, 0, true],
      ['speak', 3, 3, true],
      ['index', 1, 6, false],
      ['notify', 6, 7, true],
    ]);
    expect(graph.nodeCount).toBe(13);
    expect(graph.nodeAt(4)).toMatchObject({ step: { id: 'speak' }, k: 1 });
    expect(graph.nodeIndex('notify', 5)).toBe(12);
  });

  it('lists glob items sorted, relative to the workflow, without hidden files', async () => {
    const graph = await graphOf(PIPELINE, media);
    expect([0, 1, 2].map((k) => graph.step('transcribe').item(k)?.path)).toEqual(['media/a.mp3', 'media/b.mp3', 'media/c.mp3']);
    expect(graph.step('speak').item(1)).toEqual({ index: 1, value: 'media/b.mp3', path: 'media/b.mp3', name: 'b.mp3', stem: 'b', ext: 'mp3', dir: 'media' });
  });

  it('decodes matrix items from the index, first key outermost', async () => {
    const graph = await graphOf(PIPELINE, media);
    const notify = graph.step('notify');
    expect([0, 1, 3, 5].map((k) => notify.item(k)?.value)).toEqual([
      { type: 'audio.speech', lang: 'en' },
      { type: 'audio.speech', lang: 'fr' },
      { type: 'audio.music', lang: 'en' },
      { type: 'audio.music', lang: 'de' },
    ]);
  });

  it('makes per-item edges for chains, gathers for steps that run once, and one-to-all for needs on a single job', async () => {
    const graph = await graphOf(PIPELINE, media);
    expect(graph.edges.map((e) => `${e.from}->${e.to} ${e.kind} ${e.origins.join('+')}`)).toEqual([
      'transcribe->speak item chain+ref',
      'transcribe->index all ref',
      'index->notify one needs',
    ]);
    const refs = (nodes: Iterable<{ step: { id: string }; k: number }>) => [...nodes].map((n) => `${n.step.id}#${n.k}`);
    expect(refs(graph.dependencies('speak', 2))).toEqual(['transcribe#2']);
    expect(refs(graph.dependencies('index', 0))).toEqual(['transcribe#0', 'transcribe#1', 'transcribe#2']);
    expect(refs(graph.dependents('transcribe', 1))).toEqual(['speak#1', 'index#0']);
    expect(graph.dependencyCount('notify', 4)).toBe(1);
    expect(graph.dependencyCount('transcribe', 0)).toBe(0);
  });

  it('builds the expression scope: the same item in a chain, lists in a gather', async () => {
    const graph = await graphOf(PIPELINE, media);
    const results = (id: string, k: number) => ({ text: `${id}-${k}`, cost: k });
    const run = { id: 'r', started_at: 't' };
    expect(graph.scope('speak', 1, results, run).steps).toEqual({ transcribe: { text: 'transcribe-1', cost: 1 } });
    expect(graph.scope('index', 0, results, run).steps).toMatchObject({ transcribe: { text: ['transcribe-0', 'transcribe-1', 'transcribe-2'], cost: [0, 1, 2] } });
  });

  it('treats two steps fanned out over the same chain as per-item', async () => {
    const yaml = `version: 1\nsteps:\n  t:\n    task: audio.transcribe\n    for_each: { items: ["https://youtu.be/a", "https://youtu.be/b"] }\n    with: { source_url: "\${{ item.value }}", model: WhisperLargeV3, include_ts: false }\n  a:\n    task: text.embed\n    for_each: t\n    with: { input: "\${{ steps.t.text }}", model: Bge_M3_FP16 }\n  b:\n    task: text.embed\n    for_each: t\n    with: { input: "\${{ steps.a.json }}", model: Bge_M3_FP16 }\n`;
    expect((await graphOf(yaml)).edges.map((e) => `${e.from}->${e.to} ${e.kind}`)).toEqual(['t->a item', 't->b item', 'a->b item']);
  });

  it('gives a step over an empty glob no nodes, and its chain none either', async () => {
    const graph = await graphOf(PIPELINE, { 'media/notes.txt': '' });
    expect(graph.steps.map((s) => s.itemCount)).toEqual([0, 0, 1, 6]);
    expect([...graph.dependencies('index', 0)]).toEqual([]);
    expect(graph.nodeAt(0)).toMatchObject({ step: { id: 'index' }, k: 0 });
  });

  it('throws a coded error for a cycle or a bad input', async () => {
    const cyclic = 'version: 1\nsteps:\n  a:\n    task: text.embed\n    needs: a\n    with: { input: x, model: Bge_M3_FP16 }\n';
    await expect(graphOf(cyclic)).rejects.toMatchObject({ code: 'E_WORKFLOW_INVALID', message: 'wf.yaml:3:3: steps.a: steps wait for each other in a cycle: a → a' });
    const dir = await tempDir();
    await writeTree(dir, { 'wf.yaml': 'version: 1\ninputs:\n  n: { type: integer }\nsteps:\n  a:\n    task: text.embed\n    with: { input: x, model: Bge_M3_FP16 }\n' });
    const loaded = await loadWorkflow('wf.yaml', { cwd: dir });
    const error = await expandGraph(loaded.workflow!, { n: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowInvalidError);
    expect((error as WorkflowInvalidError).errors.map((e) => e.code)).toEqual(['E_WORKFLOW_INPUT']);
  });
});

describe('the output folder', () => {
  it('is rendered from inputs beside the workflow, and an empty one is an error', async () => {
    const yaml = 'version: 1\ninputs:\n  where: { type: string, default: results }\noutput: "runs/${{ inputs.where }}"\nsteps:\n  a:\n    task: text.embed\n    with: { input: x, model: Bge_M3_FP16 }\n';
    const { validateText } = await import('./helpers.js');
    const ok = await validateText(tempDir, yaml);
    expect(ok.graph?.outputDir).toBe(`${ok.dir}/runs/results`);
    const empty = await validateText(tempDir, yaml.replace('runs/${{ inputs.where }}', '${{ inputs.where }}'), { validate: { inputs: { values: { where: ' ' } } } });
    expect(empty.errors.map((e) => e.message)).toEqual(['wf.yaml:4:9: output: expected an output folder, got an empty path']);
  });
});
