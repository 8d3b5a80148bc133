/**
 * Submission order of a fan-out over clips of different lengths: the longest clip first (the
 * longest-processing-time rule), read from each clip's header before the first submission.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { GatedGovernor } from '../../../src/engine/run/submit-gate.js';
import { createEventClock } from '../../helpers/event-clock.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { runIn, useWorkspace, yaml } from '../run-helpers.js';

const WORKFLOW = yaml(
  'version: 1',
  'name: clips',
  'steps:',
  '  transcribe:',
  '    task: audio.transcribe',
  '    for_each: { glob: "clips/*.mp3" }',
  '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false, return_result_in_response: true }',
);

/** Indexes of the clips in the order they were submitted. */
async function submittedOrder(lengths: readonly number[]): Promise<number[]> {
  const files: Record<string, string | Buffer> = { 'workflow.yaml': WORKFLOW };
  lengths.forEach((seconds, i) => {
    files[`clips/c${i}.mp3`] = makeMp3(seconds);
  });
  const dir = await useWorkspace(files);
  const clock = createEventClock();
  onTestFinished(() => clock.close());
  // Two transcriptions a minute: the order decides which clips share a window.
  const emulator = await useEmulator({ clock, config: { balance: 1000, rate_limits: { endpoints: { 'audio/transcriptions': { rpm: 2, rpd: null } } }, jobs: { durations: { 'audio/transcriptions': 20_000 }, jitter: 0, scale_by_input: true } } });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, governor: new GatedGovernor({ clock }) });
  onTestFinished(() => client.close());
  const run = await runIn(dir, emulator, { client, clock });
  expect(run.outcome.counts).toMatchObject({ done: lengths.length, failed: 0 });
  return run.of('item-submitted').sort((a, b) => a.ts - b.ts).map((e) => e.node.index);
}

describe('longest input first', () => {
  it('submits the clips of a fan-out longest first when their lengths differ', async () => {
    const lengths = [30, 120, 20, 90, 60, 45];
    const order = await submittedOrder(lengths);
    expect(order.map((k) => lengths[k])).toEqual([120, 90, 60, 45, 30, 20]);
  });

  it('keeps file order when the clips are all of one length', async () => {
    expect(await submittedOrder([40, 40, 40, 40, 40])).toEqual([0, 1, 2, 3, 4]);
  });
});
