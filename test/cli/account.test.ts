import { describe, expect, test } from 'vitest';
import { runDeflow } from '../client/cli-run.js';
import { useEmulator } from '../client/support.js';

describe('deflow account', () => {
  test('balance --emulator prints the balance in USD', async () => {
    const run = await runDeflow(['account', 'balance', '--emulator']);
    expect(run).toMatchObject({ code: 0, stdout: 'balance: 100.00 USD\n' });
  });

  test('balance --json prints { balance }', async () => {
    const run = await runDeflow(['account', 'balance', '--emulator', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ balance: 100 });
  });

  test('payments lists the top-ups, newest first, with the page', async () => {
    const run = await runDeflow(['account', 'payments', '--emulator', '--limit', '2']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+CREATED\s+AMOUNT\s+STATUS\s+PROVIDER$/);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(/^page 1 of \d+ \(\d+ payments\)$/);
    const json = JSON.parse((await runDeflow(['account', 'payments', '--emulator', '--json', '--limit', '2', '--page', '2'])).stdout);
    expect(json.meta.current_page).toBe(2);
    expect(json.data).toHaveLength(2);
  });

  test('payments with an API-role key is refused (exit 3)', async () => {
    const emulator = await useEmulator();
    const run = await runDeflow(['account', 'payments'], { env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('deflow: GET /api/v2/account/payments: 403 This action is unauthorized.\n');
  });

  test('key shows the calling key masked, never its secret', async () => {
    const emulator = await useEmulator();
    const run = await runDeflow(['account', 'key'], { env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^name:\s+\S/m);
    expect(run.stdout).toMatch(/^role:\s+api$/m);
    expect(run.stdout).toMatch(/^preview:\s+\S/m);
    expect(run.stdout).not.toContain(emulator.keys.api);
    const json = JSON.parse((await runDeflow(['account', 'key', '--json'], { env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } })).stdout);
    expect(json.role).toBe('api');
  });

  test('--limit out of range is a usage error', async () => {
    const run = await runDeflow(['account', 'payments', '--emulator', '--limit', '500']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--limit: expected an integer from 1 to 100, got "500"');
  });
});
