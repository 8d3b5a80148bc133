/**
 * Every example in `workflows/` runs as-is: validated, quoted and run on the in-process
 * emulator through the CLI, each from a copy-free workspace (outputs, state and report in a
 * temp folder, so that what an earlier run of the example left in `workflows/.deflow` changes
 * nothing). A new example is picked up by the directory listing.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

const root = new URL('../../', import.meta.url).pathname;
const examples = readdirSync(join(root, 'workflows')).filter((f) => f.endsWith('.yaml')).sort();

describe('every example workflow', () => {
  it('is at least the seven the README lists', () => {
    expect(examples.length).toBeGreaterThanOrEqual(7);
  });

  it.each(examples)('workflows/%s validates, quotes and runs on the emulator', async (file) => {
    const out = await useWorkspace({});
    const cli = async (args: string[]) => {
      const io = { ...createFakeCliIO(root), env: {} };
      const code = await runCli(args, io);
      return { code, io };
    };
    const path = `workflows/${file}`;
    const validated = await cli(['validate', path, '--offline']);
    expect(validated.code, validated.io.stderrText()).toBe(0);

    const quoteFile = join(out, 'quote.json');
    // Its own state folder: the README's quick start runs the demo first, and a quote prices what
    // the workflow's own state folder already holds at $0 (as the run would not pay for it again).
    const quoted = await cli(['quote', path, '--emulator', '--no-quote-cache', '--state-dir', join(out, 'state'), '--output', quoteFile]);
    expect(quoted.code, quoted.io.stderrText()).toBe(0);
    const quote = JSON.parse(await readFile(quoteFile, 'utf8')) as { total: { point: number; high: number } };
    expect(quote.total.point).toBeGreaterThan(0);
    expect(quote.total.high).toBeGreaterThanOrEqual(quote.total.point);

    const reportFile = join(out, 'run.json');
    const ran = await cli(['run', path, '--emulator', '--quiet', '--output', join(out, 'out'), '--state-dir', join(out, 'state'), '--report', reportFile]);
    expect(ran.code, ran.io.stderrText()).toBe(0);
    const report = JSON.parse(await readFile(reportFile, 'utf8'));
    expect(report).toMatchObject({ status: 'done', exit_code: 0, totals: { failed: 0, skipped: 0, pending: 0 } });
    expect(report.totals.done).toBeGreaterThan(0);
  });
});
