/**
 * `npm run bench -- fanout [--sizes 1000,10000,100000] [--time-scale 100] [--concurrency 256]`
 *
 * One step fanned out over N items (text.embed, one line of a text file each), rate limits
 * off and jobs of ~1 ms, so nothing but deflow's own work is measured (performance.md §7,
 * B7 and B8). Each size runs `runWorkflow` in its own child process (its CPU and peak RSS
 * alone; the emulator stays in the parent). The HTTP floor is measured in another child: the
 * same client submitting and polling jobs from a lazy pool with no engine, CPU per request, at
 * the largest N (so that both figures there are equally warmed up).
 *
 *   cpu_us_per_job        child CPU during the run / N
 *   engine_us_per_job     (CPU − floor per request × requests sent) / N at the largest N: all deflow adds
 *                         to the bare client calls (rendering each request, events, state)
 *   scheduler_us_per_job  CPU / N of the same run with a no-op job runner (each node submitted
 *                         and done through the run state, no HTTP): the scheduling bookkeeping
 *   rss_mb_per_10k        (peak RSS at the largest N − at the middle N) per 10,000 items
 *
 * Targets (performance.md B7, B8): scheduler ≤ 20 µs per job, ≤ 5 MiB per 10k items.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeapiClient } from '../src/client/deapi-client.js';
import { isTerminalStatus } from '../src/client/tolerant-read.js';
import { startEmulator } from '../src/emulator/start-emulator.js';
import { runWorkflowWith } from '../src/engine/run-workflow.js';
import type { NodeRunners } from '../src/engine/run/scheduler.js';
import { GatedGovernor } from '../src/engine/run/submit-gate.js';
import { validateWorkflow } from '../src/workflow/validate/validate-workflow.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { printTable, readNumberArg, round } from './_bench-util.js';
import { anchoredClock, anchorNow, type ClockAnchor, ownUsage, runChild } from './_child-process.js';

interface ChildPayload {
  readonly mode: 'deflow' | 'floor' | 'scheduler';
  readonly url: string;
  readonly apiKey: string;
  readonly anchor: ClockAnchor;
  readonly dir: string;
  readonly n: number;
  readonly concurrency: number;
}

interface SizeFigures {
  readonly n: number;
  readonly cpu_us_per_job: number;
  readonly engine_us_per_job: number;
  readonly scheduler_us_per_job: number;
  readonly requests_per_job: number;
  readonly peak_rss_mb: number;
  readonly wall_s: number;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  linkBenchSchemas();
  const sizesArg = args.indexOf('--sizes') >= 0 ? (args[args.indexOf('--sizes') + 1] ?? '') : '1000,10000,100000';
  const sizes = sizesArg.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
  const timeScale = readNumberArg(args, 'time-scale', 100);
  const concurrency = readNumberArg(args, 'concurrency', 256);
  const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-fanout-'));
  try {
    process.stdout.write(`fanout: ${sizes.join(', ')} items, one step, limits off, jobs ~1 ms; ${concurrency} in flight; time scale ${timeScale}\n`);
    // Measured at the largest size, so that the engine's figure there compares equally warmed-up code.
    const largestN = Math.max(...sizes);
    const floor = await measure(dir, { mode: 'floor', n: largestN, concurrency }, timeScale);
    const floorPerRequest = floor.cpuUs / floor.requests;
    const figures: SizeFigures[] = [];
    for (const n of sizes) {
      await writeFile(join(dir, 'items.txt'), Array.from({ length: n }, (_, i) => `item ${i} of the fan-out`).join('\n'));
      const measured = await measure(dir, { mode: 'deflow', n, concurrency }, timeScale);
      const bookkeeping = await measure(dir, { mode: 'scheduler', n, concurrency }, timeScale);
      figures.push({
        n,
        cpu_us_per_job: round(measured.cpuUs / n, 1),
        engine_us_per_job: n === largestN ? round((measured.cpuUs - floorPerRequest * measured.requests) / n, 1) : Number.NaN,
        scheduler_us_per_job: round(bookkeeping.cpuUs / n, 2),
        requests_per_job: round(measured.requests / n, 3),
        peak_rss_mb: measured.rss,
        wall_s: round(measured.wallS, 1),
      });
    }
    printTable(
      ['items', 'cpu µs/job', 'engine µs/job', 'scheduler µs/job', 'req/job', 'peak MiB', 'wall s'],
      figures.map((f) => [f.n, f.cpu_us_per_job, Number.isNaN(f.engine_us_per_job) ? '-' : f.engine_us_per_job, f.scheduler_us_per_job, f.requests_per_job, f.peak_rss_mb, f.wall_s]),
    );
    process.stdout.write(`HTTP floor (client alone): ${round(floorPerRequest, 1)} µs of CPU per request, ${round(floor.cpuUs / floor.n, 1)} µs per job\n`);
    const largest = figures.at(-1)!;
    const middle = figures.at(-2) ?? figures[0]!;
    const slope = largest.n === middle.n ? Number.NaN : ((largest.peak_rss_mb - middle.peak_rss_mb) / (largest.n - middle.n)) * 10_000;
    return {
      sizes,
      time_scale: timeScale,
      concurrency,
      floor_us_per_request: round(floorPerRequest, 1),
      cpu_us_per_job: largest.cpu_us_per_job,
      scheduler_us_per_job: largest.scheduler_us_per_job,
      engine_us_per_job: largest.engine_us_per_job,
      rss_mb_per_10k: round(slope, 2),
      peak_rss_mb: Object.fromEntries(figures.map((f) => [f.n, f.peak_rss_mb])),
      per_size: figures,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(dir: string, what: Pick<ChildPayload, 'mode' | 'n' | 'concurrency'>, timeScale: number) {
  const anchor = anchorNow(timeScale);
  const off = null;
  const emulator = await startEmulator({
    clock: anchoredClock(anchor),
    config: {
      time_scale: timeScale,
      balance: 1_000_000_000,
      rate_limits: { generation: off, fallback: off, quote: off, enhancement: off, jobs_status: off },
      jobs: { duration_ms: 1, scale_by_input: false, queue_share: 0 },
    },
  });
  try {
    const started = performance.now();
    const report = await runChild(fileURLToPath(import.meta.url), { ...what, url: emulator.url, apiKey: emulator.keys.api, anchor, dir } satisfies ChildPayload);
    const stats = emulator.stats();
    return {
      n: what.n,
      cpuUs: Number(report.run_cpu_us),
      requests: stats.requests - stats.downloads,
      rss: report.peak_rss_mb,
      wallS: (performance.now() - started) / 1000,
    };
  } finally {
    await emulator.close();
  }
}

// ---- child process ----

async function child(payload: ChildPayload): Promise<Record<string, unknown>> {
  const clock = anchoredClock(payload.anchor);
  const client = new DeapiClient({ apiKey: payload.apiKey, baseUrl: payload.url, clock, governor: new GatedGovernor({ clock }) });
  let cpu: NodeJS.CpuUsage;
  if (payload.mode !== 'floor') {
    const file = join(payload.dir, 'fanout.yaml');
    await writeFile(
      file,
      ['version: 1', 'name: fanout', 'steps:', '  embed:', '    task: text.embed', '    for_each: { file: items.txt }', '    with: { input: "${{ item.value }}", model: Bge_M3_FP16 }', ''].join('\n'),
    );
    const validation = await validateWorkflow(file, { offline: true });
    if (!validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
    const before = process.cpuUsage();
    const outcome = await runWorkflowWith({
      graph: validation.graph,
      client,
      clock,
      stateDir: join(payload.dir, '.deflow'),
      onEvent: () => {},
      concurrency: payload.concurrency,
      ...(payload.mode === 'scheduler' ? { runners: NO_OP_RUNNERS } : {}),
    });
    cpu = process.cpuUsage(before);
    if (outcome.counts.done !== payload.n) throw new Error(`only ${outcome.counts.done} of ${payload.n} jobs done`);
  } else {
    const before = process.cpuUsage();
    await floorRun(client, payload.n, payload.concurrency, clock);
    cpu = process.cpuUsage(before);
  }
  await client.close();
  return { run_cpu_us: cpu.user + cpu.system, ...ownUsage() };
}

/** Each node submitted and done through the run state at once: the scheduler's bookkeeping alone. */
const NO_OP_RUNNERS: NodeRunners = {
  async run(ctx, id) {
    await ctx.state.submitted(id, 1, 'no-op');
    await ctx.state.done(id, { result: { kind: 'vectors', requestId: 'no-op', url: null, cost: 0 }, outputs: [], cached: false, cacheKey: null });
    return 'done';
  },
  resume: async () => 'done',
};

/** The client alone: a lazy pool submitting and polling, with no engine around it. */
async function floorRun(client: DeapiClient, n: number, concurrency: number, clock: ReturnType<typeof anchoredClock>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const answer = await client.submit('text.embed', { input: `item ${i} of the fan-out`, model: 'Bge_M3_FP16' });
      if (answer.kind !== 'job') continue;
      for (;;) {
        await clock.sleep(2);
        if (isTerminalStatus((await client.jobStatus(answer.requestId)).status)) break;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await child(JSON.parse(process.argv[3] ?? '{}') as ChildPayload);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
