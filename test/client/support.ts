/**
 * Helpers of the client tests: an emulator per test (closed when it finishes), a client on the
 * emulator's virtual clock, and a tiny local `node:http` server for answer shapes the emulator
 * never produces (real HTTP on loopback, not a mock).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { DeapiClient } from '../../src/client/deapi-client.js';
import type { DeapiClientOptions } from '../../src/client/client-options.js';
import { type EmulatorConfigInput, type RunningEmulator, startEmulator } from '../../src/emulator/start-emulator.js';

/** Starts an emulator (fast virtual clock unless the config says otherwise), closed after the test. */
export async function useEmulator(config: EmulatorConfigInput = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({ config: { time_scale: 600, ...config }, onError: (e) => console.error(e) });
  onTestFinished(() => emulator.close());
  return emulator;
}

/** A client of `emulator` on its clock, with its api key unless `apiKey` is given. Closed after the test. */
export function useClient(emulator: RunningEmulator, options: Partial<DeapiClientOptions> = {}): DeapiClient {
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock: emulator.clock, ...options });
  onTestFinished(() => client.close());
  return client;
}

/** A client of any loopback server (system clock, a dummy key unless given). Closed after the test. */
export function useClientAt(baseUrl: string, options: Partial<DeapiClientOptions> = {}): DeapiClient {
  const client = new DeapiClient({ apiKey: 'test-key-0123456789', baseUrl, ...options });
  onTestFinished(() => client.close());
  return client;
}

/** A request the local server received. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
}

/** Starts a local HTTP server with `handler`; it records every request. Closed after the test. */
export async function useLocalServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; port: number; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, seen };
}

/** Sends `body` as JSON with `status` and `headers`. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Answer counts by status from the emulator's own counters. */
export function statusCount(emulator: RunningEmulator, status: number): number {
  return emulator.stats().by_status[String(status)] ?? 0;
}
