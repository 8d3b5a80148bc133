/**
 * `deflow run` against an emulator it did not start (`DEAPI_BASE_URL`): the emulator's answers
 * carry its clock (`X-Emulator-Clock`) and the run follows it: the run-started event carries the
 * time scale, the journal is dated on the emulator's clock and durations are labelled virtual.
 * A service that sends no such header (deAPI; here the same emulator behind a loopback proxy
 * that drops it) leaves the run on real time, as before.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { transcribeThenSpeak } from '../fixtures/workflows.js';

const CHAIN = transcribeThenSpeak('follow');

/** A loopback proxy that forwards everything and drops the emulator's clock header, as deAPI would send it. */
async function useHeaderlessProxy(target: string): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers = { ...req.headers } as Record<string, string>;
        delete headers.host;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await request(`${target}${req.url ?? '/'}`, { method: (req.method ?? 'GET') as 'GET', headers, ...(body ? { body } : {}) });
        const payload = Buffer.from(await answer.body.arrayBuffer());
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(answer.headers)) {
          if (v !== undefined && !['content-length', 'transfer-encoding', 'connection', 'x-emulator-clock'].includes(k)) out[k] = String(v);
        }
        res.writeHead(answer.statusCode, { ...out, 'content-length': String(payload.length) });
        res.end(payload);
      })().catch(() => res.socket?.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs the chain (2 clips, speech limited to 1 a day) against `baseUrl`: exit 5, one speech deferred. */
async function runChain(baseUrl: string, apiKey: string) {
  const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'clips/a.mp3': makeMp3(2), 'clips/b.mp3': makeMp3(3) });
  const io = { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: baseUrl, DEAPI_API_KEY: apiKey } };
  const before = Date.now();
  const code = await runCli(['run', 'workflow.yaml'], io);
  const runs = await readdir(join(dir, '.deflow', 'runs'));
  const events = (await readFile(join(dir, '.deflow', 'runs', runs[0]!, 'events.ndjson'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type?: string; ts?: number; time_scale?: number })
    .filter((event): event is { type: string; ts?: number; time_scale?: number } => typeof event.type === 'string');
  return { code, stderr: io.stderrText(), events, before, after: Date.now() };
}

// A day on the emulator lasts 43 s at time scale 2,000: longer than the run.
const CONFIG = { time_scale: 2000, balance: 100, jobs: { duration_ms: 2000 }, rate_limits: { endpoints: { 'audio/speech': { rpm: 60, rpd: 1 } } } };

describe('deflow run against a standalone emulator', () => {
  it('follows its clock: the time scale in run-started, the events dated on its clock, waits and durations labelled virtual', async () => {
    const emulator = await useEmulator({ config: CONFIG });
    const run = await runChain(emulator.url, emulator.keys.api);
    expect(run.code).toBe(5);
    const started = run.events.find((e) => e.type === 'run-started')!;
    expect(started.time_scale).toBe(2000);
    // The emulator's clock started with the test; by now it is far ahead of real time.
    const last = run.events.filter((event) => typeof event.ts === 'number').at(-1)!.ts;
    expect(last).toBeGreaterThan(run.after + 600_000);
    expect(last).toBeLessThanOrEqual(emulator.clock.now());
    expect(run.stderr).toMatch(/daily limit of audio\/speech used up: 1 item\(s\) deferred until \S+ \(in \d+ h( \d+ min)? virtual\)/);
    expect(run.stderr).toMatch(/\[deflow\] daily-limit \(exit 5\) in \S+( \S+)? \(\S+( \S+)? virtual\):/);
  });

  it('stays on real time when the service sends no clock (as deAPI): nothing is labelled virtual', async () => {
    const emulator = await useEmulator({ config: CONFIG });
    const run = await runChain(await useHeaderlessProxy(emulator.url), emulator.keys.api);
    expect(run.code).toBe(5);
    const started = run.events.find((e) => e.type === 'run-started')!;
    expect(started.time_scale).toBeUndefined();
    const dated = run.events.filter((event) => typeof event.ts === 'number');
    expect(dated.length).toBeGreaterThan(5);
    for (const event of dated) {
      expect(event.ts).toBeGreaterThanOrEqual(run.before - 60_000);
      expect(event.ts).toBeLessThanOrEqual(run.after + 60_000);
    }
    expect(run.stderr).toMatch(/daily limit of audio\/speech used up: 1 item\(s\) deferred until \S+ \(in \d+ h( \d+ min)?\)/);
    expect(run.stderr).not.toContain('virtual');
  });
});
