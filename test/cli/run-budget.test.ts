import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';
import { call, useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';

const media = (name: string) => fileURLToPath(new URL(`../../workflows/media/scans/${name}`, import.meta.url));

/** OCR two scans, then read each text aloud: nothing prices the speech before the OCR has run. */
const OCR_SPEECH = yaml(
  'version: 1',
  'name: ocr-speech',
  'steps:',
  '  read:',
  '    task: image.ocr',
  '    for_each: { glob: "scans/*.png" }',
  '    with: { image: "${{ item.path }}", model: Nanonets_Ocr_S_F16 }',
  '  say:',
  '    task: audio.speech',
  '    for_each: read',
  '    with: { text: "${{ steps.read.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
);

/** A standalone emulator: its jobs outlive one CLI invocation. */
function useServiceEmulator(): Promise<RunningEmulator> {
  return useEmulator({ config: { balance: 100, jobs: { duration_ms: 100, scale_by_input: false }, rate_limits: { jobs_status: null } } });
}

async function deflow(dir: string, emulator: RunningEmulator, args: string[]): Promise<{ code: number; io: FakeCliIO }> {
  const io = { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } };
  return { code: await runCli(args, io), io };
}

async function balance(emulator: RunningEmulator): Promise<number> {
  const body = (await call(emulator, 'GET', '/api/v2/account/balance', { key: emulator.keys.api })).body as { balance?: number; data?: { balance: number } };
  return body.balance ?? body.data!.balance;
}

describe('deflow run --max-cost', () => {
  it('exits 4 with 0 submissions when the cap is below the quote\'s high end', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(3) });
    const emulator = await useServiceEmulator();
    const quote = await deflow(dir, emulator, ['quote', 'workflow.yaml', '--format', 'json']);
    const total = JSON.parse(quote.io.stdoutText()).total;
    expect(total.high).toBeGreaterThan(total.point);
    const { code, io } = await deflow(dir, emulator, ['run', 'workflow.yaml', '--max-cost', String(total.point), '--quiet']);
    expect(code).toBe(4);
    expect((await call(emulator, 'GET', '/_emulator/stats')).body.submissions).toBe(0);
    expect(io.stderrText()).toMatch(/^over budget: refused to start, nothing was submitted: the high end of the quote, \$0\.\d+, is above the cap of \$0\.\d+$/m);
    expect(io.stderrText()).toMatch(/^resume with a higher cap: deflow run workflow\.yaml --run-id \S+ --max-cost 0\.\d+$/m);
  });

  it('a cap between the first step and the whole run submits nothing past the cap, says so, and resumes with a higher one', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': OCR_SPEECH, 'scans/a.png': readFileSync(media('invoice.png')), 'scans/b.png': readFileSync(media('notes.png')) });
    const emulator = await useServiceEmulator();
    const before = await balance(emulator);

    const gated = await deflow(dir, emulator, ['run', 'workflow.yaml', '--max-cost', '0.0017', '--quiet']);
    expect(gated.code).toBe(4);
    expect(gated.io.stderrText()).toMatch(/^over budget: refused to start, nothing was submitted: 2 item\(s\) have no price/m);
    expect(gated.io.stderrText()).toMatch(/^run the unpriced items under per-job reservations: deflow run workflow\.yaml --run-id \S+ --max-cost 0\.0017 --allow-unpriced$/m);
    expect((await call(emulator, 'GET', '/_emulator/stats')).body.submissions).toBe(0);

    // The two scans cost 0.001546 to read; the cap leaves less than two speeches need.
    const capped = await deflow(dir, emulator, ['run', 'workflow.yaml', '--max-cost', '0.0017', '--allow-unpriced', '--concurrency', '1', '--quiet']);
    expect(capped.code).toBe(4);
    const err = capped.io.stderrText();
    expect(err).toMatch(/^over budget: (read|say)\[\d\] \(\S+\) was not submitted: holding \$0\.\d+ \(.+\) on top of \$0\.\d+ spent and \$0\.\d+ reserved would pass the cap of \$0\.00170$/m);
    expect(err).toMatch(/^nothing was submitted past the cap: the jobs in flight were settled; spent \$0\.\d+ of \$0\.00170; [1-3] item\(s\) left undone$/m);
    const spent = Math.round((before - (await balance(emulator))) * 1e6) / 1e6;
    expect(spent).toBeLessThanOrEqual(0.0017);
    const resume = /^resume with a higher cap: (deflow run .+)$/m.exec(err)?.[1];
    expect(resume).toMatch(/^deflow run workflow\.yaml --run-id \S+ --max-cost 0\.\d+ --allow-unpriced$/);

    const finished = await deflow(dir, emulator, [...resume!.split(' ').slice(1).map((w, i, all) => (all[i - 1] === '--max-cost' ? '1' : w)), '--quiet']);
    expect(finished.code).toBe(0);
    const delta = Math.round((before - (await balance(emulator))) * 1e6) / 1e6;
    const runId = /--run-id (\S+)/.exec(resume!)![1]!;
    const report = JSON.parse(await readFile(join(dir, '.deflow', 'runs', runId, 'report.json'), 'utf8'));
    expect(report.totals.cost_actual).toBe(delta);
    expect(report.invocations.map((i: { cost_actual: number }) => i.cost_actual).reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(delta, 9);
    const status = await deflow(dir, emulator, ['status', runId, '--json']);
    const json = JSON.parse(status.io.stdoutText());
    expect(json.cost.actual).toBe(delta);
    expect(json.cost.invocations.length).toBeGreaterThanOrEqual(2);
    expect(json.cost.quoted).toMatchObject({ unknown_items: 2 });
  });
});
