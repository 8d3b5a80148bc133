import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

async function completion(shell: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = createFakeCliIO();
  const code = await runCli(['completion', shell], io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

/** What bash's completion function offers for the words of a command line (the last one being completed). */
async function complete(script: string, dir: string, words: string[]): Promise<string[]> {
  const file = join(dir, 'deflow.bash');
  await writeFile(file, script);
  const program = `source ${JSON.stringify(file)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _deflow; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await promisify(execFile)('bash', ['-c', program], { cwd: dir });
  return stdout.split('\n').filter((line) => line !== '');
}

describe('deflow completion', () => {
  it('prints a bash script that parses (bash -n) and completes commands, flags and flag values', async () => {
    const { code, stdout } = await completion('bash');
    expect(code).toBe(0);
    const dir = await useWorkspace({ 'workflow.yaml': 'version: 1\n' });
    await writeFile(join(dir, 'check.bash'), stdout);
    await promisify(execFile)('bash', ['-n', join(dir, 'check.bash')]);
    for (const command of ['validate', 'quote', 'run', 'status', 'report', 'init', 'completion', 'emulator', 'worker']) expect(stdout).toContain(command);
    expect(await complete(stdout, dir, ['deflow', 'r'])).toEqual(['run', 'report']);
    expect(await complete(stdout, dir, ['deflow', 'run', '--max'])).toEqual(['--max-cost']);
    expect(await complete(stdout, dir, ['deflow', 'run', '--ht'])).toEqual(['--html']);
    expect(await complete(stdout, dir, ['deflow', 'report', '--'])).toEqual(expect.arrayContaining(['--html', '--state-dir', '--help']));
    expect(await complete(stdout, dir, ['deflow', 'emulator', '--tier', ''])).toEqual(['basic', 'premium']);
    expect(await complete(stdout, dir, ['deflow', 'completion', 'z'])).toEqual(['zsh']);
    expect(await complete(stdout, dir, ['deflow', 'validate', 'work'])).toEqual(['workflow.yaml']);
    // A hidden option is not offered.
    expect(await complete(stdout, dir, ['deflow', 'run', '--api-k'])).toEqual(['--api-key-file']);
  });

  it('prints zsh and fish scripts naming every command and its options', async () => {
    const zsh = await completion('zsh');
    expect(zsh.code).toBe(0);
    expect(zsh.stdout.startsWith('#compdef deflow\n')).toBe(true);
    expect(zsh.stdout).toContain("'run:run a workflow");
    expect(zsh.stdout).toMatch(/run\) _arguments .*'--max-cost\[/);
    const fish = await completion('fish');
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain("complete -c deflow -n '__fish_seen_subcommand_from run' -l max-cost -r -F");
    expect(fish.stdout).toContain("complete -c deflow -n '__fish_seen_subcommand_from emulator' -l tier -r -f -a 'basic premium'");
  });

  it('refuses an unknown shell (exit 2)', async () => {
    const { code, stderr } = await completion('tcsh');
    expect(code).toBe(2);
    expect(stderr).toContain('completion: unknown shell "tcsh"; expected one of bash, zsh, fish');
  });
});
