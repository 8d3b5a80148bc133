/**
 * Reports a run cannot write (issue 25.5): `--junit` naming a folder, `--report` beside a
 * planted `<file>.part` symbolic link, `--html` on a device node. The run's results stay, the
 * command exits 1 (it exited 0), nothing is written through the link or left beside the
 * folder, and the message gives the `deflow report` command that writes them again.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';
import { canMount } from '../helpers/small-disks.js';

const WORKFLOW = yaml('version: 1', 'steps:', '  embed:', '    task: text.embed', '    with: { input: "hello", model: Bge_M3_FP16 }', '    save: "embedding.json"');

async function cli(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = createFakeCliIO(cwd);
  const code = await runCli(args, { ...io, env: {} });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('a report the run cannot write', () => {
  it('exits 1 naming it, writes nothing through a planted link, and `deflow report` writes it again', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW, 'emulator.yaml': 'time_scale: 200\n', 'victim.txt': 'untouched' });
    mkdirSync(join(dir, 'junit.xml'));
    symlinkSync(join(dir, 'victim.txt'), join(dir, 'run.json.part'));
    const run = await cli(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--quiet', '--report', 'run.json', '--junit', 'junit.xml']);
    expect(run.stderr).toContain(`${join(dir, 'junit.xml')}: could not write the JUnit report: ${join(dir, 'junit.xml')}: is a folder`);
    expect(run.code).toBe(1);
    // The results are kept and the JSON report is written; the link's target is untouched.
    expect(JSON.parse(readFileSync(join(dir, 'out', 'embedding.json'), 'utf8'))).toBeTruthy();
    expect(readFileSync(join(dir, 'victim.txt'), 'utf8')).toBe('untouched');
    const report = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { run_id: string; status: string };
    expect(report.status).toBe('done');
    expect(readdirSync(dir).filter((name) => name.endsWith('.part') && name !== 'run.json.part')).toEqual([]);
    const hint = `write the reports again with: deflow report ${report.run_id} --state-dir .deflow --report run.json --junit junit.xml`;
    expect(run.stderr).toContain(hint);

    rmdirSync(join(dir, 'junit.xml'));
    const again = await cli(dir, hint.slice(hint.indexOf('deflow report') + 'deflow '.length).split(' '));
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testcase [^>]*name="embed\[0\]/);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'))).toEqual(report);
  });

  it.runIf(canMount)('--html on a device node leaves the device alone (exit 1)', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW, 'emulator.yaml': 'time_scale: 200\n' });
    execFileSync('mknod', [join(dir, 'full'), 'c', '1', '7']);
    const run = await cli(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--quiet', '--html', 'full']);
    expect(run.stderr).toContain(`${join(dir, 'full')}: is a device`);
    expect(run.stderr).toMatch(/write the reports again with: deflow report \S+ --state-dir \.deflow --html full/);
    expect(run.code).toBe(1);
    expect(lstatSync(join(dir, 'full')).isCharacterDevice()).toBe(true);
  });

  it('`deflow report` with no file to write is a usage error (exit 2)', async () => {
    const dir = await useWorkspace({});
    writeFileSync(join(dir, 'x'), '');
    const result = await cli(dir, ['report']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('name at least one file to write: --html FILE, --report FILE or --junit FILE');
  });
});
