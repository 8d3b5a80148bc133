/**
 * Helpers of the quote tests: hand-built quote inputs (the quote's own small interface),
 * media files in a temp dir, and a client on an in-process emulator's clock.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { onTestFinished } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import type { RunningEmulator } from '../../../src/emulator/start-emulator.js';
import type { QuoteItem, QuoteStep } from '../../../src/engine/quote/quote-input.js';
import type { PriceSource } from '../../../src/engine/quote/quote-price-book.js';
import { clientPriceSource } from '../../../src/engine/quote/quote-price-source.js';
import type { TaskId } from '../../../src/service/types.js';

/** A temp dir removed when the test finishes. */
export async function useTempDir(prefix = 'deflow-quote-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Writes silent MP3s of the given lengths; returns their paths (same order). */
export async function writeMp3s(dir: string, seconds: readonly number[], prefix = 'a'): Promise<string[]> {
  return Promise.all(
    seconds.map(async (s, i) => {
      const path = join(dir, `${prefix}${i}.mp3`);
      await writeFile(path, makeMp3(s));
      return path;
    }),
  );
}

/** A step over fixed items. */
export function stepOf(id: string, task: TaskId, items: readonly Omit<QuoteItem, 'index' | 'key'>[], upstream: string | null = null): QuoteStep {
  const full: QuoteItem[] = items.map((item, index) => ({ index, key: `${id}-${index}`, ...item }));
  return {
    id,
    task,
    items: full.length,
    upstream,
    async *iterate() {
      yield* full;
    },
  };
}

/** What the client sent: one entry per price request, with its body size in bytes (null when unknown). */
export interface BodyLog {
  readonly priceBodies: { path: string; bytes: number | null }[];
}

/**
 * A client on the emulator's clock, with a dispatcher that records the size of every price
 * request body (the client declares Content-Length for every body it can size).
 */
export function clientFor(emulator: RunningEmulator): { client: DeapiClient; prices: PriceSource; log: BodyLog } {
  const log: BodyLog = { priceBodies: [] };
  const dispatcher: Dispatcher = new Agent().compose((dispatch) => (opts, handler) => {
    if (opts.path.includes('/price')) log.priceBodies.push({ path: opts.path, bytes: bodyBytes(opts) });
    return dispatch(opts, handler);
  });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock: emulator.clock, dispatcher });
  onTestFinished(async () => {
    await client.close();
    await dispatcher.close();
  });
  return { client, prices: clientPriceSource(client), log };
}

function bodyBytes(opts: Dispatcher.DispatchOptions): number | null {
  if (typeof opts.body === 'string') return Buffer.byteLength(opts.body);
  const headers = opts.headers;
  let declared: unknown;
  if (Array.isArray(headers)) {
    const at = headers.findIndex((h, i) => i % 2 === 0 && String(h).toLowerCase() === 'content-length');
    declared = at >= 0 ? headers[at + 1] : undefined;
  } else if (headers && typeof headers === 'object') {
    declared = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-length')?.[1];
  }
  const bytes = Number(declared);
  return declared === undefined || !Number.isFinite(bytes) ? null : bytes;
}
