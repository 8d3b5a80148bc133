/**
 * Issue 27, point 1: a budget counts what this run will pay. Items whose result the result
 * cache holds are priced at $0 and shown apart ("already have"); the gate compares the cap
 * with the high end of what is to pay, in `deflow quote` as in `deflow run`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { call, useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';

function useServiceEmulator(): Promise<RunningEmulator> {
  return useEmulator({ config: { balance: 100, jobs: { duration_ms: 50, scale_by_input: false }, rate_limits: { jobs_status: null } } });
}

async function deflow(dir: string, emulator: RunningEmulator, args: string[]): Promise<{ code: number; io: FakeCliIO }> {
  const io = { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } };
  return { code: await runCli(args, io), io };
}

interface QuoteJson {
  to_pay: { point: number; high: number; unknown_items: number };
  total: { point: number; high: number };
  already_have: { items: number; cost: number };
  steps: { id: string; already_have: { items: number }; quoted_items: { price: number | null; held?: { source: string; cost: number | null } }[] }[];
}

const submissions = async (emulator: RunningEmulator): Promise<number> => (await call(emulator, 'GET', '/_emulator/stats')).body.submissions as number;

describe('a budget counts what the run will pay (result-cache hits are $0)', () => {
  it('all items cached: the quote has nothing to pay, and a cap below the folder\'s total runs, spending $0', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useServiceEmulator();
    const first = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet']);
    expect(first.code).toBe(0);
    const paid = await submissions(emulator);
    expect(paid).toBe(6);

    const quoted = await deflow(dir, emulator, ['quote', 'workflow.yaml', '--format', 'json']);
    expect(quoted.code).toBe(0);
    const quote = JSON.parse(quoted.io.stdoutText()) as QuoteJson;
    expect(quote.already_have.items).toBe(6);
    expect(quote.already_have.cost).toBeGreaterThan(0);
    expect(quote.to_pay).toMatchObject({ point: 0, high: 0, unknown_items: 0 });
    expect(quote.total).toEqual(quote.to_pay);
    for (const step of quote.steps) {
      expect(step.already_have.items).toBe(3);
      for (const item of step.quoted_items) expect(item).toMatchObject({ price: 0, held: { source: 'cache' } });
    }

    // --no-cache prices every item, as a run with --no-cache would pay for them.
    const uncached = JSON.parse((await deflow(dir, emulator, ['quote', 'workflow.yaml', '--format', 'json', '--no-cache'])).io.stdoutText()) as QuoteJson;
    expect(uncached.already_have.items).toBe(0);
    expect(uncached.to_pay.high).toBeGreaterThan(0.000001);

    // A cap far below the folder's total: nothing is to pay, so the run goes and sends nothing.
    const capped = await deflow(dir, emulator, ['run', 'workflow.yaml', '--max-cost', '0.000001']);
    expect(capped.io.stderrText()).not.toMatch(/over budget/);
    expect(capped.code).toBe(0);
    expect(await submissions(emulator)).toBe(paid);

    // A PR gate agrees with the nightly: the same cap passes `deflow quote`.
    const gate = await deflow(dir, emulator, ['quote', 'workflow.yaml', '--max-cost', '0.000001']);
    expect(gate.code).toBe(0);
    expect(gate.io.stdoutText()).toMatch(/^To pay: {4}\$0\.00 /m);
    expect(gate.io.stdoutText()).toMatch(/^Have: {6}6 item\(s\) already had, \$0\.\d+ when paid once/m);
  });

  it('a growing folder: only the new items count against the cap', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useServiceEmulator();
    expect((await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet'])).code).toBe(0);
    const whole = JSON.parse((await deflow(dir, emulator, ['quote', 'workflow.yaml', '--format', 'json', '--no-cache'])).io.stdoutText()) as QuoteJson;

    // One more clip arrives: the cap is below the folder's total but above the new item.
    await writeFile(join(dir, 'clips/c3.mp3'), clips(1, 3)['clips/c3.mp3']!);
    const next = JSON.parse((await deflow(dir, emulator, ['quote', 'workflow.yaml', '--format', 'json'])).io.stdoutText()) as QuoteJson;
    expect(next.already_have.items).toBe(6);
    expect(next.to_pay.high).toBeGreaterThan(0);
    expect(next.to_pay.high).toBeLessThan(whole.to_pay.high);
    const cap = (next.to_pay.high + whole.to_pay.high) / 2;
    const before = await submissions(emulator);
    const run = await deflow(dir, emulator, ['run', 'workflow.yaml', '--max-cost', cap.toFixed(6), '--quiet']);
    expect(run.io.stderrText()).toBe('');
    expect(run.code).toBe(0);
    expect(await submissions(emulator)).toBe(before + 2);
  });
});
