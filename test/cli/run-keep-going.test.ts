import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';
import { expectValid } from '../contract/schemas.js';
import { transcribeThenSpeak } from '../fixtures/workflows.js';

const CHAIN = (...defaults: string[]) =>
  transcribeThenSpeak('nightly', { head: defaults });

const clips = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`clips/c${i}.mp3`, makeMp3(3 + i)]));
const emulatorConfig = (...extra: string[]) => yaml('time_scale: 200', 'jobs: { duration_ms: 2000 }', ...extra);

async function run(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; io: FakeCliIO }> {
  const io: FakeCliIO = { ...createFakeCliIO(dir), env };
  return { code: await runCli(args, io), io };
}

describe('deflow run --keep-going', () => {
  it('without it, a corrupt file refuses the run: exit 2, nothing sent', async () => {
    const emulator = await useEmulator({ config: { balance: 100 } });
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN(), ...clips(2), 'clips/broken.mp3': 'no audio here' });
    const env = { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api };
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--offline'], env);
    expect(code).toBe(2);
    expect(io.stderrText()).toContain('clips/broken.mp3: expected aac');
    expect(emulator.stats()).toMatchObject({ submissions: 0 });
  });

  it('leaves the bad item out, runs the rest, names it in the output, report and JUnit, and exits 6 (done, an input left out)', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN(), 'emulator.yaml': emulatorConfig(), ...clips(2), 'clips/broken.mp3': 'no audio here' });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--keep-going', '--report', 'run.json', '--junit', 'junit.xml']);
    expect(code).toBe(6);
    expect(io.stderrText()).toMatch(/keep going: 1 item\(s\) left out.*\n {2}workflow\.yaml:\d+:\d+: steps\.transcribe\.with\.source_file: clips\/broken\.mp3: expected aac/);
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
    expectValid('report', report, 'run.json');
    expect(report).toMatchObject({ status: 'left-out', exit_code: 6, totals: { items: 6, done: 4, skipped: 2, invalid: 1, blocked: 1 } });
    const left = report.steps[0].items.find((i: { key: string }) => i.key === 'clips/broken.mp3');
    expect(left).toMatchObject({ status: 'skipped', skip_kind: 'invalid' });
    expect(left.skip_reason).toContain('clips/broken.mp3: expected aac');
    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('name="transcribe[0] clips/broken.mp3"');
    expect(junit.match(/<failure type="E_ITEM_INVALID"/g)).toHaveLength(1);
    expect(junit.match(/<failure type="E_ITEM_BLOCKED"/g)).toHaveLength(1);
  });

  it('defaults.keep_going: true in the workflow does the same', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN('defaults: { keep_going: true }'), 'emulator.yaml': emulatorConfig(), ...clips(1), 'clips/broken.mp3': '' });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--quiet']);
    expect(code).toBe(6);
    expect(io.stderrText()).toContain('clips/broken.mp3: expected aac');
  });

  it('a daily limit on speech defers its items and says when to resume (exit 5); transcription goes on', async () => {
    const daily = yaml('rate_limits:', '  endpoints:', "    'audio/speech': { rpm: 60, rpd: 1 }");
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN(), 'emulator.yaml': emulatorConfig(daily), ...clips(3) });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--report', 'run.json', '--json']);
    expect(code).toBe(5);
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
    expectValid('report', report, 'run.json');
    const events = io.stdoutText().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    events.forEach((event, i) => expectValid('events', event, `line ${i + 1}`));
    expect(events.filter((e) => e['type'] === 'item-deferred')).toHaveLength(2);
    expect(report).toMatchObject({ status: 'daily-limit', exit_code: 5, totals: { done: 4, deferred: 2 } });
    expect(report.deferred).toEqual([{ pool: 'audio/speech', reset_at: expect.stringMatching(/^\d{4}-/), items: 2 }]);
    expect(report.steps[1].items.filter((i: { status: string }) => i.status === 'deferred')).toHaveLength(2);
    expect(io.stderrText()).toMatch(/daily limit of audio\/speech used up: 2 item\(s\) deferred until \S+ \(in \d+ h( \d+ min)? virtual\); the other pools went on/);
  });
});

describe('inputs left out are left out everywhere (issue 27, point 2)', () => {
  const env = (emulator: Awaited<ReturnType<typeof useEmulator>>) => ({ DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api });

  it('run --keep-going --max-cost: the corrupt file is neither quoted nor counted as unpriced; the rest runs and exits 6', async () => {
    const emulator = await useEmulator({ config: { balance: 100, jobs: { duration_ms: 50, scale_by_input: false } } });
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN(), ...clips(2), 'clips/broken.mp3': 'no audio here' });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--keep-going', '--max-cost', '1', '--dry-run', '--json'], env(emulator));
    expect(code).toBe(0);
    const { quote } = JSON.parse(io.stdoutText()) as { quote: { to_pay: { unknown_items: number }; steps: { quoted_items: { key: string }[] }[] } };
    expect(quote.to_pay.unknown_items).toBe(0);
    expect(quote.steps.flatMap((s) => s.quoted_items.map((i) => i.key))).not.toContain('clips/broken.mp3');
    expect(quote.steps.map((s) => s.quoted_items.length)).toEqual([2, 2]);

    const ran = await run(dir, ['run', 'workflow.yaml', '--keep-going', '--max-cost', '1', '--quiet'], env(emulator));
    expect(ran.io.stderrText()).not.toMatch(/have no price|refused to start/);
    expect(ran.code).toBe(6);
    // Nothing about the broken file reached the service: every answer was a success.
    expect(Object.keys(emulator.stats().by_status)).toEqual(['200']);
  });

  it('quote and validate accept --keep-going and honour defaults.keep_going, listing what is left out (annotations in CI)', async () => {
    const emulator = await useEmulator({ config: { balance: 100 } });
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN(), 'defaults.yaml': CHAIN('defaults: { keep_going: true }'), ...clips(2), 'clips/broken.mp3': 'no audio here' });
    const strict = await run(dir, ['quote', 'workflow.yaml'], env(emulator));
    expect(strict.code).toBe(2);

    const quoted = await run(dir, ['quote', 'workflow.yaml', '--keep-going', '--format', 'json'], env(emulator));
    expect(quoted.code).toBe(0);
    expect(quoted.io.stderrText()).toMatch(/keep going: 1 item\(s\) left out.*\n {2}workflow\.yaml:\d+:\d+: steps\.transcribe\.with\.source_file: clips\/broken\.mp3: expected aac/);
    const quote = JSON.parse(quoted.io.stdoutText()) as { to_pay: { unknown_items: number }; steps: { items: number }[] };
    expect(quote.to_pay.unknown_items).toBe(0);
    expect(quote.steps.map((s) => s.items)).toEqual([2, 2]);
    expect((await run(dir, ['quote', 'defaults.yaml'], env(emulator))).code).toBe(0);

    const validated = await run(dir, ['validate', 'defaults.yaml', '--offline', '--json'], { GITHUB_ACTIONS: 'true' });
    expect(validated.code).toBe(0);
    const json = JSON.parse(validated.io.stdoutText()) as { ok: boolean; left_out: { path: string; message: string }[] };
    expectValid('validate', json, 'validate --json');
    expect(json.ok).toBe(true);
    expect(json.left_out).toHaveLength(1);
    expect(json.left_out[0]?.message).toContain('clips/broken.mp3: expected aac');
    expect(validated.io.stderrText()).toMatch(/^::warning file=defaults\.yaml,line=\d+,col=\d+,title=E_\w+::steps\.transcribe\.with\.source_file: clips\/broken\.mp3/m);
    expect((await run(dir, ['validate', 'workflow.yaml', '--offline'])).code).toBe(2);
    const kept = await run(dir, ['validate', 'workflow.yaml', '--offline', '--keep-going']);
    expect(kept.code).toBe(0);
    expect(kept.io.stderrText()).toContain('keep going: 1 item(s) left out');
  });
});
