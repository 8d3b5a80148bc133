import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { call } from '../helpers/emulator-http.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-cli-emulator-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('deflow emulator', () => {
  it('prints its URL first, then the keys, serves requests and stops cleanly on interrupt', async () => {
    await writeFile(
      join(dir, 'emu.yaml'),
      'keys:\n  - { secret: "cli-admin-key-0123456789", role: admin, name: "ci admin" }\n  - { secret: "cli-api-key-0123456789", role: api, name: "ci api" }\n',
    );
    const io = createFakeCliIO(dir);
    const exit = runCli(['emulator', '--port', '0', '--config', 'emu.yaml'], io);
    const out = await io.waitForStdout('api key');
    const [first, ...rest] = out.trimEnd().split('\n');
    const match = /^deflow emulator listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(first ?? '');
    expect(match).not.toBeNull();
    expect(Number(match?.[2])).toBeGreaterThan(0);
    expect(rest).toEqual(['  time scale: 1 (real time)', '  admin key: cli-admin-key-0123456789  (ci admin)', '  api key: cli-api-key-0123456789  (ci api)']);
    const url = match?.[1] ?? '';
    const balance = await call({ url }, 'GET', '/api/v2/account/balance', { key: 'cli-api-key-0123456789' });
    expect(balance.body).toEqual({ balance: 100 });
    io.interrupt();
    expect(await exit).toBe(0);
    await expect(call({ url }, 'GET', '/api/v2/account/balance')).rejects.toThrow();
  });

  it('--time-scale N runs the emulator N times faster than real time and says so at start (was only a config key)', async () => {
    const io = createFakeCliIO(dir);
    const exit = runCli(['emulator', '--port', '0', '--time-scale', '3600'], io);
    const out = await io.waitForStdout('api key');
    expect(out).toMatch(/^ {2}time scale: 3600 \(a real second is 3600 emulator seconds: jobs, rate windows and daily resets run that much faster; times it reports are its own, virtual\)$/m);
    const url = /listening on (\S+)/.exec(out)![1]!;
    const first = (await call({ url }, 'GET', '/_emulator/clock')).body.now_ms as number;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const later = (await call({ url }, 'GET', '/_emulator/clock')).body.now_ms as number;
    // 200 ms of real time is 720 s of emulator time (at least 100 s, whatever the machine's load).
    expect(later - first).toBeGreaterThan(100_000);
    io.interrupt();
    expect(await exit).toBe(0);

    const bad = createFakeCliIO(dir);
    expect(await runCli(['emulator', '--port', '0', '--time-scale', '0'], bad)).toBe(2);
    expect(bad.stderrText()).toContain('--time-scale: expected a number > 0');
  });

  it('generates and prints one admin and one api key when the config has none', async () => {
    const io = createFakeCliIO(dir);
    const exit = runCli(['emulator', '--port', '0'], io);
    const out = await io.waitForStdout('api key');
    expect(out).toMatch(/\n {2}admin key: \S+ {2}\(.+\)\n {2}api key: \S+ {2}\(.+\)\n$/);
    io.interrupt();
    expect(await exit).toBe(0);
  });

  it('a bad config prints one located error line and exits 2', async () => {
    await writeFile(join(dir, 'bad.yaml'), 'balance: 10\nrate_limit: {}\n');
    const io = createFakeCliIO(dir);
    const code = await runCli(['emulator', '--port', '0', '--config', 'bad.yaml'], io);
    expect(code).toBe(2);
    expect(io.stdoutText()).toBe('');
    const lines = io.stderrText().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe('deflow: bad.yaml:2:1: rate_limit: unknown key; did you mean "rate_limits"?');
  });

  it('a port in use is a clear error with exit code 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const io = createFakeCliIO(dir);
      const code = await runCli(['emulator', '--port', String(port)], io);
      expect(code).toBe(1);
      expect(io.stderrText()).toContain('already in use');
      expect(io.stderrText()).toContain(String(port));
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('a port that is not a number is a usage error (exit 2)', async () => {
    const io = createFakeCliIO(dir);
    expect(await runCli(['emulator', '--port', 'eighty'], io)).toBe(2);
    expect(io.stderrText()).toContain('--port');
  });

  it('--profile live and --tier basic override the config: data.balance, the published limits, and the webhook secret printed', async () => {
    await writeFile(join(dir, 'plain.yaml'), 'keys:\n  - { secret: "cli-live-key-0123456789", role: api, name: "live" }\nprofile: spec\n');
    const io = createFakeCliIO(dir);
    const exit = runCli(['emulator', '--port', '0', '--config', 'plain.yaml', '--profile', 'live', '--tier', 'basic'], io);
    const out = await io.waitForStdout('webhook secret');
    expect(out).toMatch(/\n {2}webhook secret: emu_whsec_[0-9a-f]{64} {2}\(account default; signs deliveries without a webhook_secret\)\n$/);
    const url = /listening on (\S+)/.exec(out)?.[1] ?? '';
    const balance = await call({ url }, 'GET', '/api/v2/account/balance', { key: 'cli-live-key-0123456789' });
    expect(balance.body).toEqual({ balance: 100, data: { balance: 100 } });
    const poll = await call({ url }, 'GET', '/api/v2/jobs/unknown', { key: 'cli-live-key-0123456789' });
    expect(poll.headers['x-ratelimit-daily-limit']).toBe('200');
    io.interrupt();
    expect(await exit).toBe(0);
  });

  it('a profile or tier outside the choices, or --tls-cert without --tls-key, is a usage error (exit 2)', async () => {
    for (const args of [['--profile', 'prod'], ['--tier', 'gold'], ['--tls-cert', 'cert.pem']]) {
      const io = createFakeCliIO(dir);
      expect(await runCli(['emulator', '--port', '0', ...args], io), args.join(' ')).toBe(2);
      expect(io.stderrText()).toContain(args[0]);
    }
  });
});
