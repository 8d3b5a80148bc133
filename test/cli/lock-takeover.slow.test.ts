/**
 * Taking over a dead holder's lock under contention, with the built CLI against a standalone
 * emulator: 6 `deflow run` of one workflow started at once against a state folder whose
 * `session.lock` names a process killed with SIGKILL. Each of 10 rounds: exactly one takes the
 * lock over and runs (exit 0, each job created once), the other five exit 2 naming a holder.
 * Then contenders killed with SIGKILL at staggered moments in the middle of taking over never
 * leave a claim (`session.lock.takeover-*`) or lock that blocks the next run.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { yaml } from '../engine/run-helpers.js';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { call } from '../helpers/emulator-http.js';
import { type EmulatorProcess, startEmulatorProcess } from '../helpers/emulator-process.js';

const CLIPS = 2;
const JOBS = 2 * CLIPS;
const CONTENDERS = 6;
const ROUNDS = 10;

let cli: BuiltCli | undefined;
let emulator: EmulatorProcess;
let emulatorDir: string;
const strays: ChildProcess[] = [];

beforeAll(async () => {
  cli = await buildCliAside('deflow-takeover-build-');
  emulatorDir = await mkdtemp(join(tmpdir(), 'deflow-takeover-emulator-'));
  const rate = '{ rpm: 6000, rpd: null }';
  await writeFile(
    join(emulatorDir, 'emulator.yaml'),
    yaml('balance: 1000', 'jobs: { duration_ms: 300, jitter: 0.2 }', `rate_limits: { endpoints: { "audio/transcriptions": ${rate}, "audio/speech": ${rate} }, jobs_status: null }`),
  );
  emulator = await startEmulatorProcess(cli.main, emulatorDir);
}, 240_000);

afterEach(() => {
  for (const child of strays.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

afterAll(async () => {
  await emulator?.stop();
  await cli?.remove();
  if (emulatorDir) await rm(emulatorDir, { recursive: true, force: true });
});

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

function deflow(dir: string, args: readonly string[]): { child: ChildProcess; exit: Promise<Exit> } {
  const child = spawn(process.execPath, [cli!.main, ...args], {
    cwd: dir,
    env: { ...process.env, DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.key, DEFLOW_TEST_CRASH_AFTER: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  strays.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return { child, exit: once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null, stderr })) };
}

async function workspace(tag: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `deflow-takeover-${tag}-`));
  await mkdir(join(dir, 'clips'));
  for (const [path, content] of Object.entries({ 'workflow.yaml': CHAIN.replace('name: durable', `name: ${tag}`), ...clips(CLIPS) })) await writeFile(join(dir, path), content);
  await mkdir(join(dir, '.deflow'));
  return dir;
}

/** A lock record naming a process killed with SIGKILL (reaped: its pid is gone). */
function deadHolderRecord(): string {
  const victim = spawnSync('sh', ['-c', 'kill -9 $$']);
  return `${JSON.stringify({
    pid: victim.pid,
    hostname: hostname(),
    boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
    start_time: '1',
    acquired_at: '2026-11-28T01:00:00.000Z',
    token: 'dead',
  })}\n`;
}

async function jobCount(): Promise<number> {
  return ((await call(emulator, 'GET', '/_emulator/jobs')).body as unknown[]).length;
}

describe('taking over a dead holder\'s lock (built CLI)', () => {
  it(`${CONTENDERS} runs started at once: exactly one takes the lock over, the others exit 2; ${ROUNDS} rounds`, async () => {
    const tally: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const dir = await workspace(`r${round}`);
      await writeFile(join(dir, '.deflow', 'session.lock'), deadHolderRecord());
      const before = await jobCount();
      const exits = await Promise.all(Array.from({ length: CONTENDERS }, () => deflow(dir, ['run', 'workflow.yaml', '--quiet']).exit));
      const codes = exits.map((e) => e.code).sort();
      tally.push(codes.join(''));
      expect(codes, exits.map((e) => e.stderr).join('\n')).toEqual([0, ...Array<number>(CONTENDERS - 1).fill(2)]);
      for (const refused of exits.filter((e) => e.code === 2)) expect(refused.stderr).toMatch(/another deflow run \(pid \d+, started \S+\) holds .+\.deflow/);
      expect(await jobCount()).toBe(before + JOBS);
      // Nothing is left behind that names the dead holder or a contender.
      expect((await readdir(join(dir, '.deflow'))).filter((name) => name.startsWith('session.lock'))).toEqual([]);
      await rm(dir, { recursive: true, force: true });
    }
    expect(tally).toEqual(Array<string>(ROUNDS).fill(`0${'2'.repeat(CONTENDERS - 1)}`));
  }, 600_000);

  it('contenders killed with SIGKILL in the middle of taking over never block the next run', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dir = await workspace(`k${round}`);
      await writeFile(join(dir, '.deflow', 'session.lock'), deadHolderRecord());
      const contenders = Array.from({ length: CONTENDERS }, () => deflow(dir, ['run', 'workflow.yaml', '--quiet']));
      // Staggered kills around the moment they reach the lock (a start takes a few hundred ms).
      await Promise.all(
        contenders.map(
          (c, i) =>
            new Promise<void>((resolve) => {
              setTimeout(() => {
                c.child.kill('SIGKILL');
                resolve();
              }, 150 + i * 60 + round * 25);
            }),
        ),
      );
      await Promise.all(contenders.map((c) => c.exit));
      // The next run is never refused (exit 2) by what the killed contenders left. A contender
      // killed after it took the lock and sent a submission leaves that item unknown (the job
      // may exist), and then the next run rightly ends 1 with the item listed as unknown.
      const next = await deflow(dir, ['run', 'workflow.yaml']).exit;
      expect(next.stderr).not.toMatch(/holds .+\.deflow|locked/);
      if (next.code !== 0) {
        expect(next.code).toBe(1);
        expect(next.stderr).toMatch(/[1-9]\d* unknown/);
      }
      expect((await readdir(join(dir, '.deflow'))).filter((name) => name.startsWith('session.lock'))).toEqual([]);
      await rm(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it(`${CONTENDERS} processes released at the same instant on a dead holder's lock: exactly one takes it; ${ROUNDS * 3} rounds`, async () => {
    // Processes start hundreds of ms apart, which hides a race of microseconds: these wait for
    // a common instant and then call the built lock module, each holding what it got for 1 s.
    const script = [
      `import { acquireLock } from ${JSON.stringify(`${cli!.dist}engine/journal/lock-file.js`)};`,
      'const [path, at] = process.argv.slice(2);',
      'while (Date.now() < Number(at)) {}',
      'try { const lock = acquireLock(path); console.log("held"); setTimeout(() => lock.release(), 1000); }',
      'catch (error) { console.log(error.code); }',
    ].join('\n');
    const tally: string[] = [];
    for (let round = 0; round < ROUNDS * 3; round++) {
      const dir = await mkdtemp(join(tmpdir(), 'deflow-takeover-instant-'));
      await writeFile(join(dir, 'contend.mjs'), script);
      await writeFile(join(dir, 'session.lock'), deadHolderRecord());
      const at = String(Date.now() + 1500);
      const outcomes = await Promise.all(
        Array.from({ length: CONTENDERS }, async () => {
          const child = spawn(process.execPath, [join(dir, 'contend.mjs'), join(dir, 'session.lock'), at], { stdio: ['ignore', 'pipe', 'inherit'] });
          strays.push(child);
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
          await once(child, 'exit');
          return out.trim();
        }),
      );
      tally.push(outcomes.sort().join(','));
      await rm(dir, { recursive: true, force: true });
    }
    const expected = ['E_STATE_LOCKED', 'E_STATE_LOCKED', 'E_STATE_LOCKED', 'E_STATE_LOCKED', 'E_STATE_LOCKED', 'held'].join(',');
    expect(tally).toEqual(Array<string>(ROUNDS * 3).fill(expected));
  }, 300_000);
});
