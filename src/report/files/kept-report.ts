/**
 * The JSON report a run keeps in its state folder (`runs/<run>/report.json`), read back as a
 * report source: `deflow report` writes `--report` and `--junit` again from it when the run
 * could not write them (a full disk, a folder in the way).
 */
import { readFile } from 'node:fs/promises';
import { DeflowError } from '../../common/index.js';
import type { ItemStatus, ReportItem, RunReportSource, RunReportSummary } from './run-report-types.js';

/** Its name in the run's folder. */
export const KEPT_REPORT_NAME = 'report.json';

type KeptStep = RunReportSummary['steps'][number] & { readonly items?: readonly ReportItem[] };

/** Reads the kept report at `path` (as `--report` wrote it). */
export async function readKeptReport(path: string): Promise<{ text: string; source: RunReportSource }> {
  let text: string;
  let parsed: RunReportSummary & { steps: readonly KeptStep[] };
  try {
    text = await readFile(path, 'utf8');
    parsed = JSON.parse(text) as typeof parsed;
    if (parsed === null || typeof parsed !== 'object' || !Array.isArray(parsed.steps)) throw new Error('not a run report (no steps)');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the run kept no JSON report (made before deflow kept one?)' : error instanceof Error ? error.message : String(error);
    throw new DeflowError('E_USAGE_NO_EVENTS', `${path}: cannot read the run's kept report: ${reason}`, { cause: error, details: { path } });
  }
  const steps = parsed.steps.map(({ items: _items, ...step }) => step);
  const itemsOf = new Map(parsed.steps.map((step) => [step.id, step.items ?? []]));
  const summary: RunReportSummary = { ...parsed, steps };
  const source: RunReportSource = {
    summary: () => summary,
    *items(stepId: string, filter?: (status: ItemStatus) => boolean) {
      for (const item of itemsOf.get(stepId) ?? []) if (filter === undefined || filter(item.status)) yield item;
    },
  };
  return { text, source };
}
