import { formatCost } from '../format-cost.js';
import { formatRunDuration } from '../format-duration.js';
import { esc, LANE_LIMIT, renderTimelineSvg } from './html-timeline-svg.js';
import type { TimelineModel, TimelineStep } from './timeline-model.js';

/*
 * `deflow report --html`: one self-contained page (inline CSS, inline SVG, a few lines of
 * inline script; nothing fetched), readable from disk: the run's totals, cost per step quoted
 * vs actual, the timeline of every job and of every rate-limit pool, and the failures.
 */

/** Failures listed one by one; the rest are counted. */
const FAILURES_SHOWN = 200;

/** A step's quoted cost from the run's quote file (`runs/<run>/quote.json`), when the run kept one. */
export interface QuotedSteps {
  readonly steps: readonly { readonly id: string; readonly point: number; readonly unknownItems: number }[];
}

export interface HtmlReportOptions {
  /** The quote the run was started with, for steps whose items carry no quoted price. */
  readonly quote?: QuotedSteps | undefined;
}

/** The page, as one string. */
export function renderHtmlReport(model: TimelineModel, options: HtmlReportOptions = {}): string {
  const title = `deflow · ${model.workflowName || model.workflow || 'run'} · ${model.runId}`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title>`,
    `<style>${CSS}</style></head><body>`,
    header(model),
    totals(model),
    costs(model, options.quote),
    `<section id="timeline"><h2>Timeline</h2>${legend()}<div class="scroll">${renderTimelineSvg(model)}</div>`,
    `<p class="note">Times from the start of the run, real time; on the emulator's accelerated clock the axis gives the emulator's (virtual) time on a second row, and tooltips give both. Steps of more than ${LANE_LIMIT} jobs are drawn as one aggregated lane: bars count the jobs at the service or downloading over time, the dashed grey line the jobs queued (on its own scale), the green line rises with the share done.</p></section>`,
    failures(model),
    adopted(model),
    `<script>${SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}

function header(model: TimelineModel): string {
  const duration = Number.isNaN(model.start) ? '—' : formatRunDuration(model.end - model.start, model.timeScale);
  const started = Number.isNaN(model.start) ? '' : `started ${startedAt(model)}, `;
  const sessions = model.sessions.length > 1 ? `, ${model.sessions.length} sessions` : '';
  return [
    `<header><h1>${esc(model.workflowName || model.workflow)}</h1>`,
    `<p class="meta"><span class="badge ${esc(model.status)}" id="run-status">${esc(model.status)}</span> run <code>${esc(model.runId)}</code>`,
    ` · ${esc(model.workflow)} · ${started}${duration}${sessions}${model.exitCode === null || Number.isNaN(model.exitCode) ? '' : ` · exit ${model.exitCode}`}</p></header>`,
  ].join('');
}

/**
 * When the run began, real wall time; on the emulator's accelerated clock the emulator's own
 * date (ahead of the reader's) beside it, labelled. A log written before sessions noted their
 * real start has only the emulator's date: labelled as such.
 */
function startedAt(model: TimelineModel): string {
  const at = (ms: number): string => `<time data-ts="${ms}">${new Date(ms).toISOString()}</time>`;
  if (model.timeScale === 1) return at(model.start);
  if (Number.isNaN(model.realStart)) return `${at(model.start)} (emulator time)`;
  return `${at(model.realStart)} (emulator time: ${new Date(model.start).toISOString()})`;
}

function totals(model: TimelineModel): string {
  const counts = { jobs: 0, done: 0, cached: 0, failed: 0, timedOut: 0, skipped: 0, unknown: 0, unfinished: 0, adopted: 0 };
  let actual = 0;
  for (const step of model.steps) {
    actual += step.costActual;
    for (const job of step.jobs.values()) {
      counts.jobs++;
      if (job.adopted) counts.adopted++;
      if (job.outcome === 'done') counts.done++;
      else if (job.outcome === 'cached') counts.cached++;
      else if (job.outcome === 'failed') counts.failed++;
      else if (job.outcome === 'skipped') counts.skipped++;
      else if (job.outcome === 'unknown') counts.unknown++;
      else if (job.outcome === 'timed-out') counts.timedOut++;
      else counts.unfinished++;
    }
  }
  let throttles = 0;
  let waits = 0;
  for (const pool of model.pools.values()) {
    throttles += pool.throttles.length;
    waits += pool.waits.length;
  }
  const quoted = model.quote === null ? 'not quoted' : `quoted ${formatCost(model.quote.point)}${model.quote.high > model.quote.point ? ` (up to ${formatCost(model.quote.high)})` : ''}`;
  const card = (name: string, value: string, cls = ''): string => `<div class="card ${cls}" data-total="${name}"><b>${esc(value)}</b><span>${esc(name)}</span></div>`;
  return [
    '<section id="totals" class="cards">',
    card('jobs', String(counts.jobs)),
    card('done', String(counts.done), 'ok'),
    counts.cached > 0 ? card('cached', String(counts.cached), 'ok') : '',
    card('failed', String(counts.failed), counts.failed > 0 ? 'bad' : ''),
    counts.skipped > 0 ? card('skipped', String(counts.skipped), 'warn') : '',
    counts.unknown > 0 ? card('unknown', String(counts.unknown), 'bad') : '',
    counts.timedOut > 0 ? card('timed out', String(counts.timedOut), 'bad') : '',
    counts.unfinished > 0 ? card('unfinished', String(counts.unfinished), 'warn') : '',
    counts.adopted > 0 ? card('adopted', String(counts.adopted), 'ok') : '',
    // The engine's figure when the run said it (the one the summary line and report.json state).
    card('spent', formatCost(Number.isNaN(model.spent) ? actual : model.spent)),
    card('quote', quoted.replace(/^quoted /, '')),
    card('429s', String(throttles), throttles > 0 ? 'warn' : ''),
    card('window waits', String(waits)),
    '</section>',
  ].join('');
}

function costs(model: TimelineModel, quote: QuotedSteps | undefined): string {
  const fromFile = new Map(quote?.steps.map((s) => [s.id, s]) ?? []);
  const rows = model.steps.map((step) => {
    const quoted = quotedOf(step, fromFile.get(step.id));
    const diff = quoted === null ? '—' : signed(step.costActual - quoted);
    return `<tr data-step="${esc(step.id)}"><td>${esc(step.id)}</td><td>${esc(step.task)}</td><td class="n">${step.jobs.size}</td><td class="n">${formatCost(quoted)}</td><td class="n">${formatCost(step.costActual)}</td><td class="n">${diff}</td></tr>`;
  });
  const quotedTotal = model.steps.reduce<number | null>((sum, step) => {
    const q = quotedOf(step, fromFile.get(step.id));
    return q === null ? sum : (sum ?? 0) + q;
  }, null);
  const actual = model.steps.reduce((sum, step) => sum + step.costActual, 0);
  return [
    '<section id="costs"><h2>Cost per step</h2><table><thead><tr><th>step</th><th>task</th><th class="n">jobs</th><th class="n">quoted</th><th class="n">actual</th><th class="n">actual − quoted</th></tr></thead><tbody>',
    ...rows,
    `</tbody><tfoot><tr><td>total</td><td></td><td></td><td class="n">${formatCost(quotedTotal)}</td><td class="n">${formatCost(actual)}</td><td class="n">${quotedTotal === null ? '—' : signed(actual - quotedTotal)}</td></tr></tfoot></table></section>`,
  ].join('');
}

/** The step's quoted cost: its items' quoted prices, else the run's quote file, else null. */
function quotedOf(step: TimelineStep, fromFile: QuotedSteps['steps'][number] | undefined): number | null {
  if (step.quotedItems > 0) return step.costQuoted;
  return fromFile === undefined ? null : fromFile.point;
}

function signed(usd: number): string {
  const text = formatCost(usd);
  return usd > 0 && text !== '$0.00' ? `+${text}` : text;
}

function failures(model: TimelineModel): string {
  if (model.failures.length === 0) return '<section id="failures"><h2>Failures</h2><p class="none">No job failed, was skipped or left unknown.</p></section>';
  const shown = model.failures.slice(0, FAILURES_SHOWN);
  const rows = shown.map(
    (f) =>
      `<tr class="${f.outcome}"><td>${esc(f.step)}</td><td class="n">${f.index}</td><td>${esc(f.key)}</td><td>${esc(f.outcome)}</td><td><code>${esc(f.code)}</code></td><td>${esc(f.message)}${f.reason === null ? '' : ` <span class="reason">(${esc(f.reason)})</span>`}</td><td class="n">${formatRunDuration(f.at - model.start, model.timeScale)}</td></tr>`,
  );
  const more = model.failures.length > shown.length ? `<p class="note">and ${model.failures.length - shown.length} more (see <code>deflow status</code> or the run report).</p>` : '';
  return [
    `<section id="failures"><h2>Failures (${model.failures.length})</h2><table><thead><tr><th>step</th><th class="n">item</th><th>key</th><th>outcome</th><th>code</th><th>reason</th><th class="n">at</th></tr></thead><tbody>`,
    ...rows,
    `</tbody></table>${more}</section>`,
  ].join('');
}

/** Items whose submission answer was lost and whose job a webhook delivery named: adopted, not paid twice. */
function adopted(model: TimelineModel): string {
  const rows: string[] = [];
  let total = 0;
  for (const step of model.steps) {
    for (const job of step.jobs.values()) {
      if (!job.adopted) continue;
      total++;
      if (rows.length < FAILURES_SHOWN) rows.push(`<tr class="adopted"><td>${esc(step.id)}</td><td class="n">${job.index}</td><td>${esc(job.key)}</td><td>${esc(job.outcome)}</td></tr>`);
    }
  }
  if (total === 0) return '';
  const more = total > rows.length ? `<p class="note">and ${total - rows.length} more (see <code>deflow status</code> or the run report).</p>` : '';
  return [
    `<section id="adopted"><h2>Adopted (${total})</h2><p class="note">Their submission's answer was lost; a signed webhook delivery naming the item told its job, which was adopted: polled, saved and charged once, never submitted again.</p>`,
    '<table><thead><tr><th>step</th><th class="n">item</th><th>key</th><th>outcome</th></tr></thead><tbody>',
    ...rows,
    `</tbody></table>${more}</section>`,
  ].join('');
}

function legend(): string {
  const item = (cls: string, text: string): string => `<span class="key"><i class="${cls}"></i>${text}</span>`;
  return `<p class="legend">${item('quoting', 'quoting')}${item('q', 'queued')}${item('s', 'submitted (at the service)')}${item('p', 'processing')}${item('d', 'downloading')}${item('end done', 'done')}${item('end cached', 'cached')}${item('end failed', 'failed / unknown')}${item('end skipped', 'skipped')}${item('rate-wait', 'window wait')}${item('throttled', '429')}</p>`;
}

const CSS = `
:root{--q:#cbd5e1;--s:#93c5fd;--p:#2563eb;--d:#a78bfa;--ok:#16a34a;--bad:#dc2626;--warn:#d97706;--fg:#0f172a;--muted:#64748b}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);margin:0;padding:20px 28px;background:#f8fafc}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:26px 0 8px}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
.meta{color:var(--muted);margin:0}.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;background:var(--muted);font-weight:600}
.badge.done{background:var(--ok)}.badge.failed,.badge.refused,.badge.crashed{background:var(--bad)}.badge.over-budget,.badge.daily-limit,.badge.interrupted{background:var(--warn)}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin-top:16px}.card{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:8px 14px;min-width:92px}
.card b{display:block;font-size:18px}.card span{color:var(--muted);font-size:12px}.card.ok b{color:var(--ok)}.card.bad b{color:var(--bad)}.card.warn b{color:var(--warn)}
table{border-collapse:collapse;background:#fff;border:1px solid #e2e8f0}th,td{padding:4px 10px;border-bottom:1px solid #f1f5f9;text-align:left;vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600}.n{text-align:right;font-variant-numeric:tabular-nums}tfoot td{font-weight:600}
tr.failed td:nth-child(4),tr.unknown td:nth-child(4){color:var(--bad)}tr.skipped td:nth-child(4){color:var(--warn)}.reason{color:var(--muted)}
.scroll{overflow-x:auto;background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:6px}
.note,.none{color:var(--muted);font-size:12px}.legend{font-size:12px;color:var(--muted)}.key{margin-right:12px;white-space:nowrap}
.key i{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:-1px;border-radius:2px}
.q{fill:var(--q);background:var(--q)}.s{fill:var(--s);background:var(--s)}.p{fill:var(--p);background:var(--p)}.d{fill:var(--d);background:var(--d)}
.end.done{fill:var(--ok);background:var(--ok)}.end.cached{fill:#0d9488;background:#0d9488}.end.failed,.end.unknown{fill:var(--bad);background:var(--bad)}.end.skipped{fill:var(--warn);background:var(--warn)}
.end.running,.end.pending{fill:var(--muted)}.retry{fill:#f97316}
.rate-wait{fill:#fbbf24;background:#fbbf24;opacity:.85}.throttled{fill:var(--bad);background:var(--bad)}.daily{fill:#111827}
.quoting{fill:#64748b;background:#64748b}.lane-bg{fill:#f8fafc;stroke:#e2e8f0}.done-line{fill:none;stroke:var(--ok);stroke-width:1.5}.queue-line{fill:none;stroke:#94a3b8;stroke-width:1.2;stroke-dasharray:3 2}.session{stroke:#64748b;stroke-dasharray:4 3}
.axis line{stroke:#94a3b8}.axis text{font-size:10px;fill:var(--muted);text-anchor:middle}.axis text.virtual{font-size:9px;font-style:italic}.axis text.axis-caption{text-anchor:start;font-weight:600}
.step-label{font-size:12px;font-weight:600;fill:var(--fg)}.step-sub,.pool-label{font-size:11px;fill:var(--muted)}
.lane.job:hover rect{stroke:#0f172a;stroke-width:.4}
`;

/** Shows the start time in the reader's time zone; nothing else needs a script. */
const SCRIPT = `for(const el of document.querySelectorAll('time[data-ts]')){const d=new Date(Number(el.dataset.ts));if(!Number.isNaN(d.getTime()))el.textContent=d.toLocaleString();}`;
