/**
 * One case of the fault matrix: a workflow (transcribe clips, then speak each transcript; both
 * saved) runs through the fault proxy with one fault on one phase of the jobs' life, then
 * again with the proxy clean. What a case measures:
 * - how the first run ends: done, or failed with every failed item carrying a coded error
 *   from the error table (never E_INTERNAL), or a crash (a throw out of the run);
 * - a hang: a run not over within the hard timeout;
 * - partial files: a file in the output folder that is not the complete result of a done item;
 * - paid twice: jobs the emulator holds twice (same task, parameters and file contents) after
 *   both runs; and the re-run must end with nothing failed (paid results fetched again).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { request } from 'undici';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import { isErrorCode } from '../../../src/common/error-codes.js';
import type { RunningEmulator } from '../../../src/emulator/start-emulator.js';
import type { RunEvent } from '../../../src/engine/contracts/events.js';
import { GatedGovernor } from '../../../src/engine/run/submit-gate.js';
import { type FaultPlan, useFaultProxy } from '../../helpers/fault-proxy.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { CHAIN, clips, duplicateJobs, runDurablyIn } from '../journal/durable-helpers.js';
import { useWorkspace } from '../run-helpers.js';

/** Real ms a run may take before it counts as a hang (then it is interrupted). */
export const HARD_TIMEOUT_MS = 30_000;
const ITEMS = 3;

export interface CaseResult {
  readonly plan: FaultPlan;
  /** Requests the fault hit. */
  readonly hits: number;
  /** How the first run ended: `done`, `failed` (every error coded), or what went wrong. */
  readonly first: 'done' | 'failed' | 'crash' | 'hang' | 'uncoded';
  /** Final states of the first run's items, e.g. `{ done: 4, unsaved: 1, unknown: 1 }`. */
  readonly states: Record<string, number>;
  /** Error codes of the first run's failed items. */
  readonly codes: readonly string[];
  readonly hangs: number;
  readonly partialFiles: readonly string[];
  readonly paidTwice: readonly string[];
  /** How the clean re-run ended, and how many items it left failed. */
  readonly second: 'done' | 'failed' | 'crash' | 'hang';
  readonly secondFailed: number;
  readonly problems: readonly string[];
}

function useServiceEmulator(): Promise<RunningEmulator> {
  const rate = { rpm: 600, rpd: null };
  return useEmulator({
    config: { time_scale: 20, balance: 100, jobs: { duration_ms: 2000, scale_by_input: false }, rate_limits: { endpoints: { 'audio/transcriptions': rate, 'audio/speech': rate }, jobs_status: null } },
  });
}

/** A client through `baseUrl` with short timeouts, so that stalls end fast. */
function faultClient(emulator: RunningEmulator, baseUrl: string): DeapiClient {
  return new DeapiClient({
    apiKey: emulator.keys.api,
    baseUrl,
    clock: emulator.clock,
    governor: new GatedGovernor({ clock: emulator.clock }),
    headersTimeoutMs: 1000,
    bodyTimeoutMs: 1000,
    connectTimeoutMs: 1000,
    // 60 s on the emulator's clock (time scale 20): 3 s of real time.
    transfer: { headersTimeoutMs: 1000, stallTimeoutMs: 1000, deadlineMs: 60_000 },
  });
}

type Ended = { kind: 'over'; events: RunEvent[]; failed: number; unknown: number } | { kind: 'crash'; error: unknown; events: RunEvent[] } | { kind: 'hang'; events: RunEvent[] };

async function boundedRun(dir: string, emulator: RunningEmulator, client: DeapiClient): Promise<Ended> {
  let interrupt: () => void = () => {};
  const interrupted = new Promise<void>((resolve) => {
    interrupt = resolve;
  });
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), HARD_TIMEOUT_MS);
  });
  const events: RunEvent[] = [];
  const run = runDurablyIn(dir, emulator, { client, interrupted, graceMs: 1000, onEvent: (event) => events.push(event) }).then(
    (result) => ({ kind: 'over' as const, events, failed: result.outcome.counts.failed, unknown: result.outcome.counts.unknown }),
    (error: unknown) => ({ kind: 'crash' as const, error, events }),
  );
  const ended = await Promise.race([run, hang]);
  clearTimeout(timer);
  if (ended === 'hang') {
    interrupt();
    // Let the interrupted run close its journal before the next one opens it (bounded too).
    await Promise.race([run, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    return { kind: 'hang', events };
  }
  return ended;
}

/** Each item's last state in the events: done, unsaved, failed, unknown, skipped. */
function finalStates(events: readonly RunEvent[]): Map<string, { state: string; code?: string; requestId?: string | null; outputs?: readonly string[] }> {
  const states = new Map<string, { state: string; code?: string; requestId?: string | null; outputs?: readonly string[] }>();
  for (const event of events) {
    if (!('node' in event)) continue;
    const key = `${event.node.step}/${event.node.key}`;
    if (event.type === 'item-done') states.set(key, { state: 'done', requestId: event.requestId, outputs: event.outputs });
    else if (event.type === 'item-failed') states.set(key, { state: event.unsaved ? 'unsaved' : 'failed', code: event.error.code, requestId: event.requestId });
    else if (event.type === 'item-unknown') states.set(key, { state: 'unknown' });
    else if (event.type === 'item-skipped') states.set(key, { state: 'skipped' });
  }
  return states;
}

/** The complete result of a job, fetched from the emulator directly (not through the proxy). */
async function expectedResult(emulator: RunningEmulator, requestId: string): Promise<Buffer> {
  const status = await request(`${emulator.url}/api/v1/client/request-status/${requestId}`, { headers: { authorization: `Bearer ${emulator.keys.api}`, accept: 'application/json' } });
  const data = ((await status.body.json()) as { data: { result: string | null; result_url: string | null } }).data;
  if (data.result !== null) return Buffer.from(data.result, 'utf8');
  const file = await request(data.result_url!);
  return Buffer.from(await file.body.arrayBuffer());
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Files in the output folder that are not the complete result of a done item. */
async function partialFiles(dir: string, emulator: RunningEmulator, events: readonly RunEvent[]): Promise<string[]> {
  const expected = new Map<string, string>();
  for (const [, item] of finalStates(events)) if (item.state === 'done' && item.requestId) for (const output of item.outputs ?? []) expected.set(output, item.requestId);
  const bad: string[] = [];
  for (const file of await filesUnder(join(dir, 'out'))) {
    const requestId = expected.get(file) ?? expected.get(relative(dir, file));
    if (requestId === undefined) {
      bad.push(`${relative(dir, file)} (no done item saved it)`);
      continue;
    }
    const [have, want] = await Promise.all([readFile(file), expectedResult(emulator, requestId)]);
    if (!have.equals(want)) bad.push(`${relative(dir, file)} (${have.length} of ${want.length} bytes, or different)`);
  }
  return bad;
}

/** Runs one case of the matrix. */
export async function runFaultCase(plan: FaultPlan): Promise<CaseResult> {
  const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(ITEMS) });
  const emulator = await useServiceEmulator();
  const proxy = await useFaultProxy(emulator.url, { clock: emulator.clock });
  const problems: string[] = [];
  proxy.plan = plan;
  const client = faultClient(emulator, proxy.url);
  const ended = await boundedRun(dir, emulator, client);
  await client.close().catch(() => {});
  proxy.plan = null;

  let first: CaseResult['first'] = ended.kind === 'over' ? 'done' : ended.kind;
  const events = ended.events;
  const states: Record<string, number> = {};
  const codes: string[] = [];
  for (const [key, item] of finalStates(events)) {
    states[item.state] = (states[item.state] ?? 0) + 1;
    if (item.code !== undefined) {
      codes.push(item.code);
      if (!isErrorCode(item.code) || item.code === 'E_INTERNAL') {
        first = 'uncoded';
        problems.push(`${key}: error code ${item.code}`);
      }
    }
  }
  if (ended.kind === 'over' && first === 'done' && ended.failed + ended.unknown > 0) first = 'failed';
  if (ended.kind === 'crash') problems.push(`first run threw: ${ended.error instanceof Error ? (ended.error.stack ?? ended.error.message) : String(ended.error)}`);
  const partial = await partialFiles(dir, emulator, events);

  const cleanClient = faultClient(emulator, proxy.url);
  const again = await boundedRun(dir, emulator, cleanClient);
  await cleanClient.close().catch(() => {});
  const secondEvents = again.events;
  partial.push(...(await partialFiles(dir, emulator, [...events, ...secondEvents])).filter((p) => !partial.includes(p)));
  const second: CaseResult['second'] = again.kind === 'over' ? (again.failed + again.unknown > 0 ? 'failed' : 'done') : again.kind;
  const secondFailed = again.kind === 'over' ? again.failed : -1;
  if (again.kind === 'crash') problems.push(`re-run threw: ${again.error instanceof Error ? (again.error.stack ?? again.error.message) : String(again.error)}`);
  for (const [key, item] of finalStates(secondEvents)) if (item.state === 'failed' || item.state === 'unsaved') problems.push(`re-run: ${key} ${item.state} ${item.code ?? ''}`);

  return {
    plan,
    hits: proxy.hit[plan.phase],
    first,
    states,
    codes,
    hangs: (ended.kind === 'hang' ? 1 : 0) + (again.kind === 'hang' ? 1 : 0),
    partialFiles: partial,
    paidTwice: duplicateJobs(emulator),
    second,
    secondFailed,
    problems,
  };
}
