/**
 * Issue 27, point 4: resume needs no flags. The options that shaped a run are journalled in its
 * run.json; a plain `deflow run WORKFLOW` that resumes it uses them (and says so), an option given
 * again overrides it (and says so), and `deflow status` prints a resume command that works.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { CHAIN } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';
import { expectValid } from '../contract/schemas.js';

async function deflow(dir: string, emulator: RunningEmulator, args: string[]): Promise<{ code: number; io: FakeCliIO }> {
  const io = { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } };
  return { code: await runCli(args, io), io };
}

describe('resume needs no flags', () => {
  it('a run stopped over budget resumes with its journalled --keep-going and --max-cost; status prints a command that works', async () => {
    const emulator = await useEmulator({ config: { balance: 100, jobs: { duration_ms: 50, scale_by_input: false } } });
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, 'clips/c0.mp3': makeMp3(2), 'clips/c1.mp3': makeMp3(3), 'clips/broken.mp3': 'no audio here' });

    const first = await deflow(dir, emulator, ['run', 'workflow.yaml', '--keep-going', '--max-cost', '0.000001', '--quiet']);
    expect(first.code).toBe(4);
    const runId = /--run-id (\S+)/.exec(first.io.stderrText())![1]!;
    const meta = JSON.parse(await readFile(join(dir, '.deflow', 'runs', runId, 'run.json'), 'utf8')) as { options: Record<string, unknown>; items: Record<string, number> };
    expect(meta.options).toMatchObject({ keep_going: true, max_cost: 0.000001, allow_unpriced: false, input: [], output: null, queue: null });
    expect(meta.items).toEqual({ transcribe: 3, speak: 3 });

    const status = await deflow(dir, emulator, ['status', runId, '--json']);
    const json = JSON.parse(status.io.stdoutText()) as { resume_command: string; steps: { step: string; not_started: number | null; skipped: number }[] };
    expectValid('status', json, 'status --json');
    expect(json.resume_command).toBe(`deflow run workflow.yaml --run-id ${runId} --keep-going --max-cost 0.000001`);
    expect(json.steps.map((s) => [s.step, s.skipped, s.not_started])).toEqual([
      ['transcribe', 1, 2],
      ['speak', 1, 2],
    ]);
    const table = (await deflow(dir, emulator, ['status', runId])).io.stdoutText();
    expect(table, table).toMatch(/^STEP +DONE +CACHED +RUNNING +UNKNOWN +FAILED +SKIPPED +NOT STARTED +SPENT +QUOTED$/m);

    // The command status printed works: the same run, its budget kept, the corrupt file still left out.
    const printed = await deflow(dir, emulator, json.resume_command.split(' ').slice(1));
    expect(printed.io.stderrText()).toContain(`resuming run ${runId}`);
    expect(printed.code).toBe(4);

    // A plain run resumes it with the options it was run with, and says so.
    const plain = await deflow(dir, emulator, ['run', 'workflow.yaml']);
    expect(plain.io.stderrText()).toContain(`resuming run ${runId} with the options it was run with: --keep-going --max-cost 0.000001`);
    expect(plain.io.stderrText()).toMatch(/over budget: refused to start/);
    expect(plain.code).toBe(4);
    expect(emulator.stats().submissions).toBe(0);

    // An option given again overrides the journalled one, and is printed as such.
    const raised = await deflow(dir, emulator, ['run', 'workflow.yaml', '--max-cost', '1']);
    expect(raised.io.stderrText()).toContain(`resuming run ${runId} with the options it was run with: --keep-going`);
    expect(raised.io.stderrText()).toContain(`resuming run ${runId}: overridden on the command line: --max-cost 1 (the run had --max-cost 0.000001)`);
    expect(raised.code).toBe(6);
    expect(emulator.stats().submissions).toBe(4);
  });
});
