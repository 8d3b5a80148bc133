/**
 * Keep-going, partial gathers and daily deferral, over loopback against the emulator: items
 * whose inputs fail the load-time checks are left out (each named), a gather may run over the
 * items that succeeded, and a used-up daily window defers its own pool's items only.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { runWorkflow } from '../../../src/engine/run-workflow.js';
import type { RunEvent } from '../../../src/engine/contracts/events.js';
import { validateWorkflow } from '../../../src/workflow/validate/validate-workflow.js';
import { clientFor, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

const CHAIN = (gather: 'all' | 'partial') =>
  yaml(
    'version: 1',
    'steps:',
    '  transcribe:',
    '    task: audio.transcribe',
    '    for_each: { glob: "clips/*.mp3" }',
    '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
    '  speak:',
    '    task: audio.speech',
    '    for_each: transcribe',
    '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
    '  embed:',
    '    task: text.embed',
    `    gather: ${gather}`,
    '    with: { input: "${{ steps.transcribe.text }}", model: Bge_M3_FP16 }',
    ...(gather === 'partial' ? ['    save: "missing/${{ join(steps.transcribe.missing, \'+\') }}.json"'] : []),
  );

const files = (n: number, extra: Record<string, string | Buffer> = {}) => ({
  ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`clips/c${i}.mp3`, makeMp3(3 + i)])),
  ...extra,
});

async function runKeepGoing(dir: string, emulator: Awaited<ReturnType<typeof useFastEmulator>>, options: { waitDaily?: boolean } = {}) {
  const validation = await validateWorkflow(join(dir, 'workflow.yaml'), { offline: true, keepGoing: true });
  if (!validation.ok || !validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
  const events: RunEvent[] = [];
  const outcome = await runWorkflow({
    graph: validation.graph,
    client: clientFor(emulator),
    stateDir: join(dir, '.deflow'),
    onEvent: (event) => events.push(event),
    excluded: validation.excluded.map((e) => ({ step: e.item!.step, index: e.item!.index, reason: e.message })),
    ...(options.waitDaily ? { waitDaily: true } : {}),
  });
  const of = <T extends RunEvent['type']>(type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
  return { validation, outcome, events, of };
}

describe('keep going past items whose inputs are invalid', () => {
  it('without keep-going a corrupt file refuses the workflow, naming the file', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN('partial'), ...files(2, { 'clips/bad.mp3': 'not audio at all' }) });
    const strict = await validateWorkflow(join(dir, 'workflow.yaml'), { offline: true });
    expect(strict.ok).toBe(false);
    expect(strict.errors).toHaveLength(1);
    expect(strict.errors[0]?.message).toMatch(/workflow\.yaml:6:26: steps\.transcribe\.with\.source_file: clips\/bad\.mp3: expected aac, mp3, .*, got content of an unrecognised format \(item 0\)$/);
    expect(strict.excluded).toEqual([]);
  });

  it('leaves the item out with its reason, runs the rest, skips only its dependents, and exits 6 (done, an input left out)', async () => {
    const emulator = await useFastEmulator();
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN('partial'), ...files(2, { 'clips/bad.mp3': 'not audio at all' }) });
    const { validation, outcome, of } = await runKeepGoing(dir, emulator);
    expect(validation.excluded.map((e) => e.item)).toEqual([{ step: 'transcribe', index: 0 }]);
    expect(outcome.exitCode).toBe(6);
    expect(outcome.status).toBe('left-out');
    expect(outcome.counts).toMatchObject({ done: 5, invalid: 1, skipped: 2, failed: 0 });
    const skipped = of('item-skipped');
    expect(skipped.find((e) => e.node.step === 'transcribe')).toMatchObject({ kind: 'invalid', node: { key: 'clips/bad.mp3' } });
    expect(skipped.find((e) => e.node.step === 'transcribe')?.reason).toContain('clips/bad.mp3: expected aac');
    expect(skipped.find((e) => e.node.step === 'speak')).toMatchObject({ kind: 'upstream', node: { index: 0 } });
    // Nothing was sent for the bad file: two transcriptions, two speeches, one embedding.
    const tasks = emulator.jobs().map((j) => j.task).sort();
    expect(tasks).toEqual(['audio.speech', 'audio.speech', 'audio.transcribe', 'audio.transcribe', 'text.embed']);
  });
});

describe('gathers', () => {
  it('an item that fails at the service as well as an input left out: exit 1, not 6', async () => {
    const emulator = await useFastEmulator({ jobs: { fail_rate: 1 } });
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN('partial'), ...files(1, { 'clips/bad.mp3': 'not audio at all' }) });
    const { outcome } = await runKeepGoing(dir, emulator);
    expect(outcome.counts.invalid).toBe(1);
    expect(outcome.counts.failed).toBeGreaterThan(0);
    expect(outcome).toMatchObject({ status: 'failed', exitCode: 1 });
  });

  it('gather: partial runs over the items that succeeded, and names the others in steps.<id>.missing', async () => {
    const emulator = await useFastEmulator();
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN('partial'), ...files(3, { 'clips/bad.mp3': 'not audio at all' }) });
    const { outcome, of } = await runKeepGoing(dir, emulator);
    const embed = of('item-done').find((e) => e.node.step === 'embed');
    expect(embed?.outputs).toEqual(['out/missing/clips/bad.mp3.json']);
    expect(outcome.counts.done).toBe(3 + 3 + 1);
    const job = emulator.jobs().find((j) => j.task === 'text.embed');
    expect(job).toBeDefined();
  });

  it('gather: all is skipped when an item did not succeed, and says which items blocked it', async () => {
    const emulator = await useFastEmulator();
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN('all'), ...files(2, { 'clips/bad.mp3': 'not audio at all', 'clips/worse.mp3': '' }) });
    const { outcome, of } = await runKeepGoing(dir, emulator);
    const embed = of('item-skipped').find((e) => e.node.step === 'embed');
    expect(embed?.reason).toBe('it gathers every item, and steps.transcribe items 0 (clips/bad.mp3), 3 (clips/worse.mp3) did not succeed (gather: partial would run over the others)');
    // Nothing failed at the service: what did not run did not for want of the inputs left out.
    expect(outcome.exitCode).toBe(6);
    expect(emulator.jobs().some((j) => j.task === 'text.embed')).toBe(false);
  });
});

describe('a daily limit stops one pool, not the run', () => {
  const DAILY_SPEECH = { rate_limits: { endpoints: { 'audio/speech': { rpm: 60, rpd: 2 } } } };

  it('defers the pool\'s items with the reset time, lets the other pools finish, and exits 5', async () => {
    const emulator = await useFastEmulator(DAILY_SPEECH);
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN('partial'), ...files(4) });
    const { outcome, of } = await runKeepGoing(dir, emulator);
    expect(outcome.exitCode).toBe(5);
    expect(outcome.status).toBe('daily-limit');
    const tasks = emulator.jobs().map((j) => j.task);
    expect(tasks.filter((t) => t === 'audio.transcribe')).toHaveLength(4);
    expect(tasks.filter((t) => t === 'audio.speech')).toHaveLength(2);
    expect(tasks.filter((t) => t === 'text.embed')).toHaveLength(1);
    const deferred = of('item-deferred');
    expect(deferred).toHaveLength(2);
    expect(deferred.every((e) => e.pool === 'audio/speech' && e.resetAt !== null && e.resetAt > emulator.clock.now())).toBe(true);
    expect(outcome.deferred).toEqual([{ pool: 'audio/speech', resetAt: deferred[0]!.resetAt, items: 2 }]);
    // The governor read the day's remaining from the headers: nothing was sent into the used-up day.
    expect(emulator.stats().by_status['429'] ?? 0).toBe(0);
  });
});

describe('waits you can see', () => {
  it('a window wait names its pool, its learned rate and how long; run-started says the clock is accelerated', async () => {
    const emulator = await useFastEmulator({ rate_limits: { endpoints: { 'audio/speech': { rpm: 2, rpd: null } } } });
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN('partial'), ...files(4) });
    const { of, outcome } = await runKeepGoing(dir, emulator);
    expect(outcome.exitCode).toBe(0);
    expect(of('run-started')[0]?.timeScale).toBe(200);
    const waits = of('rate-wait').filter((e) => e.pool === 'audio/speech');
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]).toMatchObject({ limit: 2, windowSeconds: 60 });
    expect(waits[0]!.waitMs).toBeGreaterThan(0);
    expect(waits[0]!.waitMs).toBeLessThanOrEqual(60_000);
  });
});
