/**
 * `npm run bench -- unknowns [--n 1000] [--drop 0.05] [--time-scale 50] [--seed 1]`
 *
 * Lost submission answers, with and without webhooks. N speech jobs on the emulator with
 * `faults.drop_answer_rate` (each dropped submission is accepted, created and charged, and
 * its answer lost: a connection reset), through `runDurably` (what `deflow run` calls), once
 * with `--webhook-url` reachable (the emulator delivers to deflow's receiver over loopback)
 * and once without webhooks.
 *
 * Figures per mode: `dropped` (answers the emulator dropped), `left_unknown` (items the run
 * ended with as `unknown`; target 0 with webhooks), `adopted` (items adopted from a delivery
 * naming them), `paid_twice` (jobs the emulator created beyond one per item: the same
 * parameters twice; target 0), `breaker_trips` (the emulator's account webhook breaker;
 * target 0), `status_requests` (the run's status requests in all) and
 * `status_requests_per_adopted` (status requests / adopted items: an upper bound on the extra
 * status requests an adoption costs, since every status request is counted).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeapiClient } from '../src/client/deapi-client.js';
import { startEmulator } from '../src/emulator/start-emulator.js';
import { runDurably } from '../src/engine/run-durably.js';
import { GatedGovernor } from '../src/engine/run/submit-gate.js';
import { validateWorkflow } from '../src/workflow/validate/validate-workflow.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { printTable, readNumberArg, round } from './_bench-util.js';
import { anchoredClock, anchorNow } from './_child-process.js';

interface ModeFigures {
  readonly items: number;
  readonly dropped: number;
  readonly left_unknown: number;
  readonly adopted: number;
  readonly paid_twice: number;
  readonly breaker_trips: number;
  readonly status_requests: number;
  readonly status_requests_per_adopted: number | null;
  readonly done: number;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const n = readNumberArg(args, '--n', 1000);
  const drop = readNumberArg(args, '--drop', 0.05);
  const timeScale = readNumberArg(args, '--time-scale', 50);
  const seed = readNumberArg(args, '--seed', 1);
  linkBenchSchemas();
  const withHooks = await runMode(n, drop, timeScale, seed, true);
  const without = await runMode(n, drop, timeScale, seed, false);
  printTable(
    ['mode', 'items', 'dropped', 'left unknown', 'adopted', 'paid twice', 'breaker trips', 'status requests', 'per adopted'],
    [
      ['webhooks', n, withHooks.dropped, withHooks.left_unknown, withHooks.adopted, withHooks.paid_twice, withHooks.breaker_trips, withHooks.status_requests, withHooks.status_requests_per_adopted ?? '-'],
      ['no webhooks', n, without.dropped, without.left_unknown, without.adopted, without.paid_twice, without.breaker_trips, without.status_requests, '-'],
    ],
  );
  return { n, drop_answer_rate: drop, time_scale: timeScale, seed, webhooks: withHooks, no_webhooks: without };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function runMode(n: number, drop: number, timeScale: number, seed: number, hooks: boolean): Promise<ModeFigures> {
  const anchor = anchorNow(timeScale);
  const clock = anchoredClock(anchor);
  const rate = { rpm: 6000, rpd: null };
  const emulator = await startEmulator({
    clock,
    config: {
      seed,
      time_scale: timeScale,
      balance: 1_000_000,
      faults: { drop_answer_rate: drop },
      webhooks: { allow_http: true },
      rate_limits: { endpoints: { 'audio/speech': rate }, jobs_status: null },
      jobs: { durations: { 'audio/speech': 10_000 }, jitter: 0.3, scale_by_input: false },
    },
  });
  const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-unknowns-'));
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, governor: new GatedGovernor({ clock }) });
  try {
    await writeFile(join(dir, 'lines.txt'), `${Array.from({ length: n }, (_, i) => `Line ${i + 1} of the unknowns benchmark.`).join('\n')}\n`);
    await writeFile(
      join(dir, 'unknowns.yaml'),
      ['version: 1', 'name: bench-unknowns', 'steps:', '  speak:', '    task: audio.speech', '    for_each: { file: lines.txt }', '    with: { text: "${{ item.value }}", model: Kokoro, voice: af_sky, lang: en-us }', ''].join('\n'),
    );
    const validation = await validateWorkflow(join(dir, 'unknowns.yaml'), { offline: true });
    if (!validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
    const port = await freePort();
    const outcome = await runDurably({
      graph: validation.graph,
      client,
      clock,
      stateDir: join(dir, '.deflow'),
      onEvent: () => undefined,
      ...(hooks ? { webhook: { url: `http://127.0.0.1:${port}/hooks`, listen: `127.0.0.1:${port}` } } : {}),
    });
    const stats = emulator.stats();
    const perParams = new Map<string, number>();
    for (const job of emulator.jobs()) perParams.set(job.params_digest, (perParams.get(job.params_digest) ?? 0) + 1);
    const paidTwice = [...perParams.values()].reduce((sum, count) => sum + (count - 1), 0);
    const adopted = outcome.webhooks?.adopted ?? 0;
    return {
      items: n,
      done: outcome.counts.done,
      dropped: stats.dropped_answers,
      left_unknown: outcome.counts.unknown,
      adopted,
      paid_twice: paidTwice,
      breaker_trips: stats.webhooks?.breaker_trips ?? 0,
      status_requests: stats.polls,
      status_requests_per_adopted: adopted === 0 ? null : round(stats.polls / adopted, 2),
    };
  } finally {
    await client.close();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}
