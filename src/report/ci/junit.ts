import { roundUsd, writeFileAtomically } from '../../common/index.js';
import { ReportWriteError } from '../files/report-write-error.js';
import type { ReportCounts, ReportItem, ReportStepSummary, RunReportSource, RunReportSummary } from '../files/run-report-types.js';
import { escapeXmlAttribute as attr, escapeXmlText as text } from './xml-escape.js';

/**
 * `--junit report.xml`: one `<testsuite>` per step (named by step id), one `<testcase>` per
 * item (`classname` = the workflow file, `name` = `step[index] key`). Failed and unknown items
 * get `<failure type="<error code>">`, and so does every item skipped for a problem: left out
 * as invalid (`--keep-going`, `type="E_ITEM_INVALID"`) or blocked by an upstream item that did
 * not succeed (`type="E_ITEM_BLOCKED"`); items skipped by their `if`, deferred by a daily
 * limit, or that the run never finished get `<skipped>`; the `request_id` and output paths go to `<system-out>`. Times are in seconds.
 */
export function* renderJUnit(source: RunReportSource): Iterable<string> {
  const summary = source.summary();
  const { totals } = summary;
  // Times are real seconds: on the emulator's accelerated clock the run's times are divided by its scale.
  const scale = summary.time_scale ?? 1;
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield `<testsuites name="${attr(summary.workflow_name || summary.workflow)}" tests="${totals.items}" failures="${failing(totals)}" errors="0" skipped="${notRun(totals)}" time="${seconds(summary.duration_ms, scale)}">\n`;
  const run = runProperties(summary);
  for (const step of summary.steps) {
    yield openSuite(step, scale);
    yield properties([...run, ['deflow.step.cost_quoted', usd(step.cost_quoted)], ['deflow.step.cost_actual', usd(step.cost_actual)]]);
    for (const item of source.items(step.id)) yield renderCase(summary.workflow, step.id, item, summary.status, scale);
    yield '  </testsuite>\n';
  }
  yield '</testsuites>\n';
}

/** Writes the JUnit report to `path` atomically. */
export async function writeJUnit(path: string, source: RunReportSource): Promise<void> {
  try {
    await writeFileAtomically(path, renderJUnit(source), { makeFolder: true });
  } catch (error) {
    throw new ReportWriteError(path, 'JUnit report', error);
  }
}

/**
 * The run's cost as properties of every suite (JUnit has no run-level properties): the whole
 * run's actual cost over every session, each session's, and the quote's point and high end.
 */
function runProperties(summary: RunReportSummary): [string, string][] {
  const out: [string, string][] = [['deflow.run.id', summary.run_id], ['deflow.run.cost_actual', usd(summary.totals.cost_actual)], ['deflow.run.cost_quoted', usd(summary.totals.cost_quoted)]];
  if (summary.quote !== null) {
    out.push(['deflow.run.quote_point', usd(summary.quote.point)], ['deflow.run.quote_high', usd(summary.quote.high)], ['deflow.run.quote_unknown_items', String(summary.quote.unknown_items)]);
  }
  out.push(['deflow.run.invocations', String(summary.invocations.length)]);
  for (const invocation of summary.invocations) out.push([`deflow.run.invocation.${invocation.index}.cost_actual`, usd(invocation.cost_actual)]);
  if (summary.budget && summary.budget.max_cost !== null) out.push(['deflow.run.max_cost', usd(summary.budget.max_cost)]);
  return out;
}

function properties(list: readonly [string, string][]): string {
  return `    <properties>\n${list.map(([name, value]) => `      <property name="${attr(name)}" value="${attr(value)}"/>\n`).join('')}    </properties>\n`;
}

/** USD with micro-dollar precision, no float noise. */
function usd(value: number): string {
  return roundUsd(value).toFixed(6);
}

function openSuite(step: ReportStepSummary, scale: number): string {
  const { counts } = step;
  // A suite's time is the wall-clock span of its items: they ran in parallel, so a sum would overstate it.
  return `  <testsuite name="${attr(step.id)}" tests="${counts.items}" failures="${failing(counts)}" errors="0" skipped="${notRun(counts)}" time="${seconds(step.duration_ms, scale)}">\n`;
}

/** Failing cases: failed, unknown, and skipped for a problem (invalid input, an upstream item that did not succeed). */
function failing(counts: ReportCounts): number {
  return counts.failed + counts.unknown + counts.invalid + counts.blocked;
}

/** Skipped cases: skipped by an `if`, and not finished (deferred included). */
function notRun(counts: ReportCounts): number {
  return counts.skipped - counts.invalid - counts.blocked + counts.pending;
}

function renderCase(workflow: string, stepId: string, item: ReportItem, runStatus: string, scale: number): string {
  const name = `${stepId}[${item.index}]${item.key === null ? '' : ` ${item.key}`}`;
  const open = `    <testcase classname="${attr(workflow)}" name="${attr(name)}" time="${seconds(item.duration_ms, scale)}"`;
  const body: string[] = [];
  if ((item.status === 'failed' || item.status === 'unsaved' || item.status === 'unknown' || item.status === 'timed-out') && item.error !== null) {
    const { error } = item;
    const details = [
      `code: ${error.code}`,
      `message: ${error.message}`,
      error.job_error_code === undefined ? '' : `job_error_code: ${error.job_error_code}`,
      error.reason === undefined ? '' : `reason: ${error.reason}`,
      error.retryable === undefined ? '' : `retryable: ${error.retryable}`,
      `attempts: ${item.attempts}`,
    ].filter((line) => line !== '');
    body.push(`      <failure type="${attr(error.code)}" message="${attr(error.message)}">${text(details.join('\n'))}</failure>\n`);
  } else if (item.status === 'skipped' && (item.skip_kind === 'invalid' || item.skip_kind === 'upstream')) {
    const type = item.skip_kind === 'invalid' ? 'E_ITEM_INVALID' : 'E_ITEM_BLOCKED';
    const message = `skipped: ${item.skip_reason ?? 'skipped'}`;
    body.push(`      <failure type="${type}" message="${attr(message)}">${text(message)}</failure>\n`);
  } else if (item.status === 'skipped') {
    body.push(`      <skipped message="${attr(item.skip_reason ?? 'skipped')}"/>\n`);
  } else if (item.status === 'deferred') {
    body.push(`      <skipped message="${attr(`deferred: ${item.skip_reason ?? 'a daily limit'}`)}"/>\n`);
  } else if (item.status === 'pending' || item.status === 'running') {
    body.push(`      <skipped message="${attr(`not finished: the run ended with status ${runStatus}`)}"/>\n`);
  }
  const out: string[] = [];
  if (item.request_id !== null) out.push(`request_id: ${item.request_id}`);
  if (item.cached) out.push('cached: true');
  if (item.adopted) out.push("adopted: true (the submission's answer was lost; a signed webhook delivery naming the item told its job, which was kept and charged once, never submitted again)");
  if (item.status === 'unsaved') out.push('state: paid, not saved (a re-run fetches the result again; it is never paid again)');
  if (item.status === 'timed-out') out.push('state: timed out (the job still runs at the service and is charged when it ends; the next run polls it and adopts its result, never submits it again unless --resubmit-timed-out)');
  for (const output of item.outputs) out.push(`output: ${output}`);
  if (out.length > 0) body.push(`      <system-out>${text(out.join('\n'))}</system-out>\n`);
  return body.length === 0 ? `${open}/>\n` : `${open}>\n${body.join('')}    </testcase>\n`;
}

/** Real seconds of a duration on a clock running `scale` times faster than real time. */
function seconds(ms: number | null, scale: number): string {
  return ((ms ?? 0) / 1000 / (scale > 0 ? scale : 1)).toFixed(3);
}
