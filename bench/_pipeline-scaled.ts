/**
 * The scaled cells of the pipeline benchmark (`npm run bench -- pipeline --scaled`): jobs whose
 * duration grows with their input (`scale_by_input: true`: a transcription lasts 30 s per minute
 * of audio, a speech 10 s per 500 characters, ± 30 %), clips of 20-120 s, 20 submissions a
 * minute per submission pool, the status pool at 60 a minute or unthrottled; deflow against the
 * fair client at p-limit 32, each `--repeat` times (3) against a fresh emulator and a fresh state
 * folder, medians reported.
 *
 * Two clocks (`--clock`):
 * - `event` (the default): the emulator and the client in this process on a discrete-event clock
 *   (bench/_event-clock.ts): virtual time stands still while a request is out or a file is being
 *   read, so the figures are the schedulers' and pollers' alone, whatever the machine's load.
 *   Run r of every client uses the emulator's seed r (the same jitter draws); peak RSS and CPU
 *   are then the process's, emulator included.
 * - `scaled`: the client in a child process on a wall clock scaled by `--time-scale` (20), as
 *   the fixed cells run: every real millisecond of either client's CPU counts `time-scale`
 *   virtual ones, so machine load inflates × bound for both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmulatorConfigInput } from '../src/emulator/config/config.js';
import { startEmulator } from '../src/emulator/start-emulator.js';
import { printTable, readNumberArg } from './_bench-util.js';
import { ownUsage } from './_child-process.js';
import { createEventClock } from './_event-clock.js';
import { type ClientRun, prepareWorkspace, runDeflow, runFair } from './_pipeline-clients.js';
import { figures, medianFigures, type PipelineFigures, type PoolRates } from './_pipeline-figures.js';

export type ClientName = 'deflow' | 'fair8' | 'fair32';

/**
 * The scaled cells' clients: also `deflow-night2`, deflow's second night (discrete-event clock
 * only): its state folder first ran last night's clips (other media of about the same lengths,
 * against their own emulator), so tonight's run starts from last night's `poll-rates.json`.
 */
export type ScaledClientName = ClientName | 'deflow-night2';

/** Last night's clips are this much longer each: other files of about the same lengths. */
const LAST_NIGHT_EXTRA_S = 0.5;

/** One scaled cell: status requests a minute, or null (unthrottled). */
export interface ScaledCell {
  readonly statusRpm: number | null;
  /** The emulator's seed (its jitter draws). */
  readonly seed?: number;
}

const SCALED_RPM = 20;
const SCALED_D1_MS = 30_000;
const SCALED_D2_MS = 10_000;

/** The emulator of a scaled cell (no time scale: the caller's clock sets it). */
export function scaledEmulatorConfig(cell: ScaledCell): EmulatorConfigInput {
  return {
    rate_limits: {
      endpoints: { 'audio/transcriptions': { rpm: SCALED_RPM, rpd: null }, 'audio/speech': { rpm: SCALED_RPM, rpd: null } },
      jobs_status: cell.statusRpm === null ? null : { rpm: cell.statusRpm },
    },
    balance: 1_000_000,
    jobs: { durations: { 'audio/transcriptions': SCALED_D1_MS, 'audio/speech': SCALED_D2_MS }, jitter: 0.3, scale_by_input: true },
    ...(cell.seed === undefined ? {} : { seed: cell.seed }),
  };
}

export function scaledRates(cell: ScaledCell): PoolRates {
  return { transcribe: SCALED_RPM, speak: SCALED_RPM, status: cell.statusRpm ?? Number.POSITIVE_INFINITY, transcribePerDay: null };
}

/** Runs `work` against an emulator of `cell` on a fresh discrete-event clock, then closes both. */
async function onEventClock<T>(cell: ScaledCell, work: (run: ClientRun, url: string) => Promise<T>): Promise<T> {
  const clock = createEventClock();
  const emulator = await startEmulator({ clock, config: scaledEmulatorConfig(cell) });
  try {
    return await work({ url: emulator.url, apiKey: emulator.keys.api, dir: '', clock, dispatcher: clock.dispatcher, deadline: null, webhooks: false }, emulator.url);
  } finally {
    await emulator.close();
    await clock.close();
  }
}

/** deflow's run of last night's clips (`lastNight`) into a fresh state folder, which it returns. */
async function lastNight(lastNightDir: string, cell: ScaledCell): Promise<string> {
  const stateDir = await mkdtemp(join(tmpdir(), 'deflow-bench-state-'));
  await onEventClock({ ...cell, seed: (cell.seed ?? 0) + 100 }, (run) => runDeflow({ ...run, dir: lastNightDir, stateDir }));
  return stateDir;
}

/** One run of `client` on the discrete-event clock, emulator in this process. */
async function runOnEventClock(client: ScaledClientName, n: number, dir: string, cell: ScaledCell): Promise<PipelineFigures> {
  const stateDir = client === 'deflow-night2' ? await lastNight(join(dir, 'last-night'), cell) : undefined;
  try {
    return await onEventClock(cell, async (base, url) => {
      const run = { ...base, dir, ...(stateDir === undefined ? {} : { stateDir }) };
      const before = ownUsage();
      const report = client === 'deflow' || client === 'deflow-night2' ? await runDeflow(run) : await runFair(run, client === 'fair8' ? 8 : 32);
      const after = ownUsage();
      return figures(url, n, { ...report, peak_rss_mb: after.peak_rss_mb, cpu_ms: after.cpu_ms - before.cpu_ms }, scaledRates(cell));
    });
  } finally {
    if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true });
  }
}

const list = (args: readonly string[], name: string, fallback: string): string[] => {
  const i = args.indexOf(`--${name}`);
  return (i >= 0 ? (args[i + 1] ?? '') : fallback).split(',').filter((s) => s !== '');
};

/** Runs one client of a scaled cell in a child process on the scaled wall clock. */
export type ScaledWallClockRun = (client: ClientName, n: number, dir: string, cell: ScaledCell, timeScale: number) => Promise<PipelineFigures>;

/** The scaled cells; `onWallClock` runs a client with `--clock scaled`. */
export async function runScaled(args: string[], onWallClock: ScaledWallClockRun): Promise<Record<string, unknown>> {
  const clockMode = list(args, 'clock', 'event')[0];
  if (clockMode !== 'event' && clockMode !== 'scaled') throw new Error(`--clock: expected event or scaled, got ${clockMode}`);
  const timeScale = clockMode === 'event' ? null : readNumberArg(args, 'time-scale', 20);
  const repeat = readNumberArg(args, 'repeat', 3);
  const sizes = list(args, 'n', '60,200').map(Number);
  const statuses = list(args, 'status', '60,none').map((s) => (s === 'none' ? null : Number(s)));
  const clients = list(args, 'clients', 'deflow,deflow-night2,fair32').filter((c): c is ScaledClientName => c === 'deflow' || c === 'deflow-night2' || c === 'fair8' || c === 'fair32');
  const night2 = clients.includes('deflow-night2');
  if (night2 && timeScale !== null) throw new Error('--clients deflow-night2: only on the discrete-event clock (--clock event)');
  const rows: (string | number)[][] = [];
  const cells: Record<string, unknown>[] = [];
  for (const n of sizes) {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-pipeline-'));
    try {
      await prepareWorkspace(dir, n, true);
      if (night2) await prepareWorkspace(join(dir, 'last-night'), n, true, LAST_NIGHT_EXTRA_S);
      for (const statusRpm of statuses) {
        const cell: Record<string, unknown> = { n, status_rpm: statusRpm, clock: clockMode, ...(timeScale === null ? {} : { time_scale: timeScale }), runs: repeat };
        for (const client of clients) {
          const runs: PipelineFigures[] = [];
          for (let r = 0; r < repeat; r++) {
            runs.push(timeScale === null ? await runOnEventClock(client, n, dir, { statusRpm, seed: r + 1 }) : await onWallClock(client as ClientName, n, dir, { statusRpm }, timeScale));
          }
          const f = medianFigures(runs);
          cell[client] = { ...f, each_vs_bound: runs.map((x) => x.vs_bound) };
          const status = statusRpm === null ? 'none' : `${statusRpm}/min`;
          rows.push([n, status, client, f.makespan_s, f.lower_bound_s, f.vs_bound, f.vs_tight_bound ?? '', f.http_429, f.status_per_job, `${f.notice_p50_s ?? ''} / ${f.notice_p90_s ?? ''}`, `${f.hand_off_p50_s ?? ''} / ${f.hand_off_p90_s ?? ''}`, `${f.transcribe_pool?.idle_s ?? ''} / ${f.speak_pool?.idle_s ?? ''}`]);
          process.stdout.write(`  scaled n=${n} status ${status} ${client}: ${f.vs_bound} × bound (${runs.map((x) => x.vs_bound).join(', ')}), ${f.vs_tight_bound} × tight bound, ${f.http_429} 429s, ${f.status_per_job} status/job, noticed ${f.notice_p50_s} s / ${f.notice_p90_s} s\n`);
        }
        const deflow = cell['deflow'] as PipelineFigures | undefined;
        const fair = cell['fair32'] as PipelineFigures | undefined;
        if (deflow && fair) cell['shorter_than_fair_pct'] = Math.round((1 - deflow.makespan_s / fair.makespan_s) * 1000) / 10;
        cells.push(cell);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(
    `pipeline --scaled (${clockMode === 'event' ? 'discrete-event clock' : `wall clock × ${timeScale}`}): clips of 20-120 s, transcribe ${SCALED_D1_MS / 1000} s per minute of audio → speak ${SCALED_D2_MS / 1000} s per 500 characters (± 30 %), ${SCALED_RPM} a minute per submission pool; medians of ${repeat}\n`,
  );
  printTable(['n', 'status pool', 'client', 'makespan s', 'bound s', 'x bound', 'x tight', '429s', 'status/job', 'notice p50/p90 s', 'hand-off p50/p90 s', 'idle s tr/sp'], rows);
  return { scaled: true, clock: clockMode, d1_s_per_minute: SCALED_D1_MS / 1000, d2_s_per_500_chars: SCALED_D2_MS / 1000, jitter: 0.3, submission_rpm: SCALED_RPM, cells };
}
