/**
 * Issue 27, point 6: deflow reads `.env` from the current folder, then from the workflow's
 * folder; the real environment wins, the current folder's file wins over the workflow's, and a
 * value is never printed. Runs against an emulator over HTTP; the key is only in `.env` files.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

const WRONG_KEY = 'wrong-key-from-dotenv-0123456789';

async function deflow(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stderr: string }> {
  const io = { ...createFakeCliIO(cwd), env: { ...env } };
  const code = await runCli(args, io);
  return { code, stderr: io.stderrText() };
}

const dotEnv = (emulator: RunningEmulator, key: string): string => `# the emulator\nDEAPI_BASE_URL=${emulator.url}\nDEAPI_API_KEY="${key}"\n`;

function emulator(): Promise<RunningEmulator> {
  return useEmulator({ config: { balance: 100, jobs: { duration_ms: 100, scale_by_input: false }, rate_limits: { jobs_status: null } } });
}

describe('.env files', () => {
  it('a run finds its key in the current folder\'s .env (was: no API key, exit 2)', async () => {
    const service = await emulator();
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1), '.env': dotEnv(service, service.keys.api) });
    const run = await deflow(dir, ['run', 'workflow.yaml', '--quiet']);
    expect(run.stderr).not.toMatch(/no API key/);
    expect(run.code, run.stderr).toBe(0);
  });

  it('a run finds its key in the .env beside the workflow, run from another folder', async () => {
    const service = await emulator();
    const dir = await useWorkspace({ 'pipeline/workflow.yaml': CHAIN, ...Object.fromEntries(Object.entries(clips(1)).map(([k, v]) => [`pipeline/${k}`, v])), 'pipeline/.env': dotEnv(service, service.keys.api) });
    const run = await deflow(dir, ['run', 'pipeline/workflow.yaml', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
  });

  it('the environment wins over .env, the current folder over the workflow\'s; a value read is never printed', async () => {
    const service = await emulator();
    const files = { 'pipeline/workflow.yaml': CHAIN, ...Object.fromEntries(Object.entries(clips(1)).map(([k, v]) => [`pipeline/${k}`, v])) };
    // The current folder's right key wins over the workflow folder's wrong one.
    const dir = await useWorkspace({ ...files, '.env': dotEnv(service, service.keys.api), 'pipeline/.env': dotEnv(service, WRONG_KEY) });
    expect((await deflow(dir, ['run', 'pipeline/workflow.yaml', '--quiet'])).code).toBe(0);

    // A wrong key in the environment wins over the right one in .env: refused, and the .env value is not shown.
    const refused = await deflow(dir, ['run', 'pipeline/workflow.yaml', '--quiet', '--no-cache'], { DEAPI_API_KEY: WRONG_KEY });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('E_AUTH');
    expect(refused.stderr).not.toContain(service.keys.api);
    expect(refused.stderr).not.toContain(WRONG_KEY);
  });
});
