/**
 * `npm run bench -- quote-accuracy [--time-scale 200] [--seed 3] [--only NAME]`
 *
 * How far a quote is from what a run is charged. For every workflow in `workflows/` and five
 * chained pipelines (generate 512² images → upscale ×4; transcribe with `include_ts: true` →
 * speech of the timestamped transcript; describe 5 video URLs → embed the gathered
 * descriptions; generate videos → upscale → remove the background; generate images → remove
 * the background → OCR), each on a fresh emulator: quote it as `deflow quote` does, then run it
 * as `deflow run` does, and take the emulator's balance before and after as the truth.
 *
 * Per workflow: the point error `|quote − actual| / actual`, whether `actual ≤ high end`, and
 * the unknown items. Targets: point error ≤ 10 % on every pipeline, actual ≤ high end
 * everywhere, 0 unknown items where sizes are fixed in the workflow. Last line:
 * `{ max_point_error_pct, above_high_end, unknown_items, … }`.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeapiClient } from '../src/client/deapi-client.js';
import { makeMp3 } from '../src/emulator/media/index.js';
import { startEmulator } from '../src/emulator/start-emulator.js';
import { quoteRun } from '../src/engine/quote/quote.js';
import { quoteInputFromGraph } from '../src/engine/quote/quote-input-from-graph.js';
import { clientPriceSource } from '../src/engine/quote/quote-price-source.js';
import { runWorkflow } from '../src/engine/run-workflow.js';
import { GatedGovernor } from '../src/engine/run/submit-gate.js';
import { validateWorkflow } from '../src/workflow/validate/validate-workflow.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { printTable, readNumberArg, round } from './_bench-util.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The chained pipelines, beside the bundled workflows (their media is written by `setup`). */
const PIPELINES: Readonly<Record<string, { yaml: string; setup?: (dir: string) => Promise<void> }>> = {
  'generate-upscale': {
    yaml: `version: 1
name: generate-upscale
steps:
  generate:
    task: image.generate
    for_each: { items: ["a lighthouse at dusk", "a red fox in snow", "a paper boat"] }
    with: { prompt: "\${{ item.value }}", model: Flux1schnell, width: 512, height: 512, steps: 4, seed: 7 }
  upscale:
    task: image.upscale
    for_each: generate
    with: { image: "\${{ steps.generate.result_url }}", model: RealESRGAN_x4 }
    save: "up-\${{ item.index }}.png"
`,
  },
  'transcribe-ts-speech': {
    yaml: `version: 1
name: transcribe-ts-speech
steps:
  transcribe:
    task: audio.transcribe
    for_each: { glob: "clips/*.mp3" }
    with: { source_file: "\${{ item.path }}", model: WhisperLargeV3, include_ts: true }
  speak:
    task: audio.speech
    for_each: transcribe
    with: { text: "\${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }
`,
    setup: async (dir) => {
      for (const [i, seconds] of [45, 90, 150, 240].entries()) await writeFile(join(dir, 'clips', `clip-${i}.mp3`), makeMp3(seconds));
    },
  },
  'video-upscale': {
    yaml: `version: 1
name: video-upscale
steps:
  clip:
    task: video.generate
    for_each: { items: ["waves on a beach", "a city at night"] }
    with: { prompt: "\${{ item.value }}", model: Ltxv_13B_0_9_8_Distilled_FP8, width: 512, height: 512, frames: 90, fps: 30, seed: 1 }
  sharpen:
    task: video.upscale
    for_each: clip
    with: { video: "\${{ steps.clip.result_url }}", model: RealESRGAN_Vid_x4 }
  cutout:
    task: video.remove-background
    for_each: sharpen
    with: { video: "\${{ steps.sharpen.result_url }}", model: RMBG-1.4 }
`,
  },
  'image-chain': {
    yaml: `version: 1
name: image-chain
steps:
  generate:
    task: image.generate
    for_each: { items: ["a street sign", "a shop window"] }
    with: { prompt: "\${{ item.value }}", model: Flux1schnell, width: 768, height: 512, steps: 4, seed: 3 }
  cutout:
    task: image.remove-background
    for_each: generate
    with: { image: "\${{ steps.generate.result_url }}", model: Ben2 }
  read:
    task: image.ocr
    for_each: cutout
    with: { image: "\${{ steps.cutout.result_url }}", model: Nanonets_Ocr_S_F16 }
`,
  },
  'describe-embed': {
    yaml: `version: 1
name: describe-embed
steps:
  describe:
    task: video.describe
    for_each:
      items:
        - https://www.youtube.com/watch?v=launchKeynote
        - https://www.youtube.com/watch?v=factoryTour1
        - https://www.youtube.com/watch?v=interviewP01
        - https://www.youtube.com/watch?v=interviewP02
        - https://www.youtube.com/watch?v=productDemo9
    with: { video_url: "\${{ item.value }}", model: Marlin_2B, preset: balanced }
  embed:
    task: text.embed
    with: { input: "\${{ steps.describe.text }}", model: Bge_M3_FP16 }
`,
  },
};

interface Figures {
  readonly name: string;
  readonly pipeline: boolean;
  readonly point: number;
  readonly high: number;
  readonly actual: number;
  readonly errorPct: number;
  readonly underHigh: boolean;
  readonly unknown: number;
  readonly methods: string;
  readonly status: string;
}

async function measure(name: string, dir: string, file: string, timeScale: number, seed: number, pipeline: boolean): Promise<Figures> {
  const emulator = await startEmulator({ config: { time_scale: timeScale, seed, balance: 1000 } });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock: emulator.clock, governor: new GatedGovernor({ clock: emulator.clock }) });
  try {
    const validation = await validateWorkflow(join(dir, file), { offline: true });
    if (!validation.ok || !validation.graph) throw new Error(`${name}: invalid: ${validation.errors.map((e) => e.message).join('; ')}`);
    const graph = validation.graph;
    const quote = await quoteRun(quoteInputFromGraph(graph), { prices: clientPriceSource(client), clock: client.clock });
    const before = (await client.balance()).balance;
    const outcome = await runWorkflow({ graph, client, stateDir: join(dir, '.deflow'), onEvent: () => {} });
    const after = (await client.balance()).balance;
    const actual = round(before - after, 6);
    const charged = new Map<string, number>();
    for (const job of emulator.jobs()) if (job.status === 'done') charged.set(job.task, (charged.get(job.task) ?? 0) + job.price);
    const counts = quote.steps.map((s) => {
      const how = Object.entries(s.counts).filter(([, n]) => n > 0).map(([m, n]) => `${n} ${m}`).join('+');
      return `${s.id} ${how} $${round(s.subtotal.point, 6)}→$${round(charged.get(s.task) ?? 0, 6)}`;
    });
    return {
      name,
      pipeline,
      point: quote.total.point,
      high: quote.total.high,
      actual,
      errorPct: actual > 0 ? round((Math.abs(quote.total.point - actual) / actual) * 100, 2) : quote.total.point === 0 ? 0 : 100,
      underHigh: actual <= quote.total.high + 1e-9,
      unknown: quote.total.unknown_items,
      methods: counts.join(', '),
      status: outcome.status,
    };
  } finally {
    await client.close();
    await emulator.close();
  }
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  linkBenchSchemas();
  const timeScale = readNumberArg(args, 'time-scale', 200);
  const seed = readNumberArg(args, 'seed', 3);
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
  const root = await mkdtemp(join(tmpdir(), 'deflow-bench-quote-accuracy-'));
  try {
    await cp(join(REPO, 'workflows'), join(root, 'workflows'), { recursive: true, filter: (src) => !/[/\\](out|\.deflow)([/\\]|$)/.test(src) });
    const targets: { name: string; dir: string; file: string; pipeline: boolean }[] = [];
    for (const file of ['demo', 'podcast-dub', 'describe-videos', 'image-batch', 'music-captions', 'transcript-embeddings', 'ocr-scans']) {
      targets.push({ name: file, dir: join(root, 'workflows'), file: `${file}.yaml`, pipeline: false });
    }
    for (const [name, pipeline] of Object.entries(PIPELINES)) {
      const dir = join(root, name);
      await cp(join(root, 'workflows', 'media'), join(dir, 'media'), { recursive: true });
      await mkdir(join(dir, 'clips'), { recursive: true });
      await writeFile(join(dir, 'workflow.yaml'), pipeline.yaml);
      await pipeline.setup?.(dir);
      targets.push({ name, dir, file: 'workflow.yaml', pipeline: true });
    }
    const results: Figures[] = [];
    for (const t of targets) {
      if (only !== undefined && t.name !== only) continue;
      results.push(await measure(t.name, t.dir, t.file, timeScale, seed, t.pipeline));
    }
    process.stdout.write(`quote-accuracy: quote, then run, on a fresh emulator each (time scale ${timeScale}, seed ${seed}); actual = balance delta\n`);
    printTable(
      ['workflow', 'quote point $', 'high end $', 'actual $', 'point error %', 'actual ≤ high', 'unknown', 'run', 'how obtained'],
      results.map((r) => [r.name, round(r.point, 6), round(r.high, 6), r.actual, r.errorPct, r.underHigh ? 'yes' : 'NO', r.unknown, r.status, r.methods]),
    );
    const pipelines = results.filter((r) => r.pipeline);
    return {
      time_scale: timeScale,
      seed,
      workflows: results.length,
      max_point_error_pct: Math.max(0, ...results.map((r) => r.errorPct)),
      max_pipeline_point_error_pct: Math.max(0, ...pipelines.map((r) => r.errorPct)),
      above_high_end: results.filter((r) => !r.underHigh).length,
      unknown_items: results.reduce((n, r) => n + r.unknown, 0),
      per_workflow: Object.fromEntries(results.map((r) => [r.name, { point: round(r.point, 6), high: round(r.high, 6), actual: r.actual, error_pct: r.errorPct, unknown: r.unknown }])),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
