import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { useWorkspace, yaml } from '../engine/run-helpers.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';
import { expectValid } from '../contract/schemas.js';

const CHAIN = (...defaults: string[]) =>
  yaml(
    'version: 1',
    'name: nightly',
    ...defaults,
    'steps:',
    '  transcribe:',
    '    task: audio.transcribe',
    '    for_each: { glob: "clips/*.mp3" }',
    '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
    '    save: "${{ item.stem }}.txt"',
    '  speak:',
    '    task: audio.speech',
    '    for_each: transcribe',
    '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
    '    save: "${{ item.stem }}.mp3"',
  );

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

  it('leaves the bad item out, runs the rest, names it in the output, report and JUnit, and exits 1', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN(), 'emulator.yaml': emulatorConfig(), ...clips(2), 'clips/broken.mp3': 'no audio here' });
    const { code, io } = await run(dir, ['run', 'workflow.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--keep-going', '--report', 'run.json', '--junit', 'junit.xml']);
    expect(code).toBe(1);
    expect(io.stderrText()).toMatch(/keep going: 1 item\(s\) left out.*\n {2}workflow\.yaml:\d+:\d+: steps\.transcribe\.with\.source_file: clips\/broken\.mp3: expected aac/);
    const report = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
    expectValid('report', report, 'run.json');
    expect(report).toMatchObject({ status: 'failed', exit_code: 1, totals: { items: 6, done: 4, skipped: 2, invalid: 1, blocked: 1 } });
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
    expect(code).toBe(1);
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
