/**
 * Helpers for engine tests: a temp workspace with real media files and a workflow, an
 * emulator on a fast virtual clock, a client sharing that clock, and `runWorkflow` with every
 * event captured.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import { DeapiClient } from '../../src/client/deapi-client.js';
import type { EmulatorConfigInput, RunningEmulator } from '../../src/emulator/start-emulator.js';
import type { RunEvent, RunEventSink } from '../../src/engine/contracts/events.js';
import { quoteRun } from '../../src/engine/quote/quote.js';
import { quoteInputFromGraph } from '../../src/engine/quote/quote-input-from-graph.js';
import { clientPriceSource } from '../../src/engine/quote/quote-price-source.js';
import { type RunOutcome, type RunWorkflowOptions, runWorkflow } from '../../src/engine/run-workflow.js';
import { GatedGovernor } from '../../src/engine/run/submit-gate.js';
import type { JobGraph } from '../../src/workflow/index.js';
import { validateWorkflow } from '../../src/workflow/validate/validate-workflow.js';
import { useEmulator } from '../helpers/emulator-http.js';

/** A temp folder removed when the test ends; `files` maps relative paths to contents. */
export async function useWorkspace(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'deflow-run-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** An emulator at `time_scale` 200 by default (a 60 s window lasts 0.3 s), plus `config`. */
export function useFastEmulator(config: EmulatorConfigInput = {}): Promise<RunningEmulator> {
  return useEmulator({ config: { time_scale: 200, balance: 1000, ...config } });
}

/** A client on the emulator's clock with the engine's gated governor. */
export function clientFor(emulator: RunningEmulator, key = emulator.keys.api): DeapiClient {
  const client = new DeapiClient({ apiKey: key, baseUrl: emulator.url, clock: emulator.clock, governor: new GatedGovernor({ clock: emulator.clock }) });
  onTestFinished(() => client.close());
  return client;
}

/** Validates `file` (in `dir`) and returns its graph; fails the test with the problems otherwise. */
export async function graphOf(dir: string, file = 'workflow.yaml'): Promise<JobGraph> {
  const result = await validateWorkflow(join(dir, file), { offline: true });
  if (!result.ok || !result.graph) throw new Error(`invalid workflow:\n${result.errors.map((e) => e.message).join('\n')}`);
  return result.graph;
}

export interface CapturedRun {
  readonly outcome: RunOutcome;
  readonly events: RunEvent[];
  /** Events of one type, in order. */
  of<T extends RunEvent['type']>(type: T): Extract<RunEvent, { type: T }>[];
}

/** Runs a workflow in `dir` against `emulator`, capturing events. */
export async function runIn(
  dir: string,
  emulator: RunningEmulator,
  options: Partial<Omit<RunWorkflowOptions, 'graph' | 'onEvent'>> & { file?: string; quoted?: boolean } = {},
): Promise<CapturedRun> {
  const graph = await graphOf(dir, options.file);
  const events: RunEvent[] = [];
  const { file: _file, quoted, ...rest } = options;
  const client = options.client ?? clientFor(emulator);
  const quote = quoted
    ? (onEvent: RunEventSink) => quoteRun(quoteInputFromGraph(graph), { prices: clientPriceSource(client), clock: emulator.clock, maxCost: options.maxCost, onEvent })
    : undefined;
  const outcome = await runWorkflow({
    graph,
    client,
    stateDir: join(dir, '.deflow'),
    onEvent: (event) => events.push(event),
    ...(quote ? { quote } : {}),
    ...rest,
  });
  return {
    outcome,
    events,
    of: <T extends RunEvent['type']>(type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type),
  };
}

/** The workflow file text from lines (keeps test workflows readable). */
export function yaml(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}
