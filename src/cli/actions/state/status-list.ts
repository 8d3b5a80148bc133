/** `deflow status` with no argument: the runs of every state folder at or below the current folder. */
import { relative } from 'node:path';
import type { CliIO } from '../../../common/index.js';
import { EXIT, STATE_DIR_NAME } from '../../../common/index.js';
import type { RunSummary } from '../../../engine/index.js';
import { listRunsBelow } from '../../find-run.js';
import { formatTable } from '../../text-table.js';
import { realOrClock } from './run-dates.js';

/** `deflow status --json` with no argument: every run under the current folder. */
export interface RunListJson {
  readonly format_version: 2;
  /** Newest first. */
  readonly runs: readonly {
    readonly run_id: string;
    readonly status: RunSummary['status'];
    readonly active: boolean;
    readonly workflow: string | null;
    readonly state_dir: string;
    readonly started_at: string | null;
    readonly finished_at: string | null;
  }[];
}

/** No argument: the runs of every state folder at or below the current folder, newest first. */
export async function listStatus(json: boolean, io: CliIO): Promise<number> {
  const found = await listRunsBelow(io.cwd);
  const list: RunListJson = {
    format_version: 2,
    runs: found.map(({ stateDir, summary }) => ({
      run_id: summary.runId,
      status: summary.status,
      active: summary.active,
      workflow: summary.meta?.workflow ?? null,
      state_dir: stateDir,
      ...realOrClock(summary.meta),
    })),
  };
  if (json) {
    io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return EXIT.ok;
  }
  if (list.runs.length === 0) {
    io.stdout.write(`no runs under ${io.cwd} (no ${STATE_DIR_NAME}/runs folder in it or below it)\n`);
    return EXIT.ok;
  }
  const shown = (path: string | null): string => (path === null ? '—' : relative(io.cwd, path) || '.');
  const rows = list.runs.map((r) => [r.run_id, r.active ? `${r.status} (active)` : r.status, shown(r.workflow), r.started_at ?? '—', r.finished_at ?? '—']);
  io.stdout.write(`${formatTable(['run', 'status', 'workflow', 'started', 'finished'], rows)}\n\nfor one run's details: deflow status RUN (or a workflow file)\n`);
  return EXIT.ok;
}
