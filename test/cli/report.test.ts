import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { CHAIN, clips, runDurablyIn } from '../engine/journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

async function cli(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = createFakeCliIO(cwd);
  const code = await runCli(args, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('deflow report', () => {
  it('says so (exit 2) when there is no run here or below', async () => {
    const dir = await useWorkspace({});
    const result = await cli(dir, ['report', '--html', 'r.html']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${dir}: no runs here or below (pass a run id, a workflow file or --state-dir)`);
  });

  it('names the missing event log of a run made without one (exit 2), and needs a file to write', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 1000 } });
    // The engine alone (no CLI) keeps no event log.
    const run = await runDurablyIn(dir, emulator);
    const result = await cli(dir, ['report', 'workflow.yaml', '--html', 'r.html']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`run ${run.outcome.runId}: no event log at ${join(dir, '.deflow/runs', run.outcome.runId, 'events.ndjson')}`);
    await expect(readFile(join(dir, 'r.html'))).rejects.toThrow(/ENOENT/);
    const noHtml = await cli(dir, ['report', run.outcome.runId]);
    expect(noHtml.code).toBe(2);
    expect(noHtml.stderr).toContain('name at least one file to write: --html FILE, --report FILE or --junit FILE');
  });
});
