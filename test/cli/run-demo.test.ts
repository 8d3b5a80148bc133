import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

const root = new URL('../../', import.meta.url).pathname;

describe('the demo', () => {
  it('runs workflows/demo.yaml on the in-process emulator and leaves its outputs and report', async () => {
    const out = await useWorkspace({});
    const io = { ...createFakeCliIO(root), env: {} };
    const code = await runCli(
      ['run', 'workflows/demo.yaml', '--emulator', '--output', join(out, 'demo'), '--state-dir', join(out, 'state'), '--report', join(out, 'run.json')],
      io,
    );
    expect(code).toBe(0);
    const files = (await readdir(join(out, 'demo'))).sort();
    expect(files.filter((f) => f.endsWith('.txt')).length).toBeGreaterThan(0);
    expect(files.filter((f) => f.endsWith('.mp3')).length).toBe(files.filter((f) => f.endsWith('.txt')).length);
    expect(files).toContain('test-pattern.json');
    const report = JSON.parse(await readFile(join(out, 'run.json'), 'utf8'));
    expect(report).toMatchObject({ status: 'done', exit_code: 0, totals: { failed: 0, skipped: 0, pending: 0 } });
    expect(io.stderrText()).toContain('outputs:');
  });
});
