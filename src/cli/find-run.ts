/** Finding runs for `deflow status` and `deflow report`: by id, by workflow file, or every run below a folder. */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import fg from 'fast-glob';
import { DeflowError, STATE_DIR_NAME } from '../common/index.js';
import { listRuns, type RunSummary, resolveStateDir } from '../engine/index.js';

/** A run and the state folder it is in. */
export interface FoundRun {
  readonly stateDir: string;
  readonly summary: RunSummary;
}

/** How deep below the current folder state folders are looked for. */
const SEARCH_DEPTH = 6;

/**
 * The run `run` names: a workflow file (its latest run), a run id, or (undefined) the latest
 * run of the state folder. Without `--state-dir`, a run id not in `./.deflow` is looked for in
 * the state folders below `cwd`.
 * @throws DeflowError `E_USAGE_NO_RUN`
 */
export async function findRun(run: string | undefined, stateDirFlag: string | undefined, cwd: string): Promise<FoundRun> {
  const workflow = run !== undefined && (await isFile(resolve(cwd, run))) ? resolve(cwd, run) : undefined;
  const stateDir = workflow !== undefined ? resolveStateDir({ workflowPath: workflow, stateDir: stateDirFlag, cwd }) : resolve(cwd, stateDirFlag ?? STATE_DIR_NAME);
  const runs = await listRuns(stateDir);
  const summary = workflow !== undefined ? runs.find((r) => r.meta?.workflow === workflow) : run === undefined ? runs[0] : runs.find((r) => r.runId === run);
  if (summary !== undefined) return { stateDir, summary };
  if (workflow === undefined && run !== undefined && stateDirFlag === undefined) {
    const below = (await listRunsBelow(cwd)).find((found) => found.summary.runId === run);
    if (below !== undefined) return below;
  }
  const what = workflow !== undefined ? `no run of ${run}` : run === undefined ? 'no runs' : `no run ${JSON.stringify(run)}`;
  throw new DeflowError('E_USAGE_NO_RUN', `${stateDir}: ${what} in this state folder (pass --state-dir to look elsewhere)`, { details: { stateDir, run: run ?? null } });
}

/**
 * Every run of every state folder (`.deflow/` with a `runs/` folder) at or below `cwd`, newest
 * first. `node_modules` and `.git` are not searched.
 */
export async function listRunsBelow(cwd: string): Promise<FoundRun[]> {
  const found = await fg(`**/${STATE_DIR_NAME}/runs`, {
    cwd,
    onlyDirectories: true,
    dot: true,
    absolute: true,
    deep: SEARCH_DEPTH + 2,
    ignore: ['**/node_modules/**', '**/.git/**'],
    suppressErrors: true,
  });
  const stateDirs = [...new Set(found.map((runsDir) => dirname(runsDir)))].sort();
  const runs = (await Promise.all(stateDirs.map(async (stateDir) => (await listRuns(stateDir)).map((summary) => ({ stateDir, summary }))))).flat();
  const started = (r: FoundRun): number => r.summary.meta?.started_at ?? 0;
  return runs.sort((a, b) => started(b) - started(a) || (a.summary.runId < b.summary.runId ? 1 : -1));
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
