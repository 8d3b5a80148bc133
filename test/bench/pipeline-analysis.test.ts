/**
 * The pipeline benchmark's analysis of where time went (bench/_pipeline-analysis.ts): a pool's
 * windows rebuilt as the emulator opens them (at the whole second of a window's first request,
 * 60 s long, the next request after the end opening the next), and the hand-off delay.
 */
import { describe, expect, it } from 'vitest';
import { type EmulatorJob, handOff, poolWindows } from '../../bench/_pipeline-analysis.js';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();
const job = (id: string, task: string, created: number, finished: number | null = null): EmulatorJob => ({
  request_id: id,
  task,
  status: 'done',
  created_at: at(created),
  finished_at: finished === null ? null : at(finished),
});

describe('pipeline analysis', () => {
  it('counts the seconds between a full window and a next one opened later, and the slots a window left unsent', () => {
    // Window 1 opens at 0.4 s (its whole second: 0) with 20 requests; window 2 at 65.7 s (65)
    // with 3; window 3 at 130 s: 5 s idle before window 2, 5 s before window 3.
    const jobs = [
      ...Array.from({ length: 20 }, (_, i) => job(`a${i}`, 'audio.speech', 0.4 + i)),
      ...[65.7, 66, 70].map((s, i) => job(`b${i}`, 'audio.speech', s)),
      job('c0', 'audio.speech', 130.2),
      job('t0', 'audio.transcribe', 0),
    ];
    expect(poolWindows(jobs, 'audio.speech', 20, T0)).toEqual({ windows: 3, idle_s: 10, spare_slots: 17, first_s: 0 });
    expect(poolWindows(jobs, 'audio.image', 20, T0)).toBeUndefined();
  });

  it('measures the hand-off from a transcription\'s end to its speech\'s acceptance (median and 90th percentile)', () => {
    const jobs: EmulatorJob[] = [];
    const chains: [string, string][] = [];
    // Delays 1, 2, … 10 s.
    for (let i = 1; i <= 10; i++) {
      jobs.push(job(`t${i}`, 'audio.transcribe', 0, 20), job(`s${i}`, 'audio.speech', 20 + i, 30 + i));
      chains.push([`t${i}`, `s${i}`]);
    }
    expect(handOff(jobs, chains)).toEqual({ hand_off_p50_s: 6, hand_off_p90_s: 10 });
  });
});
