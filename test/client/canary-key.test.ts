import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, test } from 'vitest';
import { DeapiClient } from '../../src/client/deapi-client.js';
import { runDeflow } from './cli-run.js';
import { freePort, sendJson, useEmulator, useLocalServer } from './support.js';

// The API key must never appear in any message, log line, thrown error or output. A unique
// canary key is pushed through every failure path, and everything produced is searched.

const CANARY = `sk_CANARY_${randomBytes(12).toString('hex')}`;
const IMAGE = { prompt: 'a red bicycle', model: 'Flux1schnell', width: 512, height: 512, guidance: 0, steps: 4, seed: 1 };

/** Every text an error can show: message, stack, inspection (with causes), details. */
function everything(error: unknown): string {
  return [String(error), (error as Error).stack ?? '', inspect(error, { depth: 10, showHidden: true }), JSON.stringify(error)].join('\n');
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('the API key never leaks', () => {
  test('CLI output with --verbose through 401 and success (5xx and network errors: canary-key-cli.slow.test.ts)', async () => {
    const refusing = await useEmulator();
    const working = await useEmulator({ keys: [{ secret: CANARY, role: 'admin' }] });
    const runs = [
      await runDeflow(['models', '--verbose'], { env: { DEAPI_BASE_URL: refusing.url, DEAPI_API_KEY: CANARY } }),
      await runDeflow(['account', 'balance', '--verbose', '--json'], { env: { DEAPI_BASE_URL: working.url, DEAPI_API_KEY: CANARY } }),
      await runDeflow(['models', '--verbose', '--json'], { env: { DEAPI_BASE_URL: working.url }, stdin: CANARY }),
      await runDeflow(['models', '--verbose', '--api-key-file', '-'], { env: { DEAPI_BASE_URL: working.url }, stdin: `${CANARY}\n` }),
      await runDeflow(['account', 'key', '--verbose', '--json', '--api-key-file', '-'], { env: { DEAPI_BASE_URL: working.url }, stdin: CANARY }),
      await runDeflow(['account', 'payments', '--verbose', '--api-key-file', '-'], { env: { DEAPI_BASE_URL: working.url }, stdin: CANARY }),
    ];
    expect(runs.map((r) => r.code)).toEqual([3, 0, 2, 0, 0, 0]);
    // --verbose really logged requests, so the search covered them.
    expect(runs[3]!.stderr).toContain('GET /api/v2/models → 200');
    for (const run of runs) expect(`${run.stdout}${run.stderr}`).not.toContain(CANARY);
  });

  test('thrown errors and log lines of the library', async () => {
    const lines: string[] = [];
    const log = (line: string): void => {
      lines.push(line);
    };
    const retry = { maxRetries: 1, random: () => 0 };
    const refusing = await useEmulator();
    const failing = await useEmulator({ keys: [{ secret: CANARY, role: 'admin' }], faults: { error_500_rate: 1 } });
    const cutting = await useEmulator({ keys: [{ secret: CANARY, role: 'admin' }], faults: { truncate_rate: 1 } });
    const resetting = await useEmulator({ keys: [{ secret: CANARY, role: 'admin' }], faults: { reset_rate: 1 } });
    const closed = `http://127.0.0.1:${await freePort()}`;
    const clients = [refusing.url, failing.url, cutting.url, resetting.url, closed].map(
      (baseUrl) => new DeapiClient({ apiKey: CANARY, baseUrl, retry, log }),
    );
    try {
      const errors = [];
      for (const client of clients) {
        errors.push(await failure(client.balance()));
        errors.push(await failure(client.submit('image.generate', IMAGE)));
      }
      expect(errors).toHaveLength(10);
      expect(lines.length).toBeGreaterThan(10);
      for (const error of errors) expect(everything(error)).not.toContain(CANARY);
      expect(lines.join('\n')).not.toContain(CANARY);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  test('an error body that echoes the key, a bearer header or a webhook secret is masked', async () => {
    const server = await useLocalServer((req, res) =>
      sendJson(res, 422, {
        message: `Bad key ${CANARY} (${String(req.headers.authorization)})`,
        errors: { webhook_secret: [`webhook_secret=${CANARY}`], key: [encodeURIComponent(CANARY)] },
      }),
    );
    const client = new DeapiClient({ apiKey: CANARY, baseUrl: server.url, governor: false });
    try {
      const error = await failure(client.submit('image.generate', IMAGE));
      expect(everything(error)).not.toContain(CANARY);
      expect((error as Error).message).toContain('Bearer [redacted]');
    } finally {
      await client.close();
    }
  });
});
