/**
 * Issue 27, point 5: a run checks its key and the balance before it starts. A wrong key fails a
 * run whose every item comes from the result cache (exit 3, E_AUTH) instead of exiting 0; a
 * balance below the high end of what the run is about to pay refuses to start (exit 3), budget
 * or not; `--offline` makes no call.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';

const WRONG_KEY = 'wrong-key-0123456789abcdef0123';

async function deflow(dir: string, emulator: RunningEmulator, args: string[], key = emulator.keys.api): Promise<{ code: number; io: FakeCliIO }> {
  const io = { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: key } };
  return { code: await runCli(args, io), io };
}

function useServiceEmulator(balance = 100): Promise<RunningEmulator> {
  return useEmulator({ config: { balance, jobs: { duration_ms: 100, scale_by_input: false }, rate_limits: { jobs_status: null } } });
}

describe('deflow run checks the account before it starts', () => {
  it('exits 3 with E_AUTH on a wrong key even when every item comes from the cache, and never prints the key', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useServiceEmulator();
    const first = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet']);
    expect(first.code).toBe(0);
    const submitted = emulator.stats().submissions;

    // Everything is in the result cache: with the right key the run pays nothing and exits 0.
    const cached = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet']);
    expect(cached.code).toBe(0);
    expect(emulator.stats().submissions).toBe(submitted);

    const wrong = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet'], WRONG_KEY);
    expect(wrong.code).toBe(3);
    expect(wrong.io.stderrText()).toMatch(/^deflow: E_AUTH: the service refused the API key \(GET \/api\/v2\/account\/balance: 401 .+\); nothing was submitted$/m);
    expect(wrong.io.stderrText()).not.toContain(WRONG_KEY);
    expect(emulator.stats().submissions).toBe(submitted);

    // --offline makes no call: the cached run goes on without checking the key.
    const offline = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet', '--offline'], WRONG_KEY);
    expect(offline.code).toBe(0);
  });

  it('refuses to start (exit 3, nothing submitted) when the balance is below the high end of what the run is about to pay, with no budget set', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useServiceEmulator(0.0001);
    const { code, io } = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet']);
    expect(code).toBe(3);
    expect(io.stderrText()).toMatch(/^deflow: refused to start, nothing was submitted: the high end of the quote, \$0\.\d+, is above the balance of \$0\.0001$/m);
    expect(emulator.stats().submissions).toBe(0);
  });

  it('refuses to start with a budget too when the cap is above the balance', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useServiceEmulator(0.0001);
    const { code, io } = await deflow(dir, emulator, ['run', 'workflow.yaml', '--quiet', '--max-cost', '5']);
    expect(code).toBe(3);
    expect(io.stderrText()).toMatch(/is above the balance of \$0\.0001$/m);
    expect(emulator.stats().submissions).toBe(0);
  });
});
