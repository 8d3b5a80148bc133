/**
 * Issue 30 with real components, through the built CLI: spans to an OTLP/HTTP receiver and
 * to a trace file, metrics read back through Debian's Prometheus (scraping a worker, and a
 * Pushgateway a run pushed to), run-end notifications to local HTTP servers. Charges come from
 * the emulator's own job list, never from deflow.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { call } from '../helpers/emulator-http.js';
import { startTestRedis } from '../helpers/redis-server.js';
import { skipWithout, systemDep } from '../helpers/system-deps.js';
import { yaml } from '../engine/run-helpers.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';

let cli: BuiltCli;

beforeAll(async () => {
  cli = await buildCliAside('deflow-observability-build-');
}, 240_000);
afterAll(async () => {
  await cli?.remove();
});

const TRANSCRIBE = (extra: string[] = []) =>
  yaml(
    'version: 1',
    'name: nightly-obs',
    ...extra,
    'steps:',
    '  transcribe:',
    '    task: audio.transcribe',
    '    for_each: { glob: "inbox/*.mp3" }',
    '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
    '    save: "out/${{ item.stem }}.txt"',
    '  embed:',
    '    task: text.embed',
    '    for_each: transcribe',
    '    with: { input: "${{ steps.transcribe.text }}", model: Bge_M3_FP16 }',
  );


async function workspace(files: number, workflow: string, emulatorConfig: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'deflow-obs-'));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  await mkdir(join(folder, 'inbox'));
  for (let i = 0; i < files; i++) await writeFile(join(folder, 'inbox', `clip-${String(i).padStart(2, '0')}.mp3`), makeMp3(2 + i));
  await writeFile(join(folder, 'w.yaml'), workflow);
  await writeFile(join(folder, 'emulator.yaml'), emulatorConfig);
  return folder;
}

interface Ran {
  readonly code: number | null;
  readonly stderr: string;
}

/** `deflow ARGS` in `folder` against the emulator; `interruptAfterMs` sends SIGINT then. */
async function deflow(folder: string, emulator: EmulatorProcess | null, args: readonly string[], env: Record<string, string> = {}, interruptAfterMs?: number): Promise<Ran> {
  const base: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
  if (emulator !== null) Object.assign(base, { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key });
  const child = spawn(process.execPath, [cli.main, ...args], { cwd: folder, env: base, stdio: ['ignore', 'ignore', 'pipe'] });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  if (interruptAfterMs !== undefined) setTimeout(() => child.kill('SIGINT'), interruptAfterMs).unref();
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

/** USD the emulator charged: the price of every job it finished. */
async function charged(emulator: EmulatorProcess): Promise<number> {
  const jobs = (await call(emulator, 'GET', '/_emulator/jobs')).body as { status: string; price: number }[];
  return round6(jobs.filter((job) => job.status === 'done').reduce((sum, job) => sum + job.price, 0));
}

const round6 = (usd: number): number => Math.round(usd * 1e6) / 1e6;

interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly attributes: readonly { key: string; value: Record<string, unknown> }[];
}

const attr = (span: OtlpSpan, key: string): unknown => {
  const found = span.attributes.find((a) => a.key === key)?.value;
  if (found === undefined) return undefined;
  const value = Object.values(found)[0];
  return typeof value === 'string' && /^\d+$/.test(value) && 'intValue' in found ? Number(value) : value;
};

function spansOf(requests: readonly unknown[]): OtlpSpan[] {
  return requests.flatMap((request) =>
    ((request as { resourceSpans?: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans ?? []).flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)),
  );
}

/** A local HTTP server recording each request's path and JSON body. */
async function recorder(): Promise<{ url: string; bodies: { path: string; body: unknown }[]; server: Server }> {
  const bodies: { path: string; body: unknown }[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      try {
        bodies.push({ path: request.url ?? '', body: JSON.parse(text) });
      } catch {
        bodies.push({ path: request.url ?? '', body: text });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server };
}

describe('traces (OpenTelemetry)', () => {
  it('an interrupted run and its resume are one trace whose job spans cost what the report and the emulator say', { timeout: 180_000 }, async () => {
    const folder = await workspace(4, TRANSCRIBE(), yaml('time_scale: 1', 'jobs: { duration_ms: 1200, scale_by_input: false }', 'rate_limits: { endpoints: { "audio/transcriptions": { rpm: 30 } } }'));
    const emulator = await startEmulatorProcess(cli.main, folder, { stopAfterTest: true });
    const otlp = await recorder();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SERVICE_NAME: 'nightly-deflow' };
    const first = await deflow(folder, emulator, ['run', 'w.yaml'], env, 2000);
    expect(first.code, first.stderr).toBe(130);
    const second = await deflow(folder, emulator, ['run', 'w.yaml', '--report', 'report.json'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(otlp.bodies.every((b) => b.path === '/v1/traces')).toBe(true);
    const spans = spansOf(otlp.bodies.map((b) => b.body));
    const runs = spans.filter((s) => s.name === 'RUN nightly-obs');
    expect(runs).toHaveLength(2);
    const runIds = new Set(runs.map((s) => attr(s, 'cicd.pipeline.run.id')));
    expect(runIds.size).toBe(1);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([runs[0]!.traceId]));
    const jobs = spans.filter((s) => attr(s, 'gen_ai.provider.name') === 'deapi');
    const done = jobs.filter((s) => attr(s, 'deflow.item.state') === 'done');
    // 8 jobs in all, each done exactly once across the two sessions.
    expect(new Set(done.map((s) => `${attr(s, 'deflow.step')}/${attr(s, 'deflow.item.index')}`)).size).toBe(8);
    expect(done).toHaveLength(8);
    const spanCost = round6(jobs.reduce((sum, s) => sum + ((attr(s, 'deflow.cost_usd') as number | undefined) ?? 0), 0));
    const report = JSON.parse(await readFile(join(folder, 'report.json'), 'utf8')) as { totals: { cost_actual: number } };
    expect(spanCost).toBe(round6(report.totals.cost_actual));
    expect(spanCost).toBe(await charged(emulator));
    expect(spanCost).toBeGreaterThan(0);
    const transcribeJob = done.find((s) => attr(s, 'deflow.step') === 'transcribe')!;
    expect(attr(transcribeJob, 'gen_ai.request.model')).toBe('WhisperLargeV3');
    expect(attr(transcribeJob, 'gen_ai.operation.name')).toBe('generate_content');
    expect(attr(transcribeJob, 'deflow.request_id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(attr(done.find((s) => attr(s, 'deflow.step') === 'embed')!, 'gen_ai.operation.name')).toBe('embeddings');
  });

  it('TRACEPARENT makes the run a child of the caller span; --trace-file writes OTLP JSON lines', { timeout: 120_000 }, async () => {
    const folder = await workspace(2, TRANSCRIBE(), yaml('time_scale: 50'));
    const emulator = await startEmulatorProcess(cli.main, folder, { stopAfterTest: true });
    const parent = { trace: '4bf92f3577b34da6a3ce929d0e0e4736', span: '00f067aa0ba902b7' };
    const ran = await deflow(folder, emulator, ['run', 'w.yaml', '--trace-file', 'spans.jsonl'], { TRACEPARENT: `00-${parent.trace}-${parent.span}-01` });
    expect(ran.code, ran.stderr).toBe(0);
    const lines = (await readFile(join(folder, 'spans.jsonl'), 'utf8')).trim().split('\n');
    const spans = spansOf(lines.map((line) => JSON.parse(line)));
    const run = spans.find((s) => s.name === 'RUN nightly-obs')!;
    expect(run.traceId).toBe(parent.trace);
    expect(run.parentSpanId).toBe(parent.span);
    expect(spans.filter((s) => attr(s, 'deflow.item.state') === 'done')).toHaveLength(4);
    expect(attr(run, 'deflow.exit_code')).toBe(0);
    expect(attr(run, 'cicd.pipeline.result')).toBe('success');
  });

  it('runs interrupted by SIGINT at random moments lose no span of a finished job', { timeout: 300_000 }, async () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const delays = Array.from({ length: 20 }, () => 300 + Math.floor(random() * 2500));
    // Four folders side by side, five interrupted runs each: 20 in all.
    const lanes = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const folder = await workspace(3, TRANSCRIBE(), yaml('time_scale: 1', 'jobs: { duration_ms: 300, jitter: 0.5, scale_by_input: false }'));
        return { folder, emulator: await startEmulatorProcess(cli.main, folder, { stopAfterTest: true }) };
      }),
    );
    let finishedJobs = 0;
    await Promise.all(
      lanes.map(async ({ folder, emulator }, lane) => {
        for (let i = lane; i < delays.length; i += lanes.length) {
          await rm(join(folder, '.deflow'), { recursive: true, force: true });
          await rm(join(folder, 'spans.jsonl'), { force: true });
          const ran = await deflow(folder, emulator, ['run', 'w.yaml', '--no-cache', '--trace-file', 'spans.jsonl', '--quiet'], {}, delays[i]);
          const runDir = join(folder, '.deflow', 'runs');
          const runs = await readdir(runDir).catch(() => [] as string[]);
          const events = (runs[0] === undefined ? '' : await readFile(join(runDir, runs[0], 'events.ndjson'), 'utf8').catch(() => ''))
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as { type: string; node?: { step: string; index: number } });
          const finished = new Set(events.filter((e) => e.type === 'item-done').map((e) => `${e.node!.step}/${e.node!.index}`));
          finishedJobs += finished.size;
          const text = await readFile(join(folder, 'spans.jsonl'), 'utf8').catch(() => '');
          const spans = spansOf(text.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)));
          const traced = new Set(spans.filter((s) => attr(s, 'deflow.item.state') === 'done').map((s) => `${attr(s, 'deflow.step')}/${attr(s, 'deflow.item.index')}`));
          expect([...finished].filter((key) => !traced.has(key)), `run ${i} (exit ${ran.code}, SIGINT after ${delays[i]} ms)`).toEqual([]);
          if (finished.size > 0) expect(spans.some((s) => s.name === 'RUN nightly-obs'), `run ${i}`).toBe(true);
        }
      }),
    );
    // The interruptions fell both before and after jobs finished.
    expect(finishedJobs).toBeGreaterThan(0);
  });
});

describe('notifications', () => {
  it('each on: value hears the runs it names; the payload matches the schema', { timeout: 120_000 }, async () => {
    const failure = await recorder();
    const deferred = await recorder();
    const always = await recorder();
    const notify = ['notify:', `  - { url: "${failure.url}/f", on: [failure] }`, `  - { url: "${deferred.url}/d", on: [deferred] }`, `  - { url_env: ALWAYS_URL }`, `  - { url: "${always.url}/a", on: [always] }`];
    // A night that ends well: only `always` hears it.
    const good = await workspace(2, TRANSCRIBE(notify), yaml('time_scale: 50'));
    const ok = await deflow(good, null, ['run', 'w.yaml', '--emulator', '--emulator-config', 'emulator.yaml'], { ALWAYS_URL: `${always.url}/env` });
    expect(ok.code, ok.stderr).toBe(0);
    // The url_env entry hears failures and deferrals only (its default `on`).
    expect(always.bodies.map((b) => b.path)).toEqual(['/a']);
    expect(failure.bodies).toHaveLength(0);
    expect(deferred.bodies).toHaveLength(0);
    const payload = always.bodies[0]!.body as Record<string, unknown>;
    expect(payload).toMatchObject({ schema_version: 1, status: 'done', exit_code: 0, workflow_name: 'nightly-obs' });
    expect(payload.text).toMatch(/^deflow: nightly-obs finished \(exit 0\): 4\/4 done; spent \$/);
    const Ajv = (await import('ajv')).default;
    const addFormats = (await import('ajv-formats')).default;
    const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(new URL('../../schemas/notification.schema.json', import.meta.url), 'utf8')));
    expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
    // A night whose jobs fail: `failure` and `always` hear it.
    always.bodies.length = 0;
    const bad = await workspace(2, TRANSCRIBE(notify), yaml('time_scale: 50', 'jobs: { fail_rate: 1 }'));
    const failed = await deflow(bad, null, ['run', 'w.yaml', '--emulator', '--emulator-config', 'emulator.yaml']);
    expect(failed.code, failed.stderr).toBe(1);
    expect(failure.bodies).toHaveLength(1);
    expect(failure.bodies[0]!.body).toMatchObject({ status: 'failed', exit_code: 1 });
    expect(always.bodies).toHaveLength(1);
    expect(deferred.bodies).toHaveLength(0);
    // A night stopped by a daily limit: `deferred` and `always` hear it, not `failure`.
    always.bodies.length = 0;
    const limited = await workspace(3, TRANSCRIBE(notify), yaml('time_scale: 50', 'rate_limits: { endpoints: { "audio/transcriptions": { rpm: 60, rpd: 1 } } }'));
    const stopped = await deflow(limited, null, ['run', 'w.yaml', '--emulator', '--emulator-config', 'emulator.yaml']);
    expect(stopped.code, stopped.stderr).toBe(5);
    expect(deferred.bodies).toHaveLength(1);
    expect(deferred.bodies[0]!.body).toMatchObject({ status: 'daily-limit', exit_code: 5 });
    expect((deferred.bodies[0]!.body as { deferred: unknown[] }).deferred.length).toBeGreaterThan(0);
    expect(always.bodies).toHaveLength(1);
    expect(failure.bodies).toHaveLength(1);
  });

  it('a notification server that is down is reported and changes nothing: same exit code', { timeout: 60_000 }, async () => {
    const down = await recorder();
    await new Promise<void>((resolve) => down.server.close(() => resolve()));
    const folder = await workspace(1, TRANSCRIBE(), yaml('time_scale: 50'));
    const ran = await deflow(folder, null, ['run', 'w.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--notify', `${down.url}/secret-token-path`, '--notify-on', 'always']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(new RegExp(`notification \\(--notify\\) to ${down.url.replace(/[.]/g, '\\.')} failed: .*; the run's outcome is unchanged`));
    expect(ran.stderr).not.toContain('secret-token-path');
  });
});

/** A free TCP port on loopback. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function startDaemon(command: string, args: readonly string[]): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-4000);
  });
  onTestFinished(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  return child;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Prometheus scraping `targets` every second; its query API. */
async function startPrometheus(targets: readonly string[]): Promise<{ query: (promql: string) => Promise<{ metric: Record<string, string>; value: [number, string] }[]> }> {
  const folder = await mkdtemp(join(tmpdir(), 'deflow-prometheus-'));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  const port = await freePort();
  await writeFile(
    join(folder, 'prometheus.yml'),
    yaml('global: { scrape_interval: 1s, evaluation_interval: 1s }', 'scrape_configs:', '  - job_name: deflow', '    honor_labels: true', '    static_configs:', `      - targets: [${targets.map((t) => `"${t}"`).join(', ')}]`),
  );
  startDaemon(systemDep('prometheus')!, [`--config.file=${join(folder, 'prometheus.yml')}`, `--storage.tsdb.path=${join(folder, 'data')}`, `--web.listen-address=127.0.0.1:${port}`]);
  const base = `http://127.0.0.1:${port}`;
  await until('prometheus', async () => ((await fetch(`${base}/-/ready`)).ok ? true : undefined));
  return {
    query: async (promql) => {
      const answer = (await (await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      return answer.data.result;
    },
  };
}

describe.skipIf(skipWithout('prometheus') || skipWithout('prometheus-pushgateway'))('metrics (Prometheus)', () => {
  it('a run pushes its final figures to a Pushgateway, and Prometheus reads them as the report says', { timeout: 120_000 }, async () => {
    const gatewayPort = await freePort();
    startDaemon(systemDep('prometheus-pushgateway')!, [`--web.listen-address=127.0.0.1:${gatewayPort}`]);
    await until('pushgateway', async () => ((await fetch(`http://127.0.0.1:${gatewayPort}/-/ready`)).ok ? true : undefined));
    const prometheus = await startPrometheus([`127.0.0.1:${gatewayPort}`]);
    const folder = await workspace(3, TRANSCRIBE(), yaml('time_scale: 50'));
    const emulator = await startEmulatorProcess(cli.main, folder, { stopAfterTest: true });
    const ran = await deflow(folder, emulator, ['run', 'w.yaml', '--pushgateway', `http://127.0.0.1:${gatewayPort}`, '--report', 'report.json', '--metrics-file', 'deflow.prom']);
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(folder, 'report.json'), 'utf8')) as { totals: { cost_actual: number } };
    const spend = await until('deflow_run_spend_usd in Prometheus', async () => (await prometheus.query('deflow_run_spend_usd{workflow="nightly-obs",job="deflow"}'))[0]);
    expect(round6(Number(spend.value[1]))).toBe(round6(report.totals.cost_actual));
    expect(round6(report.totals.cost_actual)).toBe(await charged(emulator));
    const done = await until('deflow_jobs_total', async () => {
      const rows = await prometheus.query('sum(deflow_jobs_total{workflow="nightly-obs",state="done"})');
      return rows[0];
    });
    expect(Number(done.value[1])).toBe(6);
    expect(Number((await prometheus.query('deflow_run_exit_code{workflow="nightly-obs"}'))[0]!.value[1])).toBe(0);
    expect(await readFile(join(folder, 'deflow.prom'), 'utf8')).toMatch(/^deflow_run_spend_usd\{workflow="nightly-obs"\} /m);
  });

  it.skipIf(skipWithout('redis-server'))('Prometheus scrapes a worker during a queue run: its jobs and spend add up to the report', { timeout: 180_000 }, async () => {
    const redis = await startTestRedis();
    onTestFinished(() => redis.stop());
    const folder = await workspace(4, TRANSCRIBE(), yaml('time_scale: 20', 'jobs: { duration_ms: 3000, scale_by_input: false }'));
    const emulator = await startEmulatorProcess(cli.main, folder, { stopAfterTest: true });
    const workerPort = await freePort();
    const prometheus = await startPrometheus([`127.0.0.1:${workerPort}`]);
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key };
    const worker = spawn(process.execPath, [cli.main, 'worker', '--queue', redis.url, '--metrics-port', String(workerPort)], { cwd: folder, env, stdio: ['ignore', 'ignore', 'pipe'] });
    onTestFinished(async () => {
      if (worker.exitCode === null) {
        worker.kill('SIGTERM');
        await once(worker, 'exit');
      }
    });
    await until('worker /metrics', async () => ((await fetch(`http://127.0.0.1:${workerPort}/metrics`)).ok ? true : undefined));
    await until('worker up in Prometheus', async () => (await prometheus.query('deflow_worker_up'))[0]);
    const ran = await deflow(folder, emulator, ['run', 'w.yaml', '--queue', redis.url, '--report', 'report.json']);
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(folder, 'report.json'), 'utf8')) as { totals: { cost_actual: number } };
    const jobs = await until('8 jobs in Prometheus', async () => {
      const rows = await prometheus.query('sum(deflow_jobs_total{state="done"})');
      return rows[0] !== undefined && Number(rows[0].value[1]) === 8 ? rows[0] : undefined;
    });
    expect(Number(jobs.value[1])).toBe(8);
    const spend = await until('spend', async () => {
      const rows = await prometheus.query('sum(deflow_spend_usd_total)');
      return rows[0] !== undefined && round6(Number(rows[0].value[1])) === round6(report.totals.cost_actual) ? rows[0] : undefined;
    });
    expect(round6(Number(spend.value[1]))).toBe(await charged(emulator));
    worker.kill('SIGTERM');
    await once(worker, 'exit');
  });
});

describe.skipIf(skipWithout('redis-server'))('queue depth on the coordinator', () => {
  it("deflow_queue_depth on the coordinator's /metrics counts each step's jobs waiting in the queue: all four before a worker starts, none once they ran", { timeout: 180_000 }, async () => {
    const redis = await startTestRedis();
    onTestFinished(() => redis.stop());
    const folder = await workspace(4, TRANSCRIBE(), yaml('time_scale: 20', 'jobs: { duration_ms: 3000, scale_by_input: false }'));
    const emulator = await startEmulatorProcess(cli.main, folder, { stopAfterTest: true });
    const port = await freePort();
    const metrics = `http://127.0.0.1:${port}/metrics`;
    const depth = async (step: string): Promise<number | undefined> => {
      const text = await (await fetch(metrics)).text();
      const line = new RegExp(`^deflow_queue_depth\\{workflow="nightly-obs",step="${step}"\\} (\\d+)$`, 'm').exec(text);
      return line === null ? undefined : Number(line[1]);
    };
    const coordinator = deflow(folder, emulator, ['run', 'w.yaml', '--queue', redis.url, '--metrics-port', String(port), '--report', 'report.json']);
    // No worker yet: the four transcriptions wait in the queue; their embeddings are not enqueued before them.
    expect(await until('four transcriptions waiting', async () => ((await depth('transcribe')) === 4 ? 4 : undefined))).toBe(4);
    expect(await depth('embed')).toBe(0);
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key };
    const worker = spawn(process.execPath, [cli.main, 'worker', '--queue', redis.url], { cwd: folder, env, stdio: ['ignore', 'ignore', 'pipe'] });
    onTestFinished(async () => {
      if (worker.exitCode === null) {
        worker.kill('SIGTERM');
        await once(worker, 'exit');
      }
    });
    expect(await until('the transcriptions taken', async () => ((await depth('transcribe')) === 0 ? 0 : undefined), 120_000)).toBe(0);
    const ran = await coordinator;
    expect(ran.code, ran.stderr).toBe(0);
  });
});

describe.skipIf(skipWithout('redis-server'))('traces of a queue run', () => {
  it("a queue run with two workers is one trace: each worker's span of a job is a child of the coordinator's, and the job spans' cost is the report's spend", { timeout: 240_000 }, async () => {
    const redis = await startTestRedis();
    onTestFinished(() => redis.stop());
    // Jobs of half a real second, one at a time per worker: both workers take jobs.
    const folder = await workspace(4, TRANSCRIBE(), yaml('time_scale: 20', 'jobs: { duration_ms: 10000, scale_by_input: false }'));
    const emulator = await startEmulatorProcess(cli.main, folder, { stopAfterTest: true });
    const otlp = await recorder();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SERVICE_NAME: 'nightly-deflow' };
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key, ...otel };
    const workers = [0, 1].map(() => spawn(process.execPath, [cli.main, 'worker', '--queue', redis.url, '--concurrency', '1'], { cwd: folder, env, stdio: ['ignore', 'ignore', 'pipe'] }));
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            let text = '';
            worker.stderr.on('data', (chunk: Buffer) => {
              text += chunk.toString('utf8');
              if (text.includes('waiting for jobs')) resolve();
            });
          }),
      ),
    );
    onTestFinished(async () => {
      for (const worker of workers) {
        if (worker.exitCode === null) {
          worker.kill('SIGTERM');
          await once(worker, 'exit');
        }
      }
    });
    const ran = await deflow(folder, emulator, ['run', 'w.yaml', '--queue', redis.url, '--report', 'report.json'], otel);
    expect(ran.code, ran.stderr).toBe(0);
    // The workers flush their spans as they stop.
    for (const worker of workers) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
    const spans = spansOf(otlp.bodies.map((b) => b.body));
    const run = spans.find((s) => s.name === 'RUN nightly-obs')!;
    expect(run).toBeDefined();
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([run.traceId]));
    const jobs = spans.filter((s) => attr(s, 'gen_ai.provider.name') === 'deapi');
    const workerSpans = spans.filter((s) => s.name.startsWith('worker '));
    // Every job ran on a worker, whose span of it is a child of the coordinator's span of that job.
    expect(jobs.filter((s) => attr(s, 'deflow.item.state') === 'done')).toHaveLength(8);
    const jobOf = new Map(jobs.map((s) => [s.spanId, `${attr(s, 'deflow.step')}/${attr(s, 'deflow.item.index')}`]));
    const done = workerSpans.filter((s) => attr(s, 'deflow.item.state') === 'done');
    expect(new Set(done.map((s) => jobOf.get(s.parentSpanId ?? '')))).toEqual(new Set(jobs.map((s) => jobOf.get(s.spanId))));
    for (const span of done) expect(jobOf.get(span.parentSpanId!)).toBe(`${attr(span, 'deflow.step')}/${attr(span, 'deflow.item.index')}`);
    // Both workers ran jobs.
    expect(new Set(workerSpans.map((s) => attr(s, 'deflow.worker.pid'))).size).toBe(2);
    const spanCost = round6(spans.reduce((sum, s) => sum + ((attr(s, 'deflow.cost_usd') as number | undefined) ?? 0) * (jobs.includes(s) ? 1 : 0), 0));
    const report = JSON.parse(await readFile(join(folder, 'report.json'), 'utf8')) as { totals: { cost_actual: number } };
    expect(spanCost).toBeGreaterThan(0);
    expect(spanCost).toBe(round6(report.totals.cost_actual));
    expect(spanCost).toBe(await charged(emulator));
    expect(workerSpans.every((s) => attr(s, 'deflow.cost_usd') === undefined)).toBe(true);
  });
});
