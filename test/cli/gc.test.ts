/**
 * Issue 27, point 7: `deflow gc` removes finished runs, cache entries and blobs by age and size,
 * never what a resumable run needs, and prints what it freed. Runs against an emulator over HTTP;
 * ages are made by setting the files' modification times back (gc reads real file times).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

async function deflow(dir: string, emulator: RunningEmulator, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } };
  const code = await runCli(args, io);
  return { code, out: io.stdoutText(), err: io.stderrText() };
}

/** Every file under `dir`, relative. */
async function files(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
      .sort();
  } catch {
    return [];
  }
}

/** Sets every file under `dir` back `days` days. */
async function age(dir: string, days: number): Promise<void> {
  const when = new Date(Date.now() - days * 24 * 3600 * 1000);
  for (const file of await files(dir)) await utimes(join(dir, file), when, when);
}

function emulator(config: Record<string, unknown> = {}): Promise<RunningEmulator> {
  return useEmulator({ config: { balance: 100, jobs: { duration_ms: 100, scale_by_input: false }, rate_limits: { jobs_status: null }, ...config } });
}

describe('deflow gc', () => {
  it('removes finished runs, cache entries and blobs older than --keep-days, prints what it freed; --dry-run removes nothing', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const service = await emulator();
    expect((await deflow(dir, service, ['run', 'workflow.yaml', '--quiet'])).code).toBe(0);
    const state = join(dir, '.deflow');
    const blobs = await files(join(state, 'blobs'));
    const cache = await files(join(state, 'cache'));
    expect(blobs.length).toBeGreaterThan(0);
    expect(cache.length).toBeGreaterThan(0);

    // Fresh: nothing is older than 30 days.
    const fresh = await deflow(dir, service, ['gc', 'workflow.yaml']);
    expect(fresh.code).toBe(0);
    expect(fresh.out).toMatch(/^\.deflow: freed 0 B: 0 finished run\(s\), 0 cache entries, 0 blob\(s\);/m);

    await age(state, 40);
    const dry = await deflow(dir, service, ['gc', 'workflow.yaml', '--dry-run']);
    expect(dry.out).toMatch(new RegExp(`^\\.deflow: would free \\d.*: 1 finished run\\(s\\), ${cache.length} cache entries, ${blobs.length} blob\\(s\\);`, 'm'));
    expect(await files(join(state, 'blobs'))).toEqual(blobs);

    const real = await deflow(dir, service, ['gc', 'workflow.yaml']);
    expect(real.out).toMatch(new RegExp(`^\\.deflow: freed \\d.*: 1 finished run\\(s\\), ${cache.length} cache entries, ${blobs.length} blob\\(s\\); \\S+ \\S+ -> 0 B$`, 'm'));
    expect(await files(join(state, 'runs'))).toEqual([]);
    expect(await files(join(state, 'cache'))).toEqual([]);
    expect(await files(join(state, 'blobs'))).toEqual([]);
  });

  it('never removes a resumable run (deferred items) nor the cache entries and blobs it names, however old', async () => {
    const daily = { rate_limits: { jobs_status: null, endpoints: { 'audio/speech': { rpm: 60, rpd: 1 } } } };
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const service = await emulator(daily);
    expect((await deflow(dir, service, ['run', 'workflow.yaml', '--quiet'])).code).toBe(5);
    const state = join(dir, '.deflow');
    const before = await files(state);
    await age(state, 400);
    const gc = await deflow(dir, service, ['gc', 'workflow.yaml', '--keep-days', '0', '--max-size', '1']);
    expect(gc.code).toBe(0);
    expect(gc.out).toMatch(/^kept run \S+: it is daily-limit \(resumable\)$/m);
    expect(gc.out).toMatch(/: 0 finished run\(s\)/);
    // Every cache entry and blob of the run is named in its journal: all stay.
    expect(await files(state)).toEqual(before);
  });

  it('--max-size removes the oldest finished runs and cache entries until the folder fits', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'other.yaml': CHAIN.replace('name: durable', 'name: other'), ...clips(2) });
    const service = await emulator();
    expect((await deflow(dir, service, ['run', 'workflow.yaml', '--quiet'])).code).toBe(0);
    expect((await deflow(dir, service, ['run', 'other.yaml', '--quiet'])).code).toBe(0);
    const state = join(dir, '.deflow');
    const runs = await readdir(join(state, 'runs'));
    expect(runs).toHaveLength(2);
    const sizeOf = async (run: string): Promise<number> => {
      let n = 0;
      for (const f of await files(join(state, 'runs', run))) n += (await stat(join(state, 'runs', run, f))).size;
      return n;
    };
    // Room for the newer run only: the older one goes, the newer stays.
    const [older, newer] = [...runs].sort();
    const dry = JSON.parse((await deflow(dir, service, ['gc', '--max-size', '1', '--dry-run', '--json'])).out) as { beforeBytes: number; runs: { removed: string[] } };
    expect(dry.runs.removed.sort()).toEqual([older, newer]);
    const gc = await deflow(dir, service, ['gc', '--max-size', String(dry.beforeBytes - (await sizeOf(older!))), '--json']);
    const result = JSON.parse(gc.out) as { runs: { removed: string[] }; cacheEntries: number };
    expect(result).toMatchObject({ runs: { removed: [older] }, cacheEntries: 0 });
    expect(await readdir(join(state, 'runs'))).toEqual([newer]);
  });

  it('holds the state folder\'s lock: beside a live run it exits 2 naming it and removes nothing; --wait-lock waits for it', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const service = await emulator();
    expect((await deflow(dir, service, ['run', 'workflow.yaml', '--quiet'])).code).toBe(0);
    const state = join(dir, '.deflow');
    await age(state, 40);
    const before = await files(state);
    // The lock of a live run: another process (a `sleep`), as its lock record names it.
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const startTime = readFileSync(`/proc/${holder.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[22 - 3]!;
      const record = { pid: holder.pid, hostname: hostname(), boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), start_time: startTime, acquired_at: '2026-11-28T01:00:00.000Z', token: 'f00d' };
      await writeFile(join(state, 'session.lock'), `${JSON.stringify(record)}\n`);
      const refused = await deflow(dir, service, ['gc', 'workflow.yaml']);
      expect(refused.err).toBe(`deflow: another deflow run (pid ${holder.pid}, started 2026-11-28T01:00:00.000Z) holds ${state}\n`);
      expect(refused.code).toBe(2);
      expect((await deflow(dir, service, ['gc', 'workflow.yaml', '--dry-run'])).code).toBe(2);
      const waited = await deflow(dir, service, ['gc', 'workflow.yaml', '--wait-lock=1s']);
      expect(waited.code).toBe(2);
      expect(waited.err).toMatch(/holds .+ \(waited 1 s\)\n$/);
      expect((await files(state)).filter((f) => f !== 'session.lock')).toEqual(before);

      // The run ends (its process is gone): a waiting gc takes over its lock and frees the folder.
      const waiting = deflow(dir, service, ['gc', 'workflow.yaml', '--wait-lock']);
      holder.kill('SIGKILL');
      const freed = await waiting;
      expect(freed.code).toBe(0);
      expect(freed.out).toMatch(/^\.deflow: freed \d.*: 1 finished run\(s\)/m);
      expect(await files(join(state, 'runs'))).toEqual([]);
      // It let go of the lock: a run may start at once.
      expect(await files(state)).not.toContain('session.lock');
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('refuses a size it cannot read, naming the option', async () => {
    const dir = await useWorkspace({});
    const service = await emulator();
    const gc = await deflow(dir, service, ['gc', '--max-size', 'ten gigs']);
    expect(gc.code).toBe(2);
    expect(gc.err).toContain('--max-size: expected a size such as 500M, 2G or 10GB');
  });
});
