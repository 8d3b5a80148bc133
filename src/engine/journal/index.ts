export { digestWorkflow, openDurableRun, openDurableRunWith } from './durable-run.js';
export type { DurableRun, OpenDurableRunInternals, OpenDurableRunOptions } from './durable-run.js';
export { readJournal, readRunState, replayRunState } from './journal-replay.js';
export { summariseProgress } from './run-progress.js';
export type { RunProgress } from './run-progress.js';
export { RESUMABLE_STATUSES, STATE_DIR_NAME, assertRunId, listRuns, newRunId, resolveStateDir, runPaths, stateLayout } from './state-dir.js';
export type { RunSummary } from './state-dir.js';
export { attributeSpend, chargedJobs, readInvocations } from './invocations.js';
export type { InvocationEntry } from './invocations.js';
