/** What `deflow report` does (report.ts defines the command). */
import { access } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { DeflowError, EXIT, writeFileAtomically } from '../../../common/index.js';
import type { CliIO } from '../../../common/index.js';
import { runPaths } from '../../../engine/index.js';
import { EVENT_LOG_NAME, KEPT_REPORT_NAME, readKeptReport, ReportWriteError, writeHtmlReport, writeJUnit } from '../../../report/index.js';
import { findRun, type FoundRun, listRunsBelow } from '../../find-run.js';

export interface ReportFlags {
  readonly html?: string;
  readonly report?: string;
  readonly junit?: string;
  readonly stateDir?: string;
}

export async function runReport(run: string | undefined, flags: ReportFlags, io: CliIO): Promise<number> {
  if (flags.html === undefined && flags.report === undefined && flags.junit === undefined) {
    throw new DeflowError('E_USAGE_OPTION', 'deflow report: name at least one file to write: --html FILE, --report FILE or --junit FILE', { details: { option: '--html' } });
  }
  const found = await locate(run, flags, io.cwd);
  const { dir } = runPaths(found.stateDir, found.summary.runId);
  if (flags.report !== undefined || flags.junit !== undefined) {
    const kept = await readKeptReport(join(dir, KEPT_REPORT_NAME));
    if (flags.report !== undefined) {
      const out = resolve(io.cwd, flags.report);
      await writeFileAtomically(out, kept.text, { makeFolder: true }).catch((error: unknown) => {
        throw new ReportWriteError(out, 'run report', error);
      });
      io.stdout.write(`report: ${relative(io.cwd, out) || out} (run ${found.summary.runId})\n`);
    }
    if (flags.junit !== undefined) {
      const out = resolve(io.cwd, flags.junit);
      await writeJUnit(out, kept.source);
      io.stdout.write(`junit: ${relative(io.cwd, out) || out} (run ${found.summary.runId})\n`);
    }
  }
  if (flags.html === undefined) return EXIT.ok;
  const eventLog = join(dir, EVENT_LOG_NAME);
  try {
    await access(eventLog);
  } catch {
    throw new DeflowError(
      'E_USAGE_NO_EVENTS',
      `run ${found.summary.runId}: no event log at ${eventLog} (the run was made before deflow kept one); its JSON report is in ${join(dir, 'report.json')}`,
      { details: { run: found.summary.runId, eventLog } },
    );
  }
  const out = resolve(io.cwd, flags.html);
  const { model, bytes } = await writeHtmlReport({ eventLog, quoteFile: join(dir, 'quote.json'), out, runStatus: found.summary.status });
  const jobs = model.steps.reduce((sum, step) => sum + step.jobs.size, 0);
  io.stdout.write(`html: ${relative(io.cwd, out) || out} (run ${found.summary.runId}, ${jobs} job${jobs === 1 ? '' : 's'}, ${Math.ceil(bytes / 1024)} KiB)\n`);
  return EXIT.ok;
}

/** The run named, or with none the newest run here or below. */
async function locate(run: string | undefined, flags: ReportFlags, cwd: string): Promise<FoundRun> {
  if (run !== undefined || flags.stateDir !== undefined) return findRun(run, flags.stateDir, cwd);
  const newest = (await listRunsBelow(cwd))[0];
  if (newest === undefined) throw new DeflowError('E_USAGE_NO_RUN', `${cwd}: no runs here or below (pass a run id, a workflow file or --state-dir)`, { details: { run: null } });
  return newest;
}
