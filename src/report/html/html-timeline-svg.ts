import { formatDuration, formatRunDuration } from '../format-duration.js';
import type { TimelineJob, TimelineModel, TimelinePool, TimelineStep } from './timeline-model.js';

/*
 * The timeline of the HTML report as inline SVG: a time axis, per step either one lane per
 * job (its phases as coloured spans) or, past LANE_LIMIT jobs, an aggregated lane (how many
 * jobs were in each phase over time, and the share done), then one lane per rate-limit pool
 * with its window waits and 429s. Tooltips are SVG <title>s: no script is needed.
 */

/** Steps with more jobs than this get one aggregated lane instead of a lane per job. */
export const LANE_LIMIT = 300;

const LABEL_W = 190;
const PLOT_W = 900;
const WIDTH = LABEL_W + PLOT_W + 10;
const BUCKETS = 180;
const AGG_H = 64;
const POOL_H = 16;

/** The phases a job goes through, in order, with their CSS class. */
const PHASES = [
  ['queued', 'q'],
  ['submitted', 's'],
  ['processing', 'p'],
  ['downloading', 'd'],
] as const;

interface Scale {
  readonly start: number;
  readonly span: number;
  x(t: number): number;
  /** A span of the run's clock as tooltips give it: real, the emulator's time beside it where it differs. */
  dur(ms: number): string;
}

/** The SVG of the whole timeline. */
export function renderTimelineSvg(model: TimelineModel): string {
  const start = Number.isNaN(model.start) ? 0 : model.start;
  const span = Math.max(1, (Number.isNaN(model.end) ? start : model.end) - start);
  const scale: Scale = { start, span, x: (t) => round(LABEL_W + ((t - start) / span) * PLOT_W), dur: (ms) => formatRunDuration(ms, model.timeScale) };
  const parts: string[] = [];
  // On the emulator's accelerated clock the axis reads real time, the emulator's time on a second row.
  const axisH = model.timeScale === 1 ? 20 : 32;
  let y = axisH + 8;
  parts.push(axis(scale, model.timeScale));
  for (const session of model.sessions) {
    if (Number.isNaN(session.quoted)) continue;
    const x = scale.x(session.start);
    const w = Math.max(1, round(scale.x(session.quoted) - x));
    parts.push(`<rect class="quoting" x="${x}" y="${axisH + 2}" width="${w}" height="5"><title>quoting: ${scale.dur(session.quoted - session.start)}</title></rect>`);
  }
  for (const step of model.steps) {
    const jobs = [...step.jobs.values()].sort((a, b) => a.index - b.index);
    const aggregated = jobs.length > LANE_LIMIT;
    parts.push(`<g class="step-lanes" data-step="${esc(step.id)}" data-mode="${aggregated ? 'aggregate' : 'jobs'}">`);
    parts.push(`<text class="step-label" x="4" y="${y + 12}">${esc(step.id)}</text>`);
    parts.push(`<text class="step-sub" x="4" y="${y + 26}">${esc(step.task)} · ${jobs.length} job${jobs.length === 1 ? '' : 's'}</text>`);
    y += aggregated ? aggregateLane(parts, step, jobs, scale, y) : jobLanes(parts, step, jobs, scale, y);
    parts.push('</g>');
    y += 10;
  }
  if (model.pools.size > 0) {
    parts.push(`<text class="step-label" x="4" y="${y + 12}">rate-limit pools</text>`);
    y += 18;
    for (const pool of model.pools.values()) {
      poolLane(parts, pool, scale, y);
      y += POOL_H + 4;
    }
  }
  for (const session of model.sessions.slice(1)) {
    const x = scale.x(session.start);
    parts.push(`<line class="session" x1="${x}" x2="${x}" y1="${axisH - 2}" y2="${y}"><title>session started ${scale.dur(session.start - start)} in</title></line>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" id="timeline-svg" width="${WIDTH}" height="${y + 8}" viewBox="0 0 ${WIDTH} ${y + 8}" role="img" aria-label="run timeline">${parts.join('')}</svg>`;
}

/** One lane per job; returns the height used. */
function jobLanes(parts: string[], step: TimelineStep, jobs: readonly TimelineJob[], scale: Scale, top: number): number {
  const rowH = jobs.length <= 40 ? 12 : jobs.length <= 120 ? 6 : 3;
  const gap = rowH >= 6 ? 2 : 1;
  const header = 32;
  let y = top + header;
  for (const job of jobs) {
    parts.push(`<g class="lane job" data-outcome="${job.outcome}"><title>${esc(jobTitle(step, job, scale))}</title>`);
    for (const { i, from, to } of phaseSpans(job)) {
      const x = scale.x(from);
      parts.push(`<rect class="${PHASES[i]![1]}" x="${x}" y="${y}" width="${Math.max(0.5, round(scale.x(to) - x))}" height="${rowH}"/>`);
    }
    if (!Number.isNaN(job.end)) parts.push(`<rect class="end ${job.outcome}" x="${round(scale.x(job.end) - 1)}" y="${y - 1}" width="2.5" height="${rowH + 2}"/>`);
    for (const retry of job.retries) parts.push(`<rect class="retry" x="${round(scale.x(retry) - 1)}" y="${y - 1}" width="2" height="${rowH + 2}"/>`);
    parts.push('</g>');
    y += rowH + gap;
  }
  return y - top;
}

/** Each phase the job was seen in (index into PHASES), from its start to the next seen phase's start or the job's end. */
function phaseSpans(job: TimelineJob): { i: number; from: number; to: number }[] {
  const marks = phaseMarks(job);
  const spans: { i: number; from: number; to: number }[] = [];
  for (let i = 0; i < PHASES.length; i++) {
    const from = marks[i]!;
    if (Number.isNaN(from)) continue;
    const to = marks.slice(i + 1).find((t) => !Number.isNaN(t)) ?? job.end;
    if (!Number.isNaN(to)) spans.push({ i, from, to });
  }
  return spans;
}

/** Phase start times in PHASES order (NaN when a phase was not seen). */
function phaseMarks(job: TimelineJob): number[] {
  const submitted = job.submitted;
  const queued = Number.isNaN(job.queued) ? submitted : job.queued;
  return [queued, submitted, job.processing, job.downloading];
}

function jobTitle(step: TimelineStep, job: TimelineJob, scale: Scale): string {
  const at = (t: number): string => (Number.isNaN(t) ? '—' : scale.dur(t - scale.start));
  const cost = job.outcome === 'done' ? `, cost $${job.cost}` : '';
  const retries = job.retries.length > 0 ? `, ${job.retries.length} retr${job.retries.length === 1 ? 'y' : 'ies'}` : '';
  return `${step.id} #${job.index} ${job.key}: ${job.outcome}${cost}${retries}; queued ${at(job.queued)}, submitted ${at(job.submitted)}, processing ${at(job.processing)}, downloading ${at(job.downloading)}, ended ${at(job.end)}`;
}

/** A step's jobs as stacked phase counts over time, the share done, and failure ticks; returns the height used. */
function aggregateLane(parts: string[], step: TimelineStep, jobs: readonly TimelineJob[], scale: Scale, top: number): number {
  const width = scale.span / BUCKETS;
  const load = PHASES.map(() => new Float64Array(BUCKETS));
  const ended = new Float64Array(BUCKETS);
  const failed = new Float64Array(BUCKETS);
  for (const job of jobs) {
    for (const { i, from, to } of phaseSpans(job)) spread(load[i]!, from - scale.start, to - scale.start, width);
    if (!Number.isNaN(job.end)) {
      const b = bucketOf(job.end - scale.start, width);
      if (job.outcome === 'done' || job.outcome === 'cached') ended[b]!++;
      else if (job.outcome === 'failed' || job.outcome === 'unknown' || job.outcome === 'timed-out') failed[b]!++;
    }
  }
  // Queued jobs often outnumber those in flight by far: the queue is a line on its own scale.
  let peak = 0;
  let queuePeak = 0;
  for (let b = 0; b < BUCKETS; b++) {
    peak = Math.max(peak, load[1]![b]! + load[2]![b]! + load[3]![b]!);
    queuePeak = Math.max(queuePeak, load[0]![b]!);
  }
  const y0 = top + 32;
  const base = y0 + AGG_H;
  const title = `${step.id}: ${jobs.length} jobs; bars: jobs at the service or downloading (at most ${Math.round(peak)} at once); grey line: jobs queued (at most ${Math.round(queuePeak)}); green line: share done`;
  parts.push(`<g class="lane aggregate"><title>${esc(title)}</title>`);
  parts.push(`<rect class="lane-bg" x="${LABEL_W}" y="${y0}" width="${PLOT_W}" height="${AGG_H}"/>`);
  const barW = round(PLOT_W / BUCKETS);
  const queue: string[] = [];
  for (let b = 0; b < BUCKETS; b++) {
    let y = base;
    const x = round(LABEL_W + (b * PLOT_W) / BUCKETS);
    for (let i = 1; i < PHASES.length; i++) {
      const h = peak === 0 ? 0 : round((load[i]![b]! / peak) * AGG_H);
      if (h <= 0) continue;
      y -= h;
      parts.push(`<rect class="${PHASES[i]![1]}" x="${x}" y="${round(y)}" width="${barW}" height="${h}"/>`);
    }
    queue.push(`${round(x + barW / 2)},${round(base - (queuePeak === 0 ? 0 : (load[0]![b]! / queuePeak) * AGG_H))}`);
    if (failed[b]! > 0) parts.push(`<rect class="end failed" x="${x}" y="${base + 1}" width="${Math.max(1.5, barW)}" height="5"><title>${failed[b]} failed</title></rect>`);
  }
  parts.push(`<polyline class="queue-line" points="${queue.join(' ')}"/>`);
  let done = 0;
  const points: string[] = [`${LABEL_W},${base}`];
  for (let b = 0; b < BUCKETS; b++) {
    done += ended[b]!;
    points.push(`${round(LABEL_W + ((b + 1) * PLOT_W) / BUCKETS)},${round(base - (done / Math.max(1, jobs.length)) * AGG_H)}`);
  }
  parts.push(`<polyline class="done-line" points="${points.join(' ')}"/></g>`);
  return 32 + AGG_H + 8;
}

/** Adds the overlap of [from, to) with each bucket, as a share of the bucket (the average number of jobs in it). */
function spread(row: Float64Array, from: number, to: number, width: number): void {
  if (!(to > from)) return;
  const first = bucketOf(from, width);
  const last = bucketOf(to, width);
  for (let b = first; b <= last; b++) {
    const lo = Math.max(from, b * width);
    const hi = Math.min(to, (b + 1) * width);
    if (hi > lo) row[b]! += (hi - lo) / width;
  }
}

function bucketOf(offset: number, width: number): number {
  return Math.min(BUCKETS - 1, Math.max(0, Math.floor(offset / width)));
}

/** A pool's window waits (amber spans), 429s (red triangles) and daily limits (black bars). */
function poolLane(parts: string[], pool: TimelinePool, scale: Scale, y: number): void {
  const name = pool.pool;
  const summary = `${name}: ${pool.waits.length} window wait${pool.waits.length === 1 ? '' : 's'}, ${pool.throttles.length} × 429`;
  parts.push(`<g class="lane pool" data-pool="${esc(name)}"><title>${esc(summary)}</title>`);
  parts.push(`<text class="pool-label" x="12" y="${y + 11}">${esc(clip(name, 28))}</text>`);
  parts.push(`<rect class="lane-bg" x="${LABEL_W}" y="${y}" width="${PLOT_W}" height="${POOL_H}"/>`);
  for (const [from, to] of mergeSpans(pool.waits)) {
    const x = scale.x(from);
    parts.push(`<rect class="marker rate-wait" x="${x}" y="${y + 2}" width="${Math.max(1, round(scale.x(to) - x))}" height="${POOL_H - 4}"><title>${esc(`${name}: waiting for the window, ${scale.dur(to - from)} from ${scale.dur(from - scale.start)}`)}</title></rect>`);
  }
  for (const [at, wait] of pool.throttles) {
    const x = scale.x(at);
    parts.push(`<path class="marker throttled" d="M${x} ${y + 1}l4 ${POOL_H - 2}h-8z"><title>${esc(`${name}: 429 at ${scale.dur(at - scale.start)}, Retry-After ${scale.dur(wait)}`)}</title></path>`);
  }
  for (const [at] of pool.daily) {
    parts.push(`<rect class="marker daily" x="${scale.x(at)}" y="${y}" width="3" height="${POOL_H}"><title>${esc(`${name}: daily limit reached at ${scale.dur(at - scale.start)}`)}</title></rect>`);
  }
  parts.push('</g>');
}

/** Overlapping or touching waits as one span (a long run has many short ones). */
function mergeSpans(spans: readonly [number, number][]): [number, number][] {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/**
 * The time axis: about eight ticks at round intervals of real time. On the emulator's
 * accelerated clock (`timeScale` virtual seconds per real second) a second row gives the
 * emulator's time at each tick, both rows labelled.
 */
function axis(scale: Scale, timeScale: number): string {
  const steps = [100, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000];
  const scaled = timeScale !== 1 && timeScale > 0;
  const perReal = scaled ? timeScale : 1;
  const realSpan = scale.span / perReal;
  const every = steps.find((s) => realSpan / s <= 9) ?? 86_400_000 * Math.ceil(realSpan / 86_400_000 / 9);
  const line = scaled ? 32 : 20;
  const ticks: string[] = [`<g class="axis"><line x1="${LABEL_W}" x2="${LABEL_W + PLOT_W}" y1="${line}" y2="${line}"/>`];
  if (scaled) ticks.push(`<text class="axis-caption" x="4" y="12">real time</text><text class="axis-caption virtual" x="4" y="25">emulator time (×${timeScale})</text>`);
  for (let t = 0; t <= realSpan; t += every) {
    const x = scale.x(scale.start + t * perReal);
    ticks.push(`<line x1="${x}" x2="${x}" y1="${line - 4}" y2="${line}"/><text x="${x}" y="12">${formatDuration(t)}</text>`);
    if (scaled) ticks.push(`<text class="virtual" x="${x}" y="25">${formatDuration(t * perReal)}</text>`);
  }
  ticks.push('</g>');
  return ticks.join('');
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Escapes text for HTML and SVG content and attributes. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
