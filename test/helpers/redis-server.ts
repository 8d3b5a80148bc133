/**
 * A private `redis-server` for one test file: unix socket in a temporary folder, no port, no
 * persistence; stopped by its PID (never by name). Where redis-server is not installed the
 * start fails with the install command; the files that use it are skipped, saying so, unless
 * DEFLOW_TEST_DEPS=require (system-deps.ts).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemDep, systemDepHint } from './system-deps.js';

export interface TestRedis {
  /** `unix:///…/redis.sock` */
  readonly url: string;
  readonly socket: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts redis-server on a fresh unix socket; resolves once it accepts connections. */
export async function startTestRedis(): Promise<TestRedis> {
  const server = systemDep('redis-server');
  const probe = server === undefined ? undefined : spawnSync(server, ['--version'], { encoding: 'utf8' });
  if (server === undefined || probe === undefined || probe.error !== undefined || probe.status !== 0) {
    throw new Error(`the queue tests need a local redis-server (Redis 7), which is not installed here: run \`${systemDepHint('redis-server')}\``);
  }
  const dir = mkdtempSync(join(tmpdir(), 'deflow-redis-'));
  const socket = join(dir, 'redis.sock');
  const child: ChildProcess = spawn(
    server,
    ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s:\n${log}`)), 10_000);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString('utf8');
      if (/ready to accept connections/i.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${log}`));
    });
  });
  try {
    await started;
  } catch (error) {
    // Never leave a server behind: stop it by its PID.
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  child.removeAllListeners('exit');
  const pid = child.pid!;
  return {
    url: `unix://${socket}`,
    socket,
    pid,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        process.kill(pid, 'SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
