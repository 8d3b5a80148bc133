import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { runDeflow } from './cli-run.js';
import { freePort, useEmulator } from './support.js';

// The CLI's failure paths that back off in real time (GET retries on the system clock).

const CANARY = `sk_CANARY_${randomBytes(12).toString('hex')}`;

describe('the API key never leaks from the CLI', () => {
  test('through a 5xx and a network error, with --verbose', async () => {
    const failing = await useEmulator({ keys: [{ secret: CANARY, role: 'admin' }], faults: { error_500_rate: 1 } });
    const closed = `http://127.0.0.1:${await freePort()}`;
    const runs = [
      await runDeflow(['account', 'balance', '--verbose', '--json'], { env: { DEAPI_BASE_URL: failing.url, DEAPI_API_KEY: CANARY } }),
      await runDeflow(['models', '--verbose', '--api-key-file', '-'], { env: { DEAPI_BASE_URL: closed }, stdin: CANARY }),
      await runDeflow(['account', 'key', '--verbose', '--api-key-file', '-'], { env: { DEAPI_BASE_URL: closed }, stdin: CANARY }),
    ];
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1]);
    expect(runs[0]!.stderr).toContain('deflow: GET /api/v2/account/balance: 500 Server Error');
    expect(runs[2]!.stderr).toContain('no answer from the service (ECONNREFUSED');
    for (const run of runs) expect(`${run.stdout}${run.stderr}`).not.toContain(CANARY);
  });
});
