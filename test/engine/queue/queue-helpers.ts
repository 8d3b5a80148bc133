/**
 * Helpers of the queue tests: a private redis-server per file, and workers and coordinators
 * as separate processes would have them (each its own connections, governor and client),
 * all in this process against one emulator.
 */
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import type { RunningEmulator } from '../../../src/emulator/start-emulator.js';
import type { RunEvent } from '../../../src/engine/contracts/events.js';
import { digestWorkflow } from '../../../src/engine/journal/durable-run.js';
import { accountScope } from '../../../src/engine/queue/account-scope.js';
import { type QueueOutcome, type QueueRunOptions, runQueued } from '../../../src/engine/queue-coordinator.js';
import { openSharedGovernor, type SharedGovernor } from '../../../src/engine/queue/open-governor.js';
import { type QueueWorker, startQueueWorker } from '../../../src/engine/queue/queue-worker.js';
import { parseRedisUrl } from '../../../src/engine/queue/redis-url.js';
import { graphOf } from '../run-helpers.js';

export interface Participant {
  readonly shared: SharedGovernor;
  readonly client: DeapiClient;
}

/** A governor and client as one process would hold them; closed after the test. */
export async function useParticipant(redisUrl: string, emulator: RunningEmulator, baseUrl = emulator.url): Promise<Participant> {
  const shared = await openSharedGovernor(parseRedisUrl(redisUrl, '--queue'), { scope: accountScope(emulator.url, emulator.keys.api), clock: emulator.clock, heartbeatMs: 500 });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl, clock: emulator.clock, governor: shared.governor });
  onTestFinished(async () => {
    await client.close();
    await shared.close();
  });
  return { shared, client };
}

/** A worker (its client talking to `baseUrl`, the emulator's by default); closed after the test unless closed before. */
export async function useWorker(redisUrl: string, emulator: RunningEmulator, options: { concurrency?: number; lockMs?: number; baseUrl?: string } = {}): Promise<QueueWorker & Participant> {
  const participant = await useParticipant(redisUrl, emulator, options.baseUrl);
  const worker = await startQueueWorker({
    target: parseRedisUrl(redisUrl, '--queue'),
    redis: participant.shared.redis,
    governor: participant.shared.governor,
    client: participant.client,
    scope: accountScope(emulator.url, emulator.keys.api),
    clock: emulator.clock,
    lockMs: options.lockMs ?? 2000,
    poolPollMs: 200,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
  onTestFinished(() => worker.close());
  return Object.assign(worker, participant);
}

export interface CoordinatedRun {
  readonly outcome: QueueOutcome;
  readonly events: RunEvent[];
  of<T extends RunEvent['type']>(type: T): Extract<RunEvent, { type: T }>[];
}

/** Runs the workflow in `dir` as a coordinator (state in `dir/.deflow`). */
export async function coordinate(dir: string, redisUrl: string, emulator: RunningEmulator, options: Partial<QueueRunOptions> = {}): Promise<CoordinatedRun> {
  const graph = await graphOf(dir);
  const { client, shared } = await useParticipant(redisUrl, emulator);
  const events: RunEvent[] = [];
  const outcome = await runQueued({
    graph,
    client,
    stateDir: join(dir, '.deflow'),
    target: parseRedisUrl(redisUrl, '--queue'),
    redis: shared.redis,
    scope: accountScope(emulator.url, emulator.keys.api),
    workflowDigest: await digestWorkflow(graph),
    givenInputs: {},
    cwd: dir,
    ...options,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  return { outcome, events, of: <T extends RunEvent['type']>(type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type) };
}
