/**
 * A real `kill -9` in the middle of a save: the built CLI against a standalone emulator process,
 * its result downloads trickling through a loopback proxy, is SIGKILLed while one of its
 * temporary `.part` files exists (the folders are polled for one), several times over; then a
 * bare `deflow run` (no resubmit flag) finishes the run. Afterwards no temporary file is left in
 * the output or state folder, every output is byte-equal to its job's result at the service, and
 * the service created and charged each job once (`/_emulator/jobs`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { yaml } from '../engine/run-helpers.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { call } from '../helpers/emulator-http.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';

const ITEMS = 4;
/** Sessions killed with a temporary file on disk before the clean one. */
const KILLS = 3;

let cli: BuiltCli | undefined;
let dir: string;

beforeAll(async () => {
  cli = await buildCliAside('deflow-kill-save-build-');
  dir = await mkdtemp(join(tmpdir(), 'deflow-kill-save-'));
}, 180_000);

afterAll(async () => {
  await cli?.remove();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every `.part` file under `folder` with its size, by path relative to `folder`. */
async function partFiles(folder: string): Promise<Map<string, number>> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  const parts = new Map<string, number>();
  for (const e of entries) {
    if (!(e.isFile() && e.name.endsWith('.part'))) continue;
    const path = join(e.parentPath, e.name);
    const size = await stat(path).then((info) => info.size, () => -1);
    if (size >= 0) parts.set(path.slice(folder.length + 1), size);
  }
  return parts;
}

/** The temporary files under the output and state folders. */
async function allParts(): Promise<Map<string, number>> {
  const out = [...(await partFiles(join(dir, 'out')))].map(([p, n]) => [`out/${p}`, n] as const);
  const state = [...(await partFiles(join(dir, '.deflow')))].map(([p, n]) => [`.deflow/${p}`, n] as const);
  return new Map([...out, ...state]);
}

function runDeflow(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [cli!.main, 'run', 'workflow.yaml', '--quiet'], { cwd: dir, env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Polls the folders until a temporary file this session writes (one not there when it started)
 * holds at least `bytes` of a result being downloaded, then SIGKILLs `child`. Resolves with that
 * file and what was on disk then, or undefined when the session ended first.
 */
async function killMidDownload(child: ChildProcess, before: ReadonlySet<string>, bytes: number): Promise<{ part: string; size: number; onDisk: string[] } | undefined> {
  const exited = once(child, 'exit');
  let ended = false;
  void exited.then(() => (ended = true));
  while (!ended) {
    const parts = await allParts();
    const fresh = [...parts].find(([path, size]) => !before.has(path) && path.startsWith('.deflow/blobs/tmp/') && size >= bytes);
    if (fresh !== undefined) {
      child.kill('SIGKILL');
      const [, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      return signal === 'SIGKILL' ? { part: fresh[0], size: fresh[1], onDisk: [...parts.keys()] } : undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return undefined;
}

interface JobRow {
  readonly request_id: string;
  readonly status: string;
  readonly params_digest: string;
  readonly price: number;
}

describe('kill -9 in the middle of a save', () => {
  it(`killed ${KILLS} times with a temporary file on disk, a bare re-run leaves none, saves every result whole, and pays each job once`, async () => {
    await writeFile(join(dir, 'emulator.yaml'), yaml('balance: 1000', 'jobs: { duration_ms: 300, jitter: 0, scale_by_input: false }', 'rate_limits: { endpoints: { "images/generations": { rpm: 600, rpd: null } }, jobs_status: null }'));
    const items = Array.from({ length: ITEMS }, (_, k) => `a cat number ${k}`);
    await writeFile(
      join(dir, 'workflow.yaml'),
      yaml('version: 1', 'name: kill-mid-save', 'steps:', '  draw:', '    task: image.generate', `    for_each: { items: ${JSON.stringify(items)} }`, '    with: { prompt: "${{ item.value }}", model: Flux1schnell, width: 512, height: 512, steps: 4, seed: 1 }', '    save: "${{ item.index }}.png"'),
    );
    const emulator: EmulatorProcess = await startEmulatorProcess(cli!.main, dir);
    const proxy = await startFaultProxy(emulator.url);
    try {
      const env = { DEAPI_BASE_URL: proxy.url, DEAPI_API_KEY: emulator.key };
      // Every download trickles: a result takes seconds to arrive, its temporary file open all along.
      proxy.plan = { fault: 'slow-body', phase: 'download', seed: 1, rate: 1, slowChunkBytes: 64 };
      const kills: { part: string; size: number; onDisk: string[] }[] = [];
      for (let round = 0; round < KILLS; round++) {
        // Kill points: a result's first bytes on disk, then further into a download each time.
        const kill = await killMidDownload(runDeflow(env), new Set((await allParts()).keys()), 1 + round * 20_000);
        expect(kill, `session ${round + 1} was killed mid-download, its temporary file on disk`).toBeDefined();
        kills.push(kill!);
      }
      // The killed sessions left their temporary files behind (what the next run must clear).
      expect((await allParts()).size).toBeGreaterThan(0);

      proxy.plan = null;
      const last = runDeflow(env);
      let stderr = '';
      last.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const [code] = (await once(last, 'exit')) as [number | null];
      expect({ code, stderr }).toEqual({ code: 0, stderr: expect.any(String) as string });

      // No temporary file is left anywhere.
      expect([...(await allParts()).keys()]).toEqual([]);

      // Each job created once and charged once.
      const jobs = (await call(emulator, 'GET', '/_emulator/jobs')).body as JobRow[];
      expect(jobs).toHaveLength(ITEMS);
      expect(new Set(jobs.map((j) => j.params_digest)).size).toBe(ITEMS);
      expect(jobs.every((j) => j.status === 'done')).toBe(true);

      // Every output is whole: byte-equal to its job's result at the service.
      const saved = new Map<string, Buffer>();
      for (let k = 0; k < ITEMS; k++) saved.set(`${k}.png`, await readFile(join(dir, 'out', `${k}.png`)));
      const results: Buffer[] = [];
      for (const job of jobs) {
        const answer = await fetch(`${emulator.url}/api/v1/client/request-status/${job.request_id}`, { headers: { authorization: `Bearer ${emulator.key}` } });
        const url = ((await answer.json()) as { data: { result_url: string } }).data.result_url;
        results.push(Buffer.from(await (await fetch(url)).arrayBuffer()));
      }
      const sortedHex = (buffers: Iterable<Buffer>): string[] => [...buffers].map((b) => b.toString('hex')).sort();
      expect(sortedHex(saved.values())).toEqual(sortedHex(results));
      expect(results.every((r) => r.length > 0)).toBe(true);
      process.stderr.write(`kill-mid-save: killed at ${kills.map((k) => `${k.part} (${k.size} bytes; on disk: ${k.onDisk.join(' ')})`).join(' | ')}; results ${results.map((r) => r.length).join(', ')} bytes\n`);
    } finally {
      await proxy.close();
      await emulator.stop();
    }
  }, 300_000);
});
