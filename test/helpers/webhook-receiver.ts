/**
 * What the webhook tests share: a free loopback address for a session's receiver (the stable
 * public URL a later session or a `deflow worker` listens at too), and the emulator's
 * drop-answers fault.
 */
import { createServer } from 'node:net';
import { request } from 'undici';
import { expect } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';

/** A free loopback port (taken and let go at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `--webhook-url` and `--webhook-listen` of a receiver on a free loopback port. */
export async function webhookAddress(): Promise<{ url: string; listen: string }> {
  const port = await freePort();
  return { url: `http://127.0.0.1:${port}/hooks`, listen: `127.0.0.1:${port}` };
}

/** The next `n` submissions are accepted, created and charged, and their answer lost. */
export async function dropAnswers(emulator: RunningEmulator, n: number): Promise<void> {
  const res = await request(`${emulator.url}/_emulator/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ drop_answers: n }) });
  expect(res.statusCode).toBe(200);
  await res.body.text();
}
