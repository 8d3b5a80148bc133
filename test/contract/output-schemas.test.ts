/**
 * Every machine-readable output, produced for real (the CLI over loopback against the
 * emulator), validates against its JSON Schema in schemas/: NDJSON events (stdout and the
 * run's event log), the run report, the quote, `validate --json`, `status --json`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { JournalRecord } from '../../src/engine/journal/journal-records.js';
import { CHAIN, clips, runDurablyIn } from '../engine/journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../engine/run-helpers.js';
import { useDemoWorkspace } from '../helpers/demo-workspace.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';
import { expectValid } from './schemas.js';

async function cli(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = { ...createFakeCliIO(cwd), env: {} };
  const code = await runCli(args, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

function ndjson(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('machine-readable outputs match their schemas', () => {
  it('run --json, the event log, the run report, status --json (one run and the list) of the demo', async () => {
    const dir = await useDemoWorkspace();
    const run = await cli(dir, ['run', 'workflows/demo.yaml', '--emulator', '--json', '--max-cost', '1', '--report', 'run.json']);
    expect(run.code, run.stderr).toBe(0);
    const events = ndjson(run.stdout);
    expect(events[0]).toEqual({ type: 'version', format: '1.2', format_version: 1, tool: 'deflow' });
    const types = new Set(events.map((e) => e['type']));
    for (const type of ['run-started', 'quoted', 'item-queued', 'item-submitted', 'item-downloading', 'item-done', 'run-finished']) expect(types).toContain(type);
    events.forEach((event, i) => expectValid('events', event, `stdout line ${i + 1}: ${String(event['type'])}`));

    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')) as { run_id: string };
    expectValid('report', report, 'run.json');
    const logged = ndjson(await readFile(join(dir, 'workflows/.deflow/runs', report.run_id, 'events.ndjson'), 'utf8'));
    expect(logged.map((e) => e['type'])).toEqual(events.map((e) => e['type']));
    logged.forEach((event, i) => expectValid('events', event, `events.ndjson line ${i + 1}`));

    const one = await cli(dir, ['status', report.run_id, '--json']);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ format_version: 2, run_id: report.run_id, status: 'done' });
    expectValid('status', JSON.parse(one.stdout), 'status RUN --json');
    const list = await cli(dir, ['status', '--json']);
    expect(JSON.parse(list.stdout)).toMatchObject({ format_version: 2, runs: [{ run_id: report.run_id, status: 'done' }] });
    expectValid('status', JSON.parse(list.stdout), 'status --json');
  });

  it('status --json of a run with an unknown item names its request_id in snake_case', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(2) });
    const emulator = await useFastEmulator({ jobs: { duration_ms: 2000 } });
    const dieAfterFirstIntent = {
      onAfterSync(record: JournalRecord) {
        if (record.t === 'intent') throw new Error('died');
      },
    };
    await runDurablyIn(dir, emulator, { concurrency: 1, journalHooks: dieAfterFirstIntent });
    const second = await runDurablyIn(dir, emulator);
    const status = await cli(dir, ['status', second.outcome.runId, '--json']);
    const parsed = JSON.parse(status.stdout) as { unknowns: unknown[] };
    expect(parsed.unknowns).toEqual([{ node: 'transcribe/clips/c0.mp3', reason: expect.stringContaining('intent journalled but no request_id') as string, request_id: null }]);
    expectValid('status', parsed, 'status RUN --json with unknowns');
  });

  it('failed and skipped items in the events, the report and status --json', async () => {
    const dir = await useDemoWorkspace();
    await writeFile(join(dir, 'emulator.yaml'), 'jobs: { fail_rate: 1 }\n');
    const run = await cli(dir, ['run', 'workflows/demo.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--json', '--report', 'run.json']);
    expect(run.code, run.stderr).toBe(1);
    const events = ndjson(run.stdout);
    const types = new Set(events.map((e) => e['type']));
    expect(types).toContain('item-failed');
    expect(types).toContain('item-skipped');
    events.forEach((event, i) => expectValid('events', event, `line ${i + 1}: ${String(event['type'])}`));
    expectValid('report', JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')), 'run.json');
    const status = await cli(dir, ['status', 'workflows/demo.yaml', '--json']);
    expectValid('status', JSON.parse(status.stdout), 'status WORKFLOW --json');
  });

  it('quote --format json (and with --compare-to), validate --json valid and invalid', async () => {
    const dir = await useDemoWorkspace();
    const quote = await cli(dir, ['quote', 'workflows/demo.yaml', '--emulator', '--format', 'json', '--output', 'base.json']);
    expect(quote.code, quote.stderr).toBe(0);
    expectValid('quote', JSON.parse(quote.stdout), 'quote');
    const compared = await cli(dir, ['quote', 'workflows/demo.yaml', '--emulator', '--format', 'json', '--compare-to', 'base.json']);
    expect(JSON.parse(compared.stdout)).toHaveProperty('comparison.total');
    expectValid('quote', JSON.parse(compared.stdout), 'quote --compare-to');

    const valid = await cli(dir, ['validate', 'workflows/demo.yaml', '--offline', '--json']);
    expect(JSON.parse(valid.stdout)).toMatchObject({ format_version: 1, ok: true });
    expectValid('validate', JSON.parse(valid.stdout), 'validate --json');
    await writeFile(join(dir, 'bad.yaml'), 'version: 1\nsteps:\n  a:\n    task: audio.speech\n    with: { text: 1, model: NoSuchModel }\n');
    const invalid = await cli(dir, ['validate', 'bad.yaml', '--offline', '--json']);
    expect(invalid.code).toBe(2);
    const parsed = JSON.parse(invalid.stdout) as { ok: boolean; errors: unknown[] };
    expect(parsed.ok).toBe(false);
    expect(parsed.errors.length).toBeGreaterThan(0);
    expectValid('validate', parsed, 'validate --json (invalid)');
  });
});
