/**
 * Noticing the jobs whose end opens a downstream pool's window (src/engine/run/poll/notice-urgency.ts).
 *
 * The benchmark's scaled pipeline (bench/_pipeline-scaled.ts): 60 clips of 20-120 s transcribed
 * then spoken, jobs whose duration grows with their input, 20 submissions a minute per pool and
 * the job-status pool limited to 60 a minute, on a discrete-event clock (virtual time stands
 * still while anything is in progress: the figures are the poller's alone). Speech needs three
 * windows for its 60 items, so its first request sets when its last window opens: the first
 * transcript to finish must be seen at once, not at the one poll planned for when most jobs
 * of its size are done (before: 20-25 s after it ended).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import type { GovernorBucketView } from '../../../src/client/index.js';
import { noticeMatters, statusHasRoom } from '../../../src/engine/run/poll/notice-urgency.js';
import { GatedGovernor } from '../../../src/engine/run/submit-gate.js';
import { createEventClock } from '../../helpers/event-clock.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { graphOf, runIn, useWorkspace } from '../run-helpers.js';
import { prepareWorkspace } from '../../../bench/_pipeline-clients.js';
import { scaledEmulatorConfig } from '../../../bench/_pipeline-scaled.js';

describe('noticing the jobs whose end opens a downstream window', () => {
  it('a limited status pool: the first transcript to finish is seen within 1.5 s and speech opens its first window then, for at most 2 status requests a job', async () => {
    const dir = await useWorkspace({});
    await prepareWorkspace(dir, 60, true);
    const clock = createEventClock();
    onTestFinished(() => clock.close());
    const emulator = await useEmulator({ clock, config: scaledEmulatorConfig({ statusRpm: 60, seed: 1 }) });
    const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock, dispatcher: clock.dispatcher, governor: new GatedGovernor({ clock }) });
    onTestFinished(() => client.close());
    const run = await runIn(dir, emulator, { client, clock, file: 'pipeline.yaml' });
    expect(run.outcome.counts).toMatchObject({ done: 120, failed: 0 });
    const jobs = emulator.jobs();
    const firstEnd = Math.min(...jobs.filter((j) => j.task === 'audio.transcribe').map((j) => Date.parse(j.finished_at!)));
    const firstSpeech = Math.min(...jobs.filter((j) => j.task === 'audio.speech').map((j) => Date.parse(j.created_at)));
    expect(firstSpeech - firstEnd).toBeGreaterThanOrEqual(0);
    expect(firstSpeech - firstEnd).toBeLessThanOrEqual(1500);
    const stats = emulator.stats();
    expect(stats.polls / 120).toBeLessThanOrEqual(2);
    expect(stats.by_status['429'] ?? 0).toBe(0);
  });

  describe('which steps qualify (the governor\'s view of each pool)', () => {
    const known = (bucket: string, limit: number, room: number, waiting = 0): GovernorBucketView => ({ bucket, state: 'known', limit, windowSeconds: 60, room, waiting });
    const graph = async (items: number) => {
      const dir = await useWorkspace({});
      await prepareWorkspace(dir, items, false);
      const g = await graphOf(dir, 'pipeline.yaml');
      return { g, transcribe: g.steps.find((s) => s.id === 'transcribe')!, speak: g.steps.find((s) => s.id === 'speak')! };
    };

    it('speech not used yet: yes while transcription needs several windows (60 items, 20 a window), no when one window holds them all (300)', async () => {
      const { g, transcribe } = await graph(60);
      expect(noticeMatters(g, transcribe, [known('audio/transcriptions', 20, 0)])).toBe(true);
      expect(noticeMatters(g, transcribe, [known('audio/transcriptions', 300, 240)])).toBe(false);
      expect(noticeMatters(g, transcribe, [])).toBe(false);
    });

    it('speech limited below its items: yes with room and nothing queued; no when its window is full or requests wait; no when unthrottled or one window holds them', async () => {
      const { g, transcribe } = await graph(60);
      const tr = known('audio/transcriptions', 20, 0);
      expect(noticeMatters(g, transcribe, [tr, known('audio/speech', 20, 5)])).toBe(true);
      expect(noticeMatters(g, transcribe, [tr, known('audio/speech#model:Kokoro', 20, 5)])).toBe(true);
      expect(noticeMatters(g, transcribe, [tr, known('audio/speech', 20, 0)])).toBe(false);
      expect(noticeMatters(g, transcribe, [tr, known('audio/speech', 20, 5, 1)])).toBe(false);
      expect(noticeMatters(g, transcribe, [tr, { bucket: 'audio/speech', state: 'unthrottled', limit: 0, windowSeconds: 60 }])).toBe(false);
      expect(noticeMatters(g, transcribe, [tr, known('audio/speech', 60, 60)])).toBe(false);
    });

    it('a step nothing reads: no', async () => {
      const { g, speak } = await graph(60);
      expect(noticeMatters(g, speak, [known('audio/speech', 20, 20)])).toBe(false);
    });

    it('the status pool has room when it would admit a request now with none queued', () => {
      expect(statusHasRoom([known('jobs_status', 60, 1)])).toBe(true);
      expect(statusHasRoom([known('jobs_status', 60, 0)])).toBe(false);
      expect(statusHasRoom([known('jobs_status', 60, 10, 2)])).toBe(false);
      expect(statusHasRoom([])).toBe(false);
    });
  });
});
