/**
 * The run command's observers: `--trace-file` and the OTEL_* variables, `--pushgateway`,
 * `--metrics-file`, `--metrics-port` (with --queue), `notify:` and `--notify` (report/telemetry
 * does the work; this turns flags and the workflow into its options).
 */
import { resolve } from 'node:path';
import type { CliIO } from '../../../common/index.js';
import { DeflowError } from '../../../common/index.js';
import { type NotifyTarget, type Observers, openObservers } from '../../../report/index.js';
import type { JobGraph, NotifyWhen } from '../../../workflow/index.js';

export interface ObserverFlags {
  readonly traceFile?: string;
  readonly pushgateway?: string;
  readonly metricsFile?: string;
  readonly notify?: string[];
  readonly notifyOn?: string;
}

const WHEN: readonly NotifyWhen[] = ['failure', 'deferred', 'always'];

/** `--notify-on failure,deferred`. */
export function parseNotifyOn(value: string | undefined): NotifyWhen[] {
  if (value === undefined) return ['failure', 'deferred'];
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const bad = names.filter((name) => !WHEN.includes(name as NotifyWhen));
  if (names.length === 0 || bad.length > 0) {
    throw new DeflowError('E_USAGE_OPTION', `--notify-on: expected a comma-separated list of ${WHEN.join(', ')}, got ${JSON.stringify(value)}`, { details: { option: '--notify-on' } });
  }
  return names as NotifyWhen[];
}

function checkUrl(option: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DeflowError('E_USAGE_OPTION', `${option}: expected an http or https URL, got ${JSON.stringify(url)}`, { details: { option } });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new DeflowError('E_USAGE_OPTION', `${option}: expected an http or https URL, got a ${parsed.protocol} URL`, { details: { option } });
  }
  return url;
}

/** The flags checked before anything runs (a bad URL is a usage error, exit 2). */
export function checkObserverFlags(flags: ObserverFlags): void {
  if (flags.pushgateway !== undefined) checkUrl('--pushgateway', flags.pushgateway);
  for (const url of flags.notify ?? []) checkUrl('--notify', url);
  parseNotifyOn(flags.notifyOn);
}

/** Targets of `notify:` (the URL, or the variable that holds it) and of `--notify`. */
export function notifyTargets(graph: JobGraph, flags: ObserverFlags, io: CliIO): NotifyTarget[] {
  const targets: NotifyTarget[] = [];
  graph.workflow.notify.forEach((entry, index) => {
    const source = `${graph.workflow.displayFile}: notify[${index}]`;
    const url = entry.url ?? (entry.urlEnv === undefined ? undefined : io.env[entry.urlEnv]?.trim());
    if (url === undefined || url === '') {
      io.stderr.write(`deflow: ${source}: $${entry.urlEnv ?? ''} is not set: no notification will be sent to it\n`);
      return;
    }
    if (!/^https?:\/\//i.test(url)) {
      io.stderr.write(`deflow: ${source}: $${entry.urlEnv ?? ''} is not an http or https URL: no notification will be sent to it\n`);
      return;
    }
    targets.push({ url, on: entry.on, source: `notify[${index}]` });
  });
  const on = parseNotifyOn(flags.notifyOn);
  for (const url of flags.notify ?? []) targets.push({ url, on, source: '--notify' });
  return targets;
}

/** The literal `model` of each step (null when it is an expression or absent). */
function stepModel(graph: JobGraph, stepId: string): string | null {
  const value = graph.step(stepId).def.with.get('model');
  return value?.kind === 'literal' && typeof value.value === 'string' ? value.value : null;
}

export async function openRunObservers(io: CliIO, flags: ObserverFlags, graph: JobGraph, options: { reportPath: string | null; version: string; keepMetrics?: boolean }): Promise<Observers> {
  return openObservers({
    env: io.env,
    traceFile: flags.traceFile === undefined ? undefined : resolve(io.cwd, flags.traceFile),
    pushgateway: flags.pushgateway,
    metricsFile: flags.metricsFile === undefined ? undefined : resolve(io.cwd, flags.metricsFile),
    ...(options.keepMetrics === true ? { keepMetrics: true } : {}),
    notify: notifyTargets(graph, flags, io),
    workflow: graph.workflow.file,
    workflowName: graph.workflow.name,
    steps: graph.steps.map((step) => ({ id: step.id, task: step.def.task, model: stepModel(graph, step.id) })),
    version: options.version,
    reportPath: options.reportPath,
    warn: (line) => io.stderr.write(`${line}\n`),
  });
}
