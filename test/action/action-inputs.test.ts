/**
 * The action's entry (action/run.mjs) turning its inputs into deflow's arguments, run as the
 * runner runs a JavaScript action (INPUT_* with hyphens kept, GITHUB_OUTPUT, GITHUB_PATH,
 * RUNNER_TEMP) with a stand-in CLI that records its arguments and exits with a chosen code.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const script = new URL('../../action/run.mjs', import.meta.url).pathname;

/** A CLI that appends its arguments (JSON) to calls.jsonl and exits with $FAKE_EXIT. */
const FAKE_CLI = `import { appendFileSync } from 'node:fs';
appendFileSync(process.env.FAKE_CALLS, JSON.stringify(process.argv.slice(2)) + '\\n');
if (process.env.FAKE_ENV) appendFileSync(process.env.FAKE_ENV, JSON.stringify({ deadline: process.env.DEFLOW_DRAIN_DEADLINE ?? null }) + '\\n');
process.exit(Number(process.env.FAKE_EXIT ?? 0));
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-action-inputs-'));
  await writeFile(join(dir, 'fake-cli.mjs'), FAKE_CLI);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function action(inputs: Record<string, string>, exit = 0): Promise<{ code: number; stdout: string; calls: string[][]; outputs: string; path: string }> {
  for (const file of ['calls.jsonl', 'output.txt', 'path.txt', 'env.jsonl']) await writeFile(join(dir, file), '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: join(dir, 'output.txt'),
    GITHUB_PATH: join(dir, 'path.txt'),
    GITHUB_WORKSPACE: dir,
    RUNNER_TEMP: join(dir, 'temp'),
    DEFLOW_CLI: join(dir, 'fake-cli.mjs'),
    FAKE_CALLS: join(dir, 'calls.jsonl'),
    FAKE_EXIT: String(exit),
    FAKE_ENV: join(dir, 'env.jsonl'),
  };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase()}`] = value;
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(process.execPath, [script], { cwd: dir, env }, (error, out) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out })),
  );
  const calls = (await readFile(join(dir, 'calls.jsonl'), 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as string[]);
  return { code, stdout, calls, outputs: await readFile(join(dir, 'output.txt'), 'utf8'), path: await readFile(join(dir, 'path.txt'), 'utf8') };
}

/** DEFLOW_DRAIN_DEADLINE as each call of the CLI saw it. */
async function deadlines(): Promise<(string | null)[]> {
  return (await readFile(join(dir, 'env.jsonl'), 'utf8')).split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { deadline: string | null }).deadline);
}

describe("the action's inputs", () => {
  it('timeout-minutes gives deflow the step\'s deadline (DEFLOW_DRAIN_DEADLINE: the step\'s start plus the minutes); webhook-url and webhook-listen become flags', async () => {
    const before = Date.now();
    const result = await action({ workflow: 'w.yaml', 'timeout-minutes': '25', 'webhook-url': 'https://hooks.example.com/deflow', 'webhook-listen': '127.0.0.1:8787' });
    const after = Date.now();
    expect(result.code, result.stdout).toBe(0);
    const args = result.calls[0]!;
    expect(args.slice(args.indexOf('--webhook-url'), args.indexOf('--webhook-url') + 4)).toEqual(['--webhook-url', 'https://hooks.example.com/deflow', '--webhook-listen', '127.0.0.1:8787']);
    const [deadline] = await deadlines();
    const at = Date.parse(deadline!);
    expect(at).toBeGreaterThanOrEqual(before + 25 * 60_000 - 1000);
    expect(at).toBeLessThanOrEqual(after + 25 * 60_000);
    const none = await action({ workflow: 'w.yaml' });
    expect(none.code).toBe(0);
    expect(await deadlines()).toEqual([null]);
  });

  it('refuses a timeout-minutes that is not a number > 0, and webhook-url without webhook-listen', async () => {
    const bad = await action({ workflow: 'w.yaml', 'timeout-minutes': 'soon' });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('timeout-minutes: expected the step\'s timeout-minutes, a number > 0, got "soon"');
    const half = await action({ workflow: 'w.yaml', 'webhook-url': 'https://hooks.example.com/deflow' });
    expect(half.code).toBe(2);
    expect(half.stdout).toContain('webhook-url: expected webhook-listen as well');
    expect(half.calls).toEqual([]);
  });

  it('run: max-cost, emulator, inputs, keep-going and state-dir become flags; progress is not silenced', async () => {
    const result = await action({ workflow: 'w.yaml', command: 'run', 'max-cost': '2.5', emulator: 'true', inputs: 'a=1\nb=2', 'keep-going': 'true', 'state-dir': 'state' });
    expect(result.code, result.stdout).toBe(0);
    const [args] = result.calls;
    expect(args?.slice(0, 13)).toEqual(['run', 'w.yaml', '--emulator', '--input', 'a=1', '--input', 'b=2', '--keep-going', '--state-dir', 'state', '--max-cost', '2.5', '--report']);
    expect(args).not.toContain('--quiet');
  });

  it('quote: compare-to becomes --compare-to; validate takes inputs and keep-going', async () => {
    const quote = await action({ workflow: 'w.yaml', command: 'quote', 'compare-to': 'base.json' });
    expect(quote.calls[0]).toContain('--compare-to');
    expect(quote.calls[0]?.[quote.calls[0].indexOf('--compare-to') + 1]).toBe('base.json');
    const validate = await action({ workflow: 'w.yaml', command: 'validate', 'keep-going': 'true', inputs: 'a=1' });
    expect(validate.calls[0]).toEqual(['validate', 'w.yaml', '--input', 'a=1', '--keep-going', '--json']);
  });

  it('compare-to with run, or a keep-going that is not true/false: an error annotation, exit 2, nothing run', async () => {
    const compare = await action({ workflow: 'w.yaml', command: 'run', 'compare-to': 'base.json' });
    expect(compare.code).toBe(2);
    expect(compare.stdout).toContain('::error title=deflow::compare-to: only with command: quote');
    const keep = await action({ workflow: 'w.yaml', 'keep-going': 'yes' });
    expect(keep.code).toBe(2);
    expect(keep.stdout).toContain('keep-going: expected true or false, got "yes"');
    expect([...compare.calls, ...keep.calls]).toEqual([]);
  });

  it('exit 6 (inputs left out) fails the step unless allow-left-out is true; the exit-code output is 6 either way', async () => {
    const strict = await action({ workflow: 'w.yaml', command: 'run' }, 6);
    expect(strict.code).toBe(6);
    expect(strict.outputs).toContain('exit-code=6');
    const allowed = await action({ workflow: 'w.yaml', command: 'run', 'allow-left-out': 'true' }, 6);
    expect(allowed.code).toBe(0);
    expect(allowed.outputs).toContain('exit-code=6');
    const failed = await action({ workflow: 'w.yaml', command: 'run', 'allow-left-out': 'true' }, 1);
    expect(failed.code).toBe(1);
  });

  it('folds its inputs into a group and closes it before deflow runs (whose steps get groups of their own), and puts deflow on the job PATH for later steps', async () => {
    const result = await action({ workflow: 'w.yaml', command: 'run' });
    expect(result.stdout.match(/^::(group::.+|endgroup::)$/gm)).toEqual(['::group::deflow: inputs', '::endgroup::']);
    expect(result.stdout.indexOf('::endgroup::')).toBeLessThan(result.stdout.indexOf('deflow run w.yaml'));
    expect(result.path.trim()).toBe(join(dir, 'temp', 'deflow-bin'));
    const shim = await readFile(join(dir, 'temp', 'deflow-bin', 'deflow'), 'utf8');
    expect(shim).toBe(`#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(dir, 'fake-cli.mjs'))} "$@"\n`);
  });
});
