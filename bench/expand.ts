/**
 * `npm run bench -- expand [SIZES…]`: time and peak RSS of loading a workflow and expanding
 * its graph over N glob items (default 1,000, 10,000 and 100,000 empty files in a temp dir).
 * Each size runs in its own process so peak RSS is that size's alone. The workflow is a
 * 3-step pipeline: a glob fan-out, a per-item chain, and a gather. Targets at 100k items:
 * ≤ 2 s and ≤ 300 MB.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expandGraph } from '../src/workflow/graph/expand-graph.js';
import { loadWorkflow } from '../src/workflow/validate/load-workflow.js';

const WORKFLOW = `version: 1
steps:
  transcribe:
    task: audio.transcribe
    for_each: { glob: "media/*.mp3" }
    with: { source_file: "\${{ item.path }}", model: WhisperLargeV3, include_ts: false }
    save: "\${{ item.stem }}.txt"
  speak:
    task: audio.speech
    for_each: transcribe
    with: { text: "\${{ steps.transcribe.text }}", model: Kokoro, lang: en-us }
    save: "\${{ item.stem }}.mp3"
  index:
    task: text.embed
    with: { input: "\${{ steps.transcribe.text }}", model: Bge_M3_FP16 }
`;

interface Measurement {
  readonly items: number;
  readonly seconds: number;
  /** Of `seconds`: reading, parsing and schema-checking the file (the rest is listing items and building the graph). */
  readonly load_seconds: number;
  readonly iterate_seconds: number;
  readonly peak_rss_mb: number;
  readonly baseline_rss_mb: number;
  readonly nodes: number;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  if (args[0] === '--child') return measure(Number(args[1]), args[2]!);
  const sizes = args.length > 0 ? args.map(Number) : [1_000, 10_000, 100_000];
  const results: Measurement[] = [];
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'deflow-bench-expand-'));
    try {
      prepare(dir, size);
      const runner = join(dirname(fileURLToPath(import.meta.url)), 'run.js');
      const child = spawnSync(process.execPath, [runner, 'expand', '--child', String(size), dir], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`child for ${size} items failed: ${child.stderr}`);
      const last = child.stdout.trim().split('\n').pop() ?? '{}';
      results.push(JSON.parse(last) as Measurement);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write('items      load+expand  (load)      walk all nodes  peak RSS   (baseline RSS)\n');
  for (const r of results) {
    process.stdout.write(`${String(r.items).padStart(7)}   ${r.seconds.toFixed(3).padStart(8)} s   (${r.load_seconds.toFixed(3)} s)   ${r.iterate_seconds.toFixed(3).padStart(10)} s   ${r.peak_rss_mb.toFixed(0).padStart(5)} MB   (${r.baseline_rss_mb.toFixed(0)} MB)\n`);
  }
  return {
    items: results.map((r) => r.items),
    seconds: results.map((r) => r.seconds),
    load_seconds: results.map((r) => r.load_seconds),
    iterate_seconds: results.map((r) => r.iterate_seconds),
    peak_rss_mb: results.map((r) => r.peak_rss_mb),
    baseline_rss_mb: results.map((r) => r.baseline_rss_mb),
  };
}

function prepare(dir: string, size: number): void {
  mkdirSync(join(dir, 'media'));
  for (let i = 0; i < size; i++) writeFileSync(join(dir, 'media', `episode-${String(i).padStart(7, '0')}.mp3`), '');
  writeFileSync(join(dir, 'bench.yaml'), WORKFLOW);
}

async function measure(size: number, dir: string): Promise<Record<string, unknown>> {
  const baseline = process.memoryUsage().rss;
  const started = performance.now();
  const loaded = await loadWorkflow(join(dir, 'bench.yaml'));
  if (!loaded.workflow || loaded.errors.length > 0) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  const parsed = performance.now();
  const graph = await expandGraph(loaded.workflow, {});
  const expanded = performance.now();
  // Walk every node once as a scheduler would: its item, and how many nodes it waits for.
  let checksum = 0;
  for (const { step, k } of graph.nodes()) {
    checksum += graph.dependencyCount(step.id, k) + (step.item(k)?.stem?.length ?? 0);
  }
  const walked = performance.now();
  if (graph.nodeCount !== 2 * size + 1 || checksum === 0) throw new Error(`unexpected graph: ${graph.nodeCount} nodes`);
  return {
    items: size,
    nodes: graph.nodeCount,
    seconds: round((expanded - started) / 1000),
    load_seconds: round((parsed - started) / 1000),
    iterate_seconds: round((walked - expanded) / 1000),
    peak_rss_mb: round(process.resourceUsage().maxRSS / 1024),
    baseline_rss_mb: round(baseline / (1024 * 1024)),
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
