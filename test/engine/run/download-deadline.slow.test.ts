/**
 * A result download ends within the step's `timeout`: a result server that trickles or stalls
 * ends the item as a coded E_TRANSFER error (paid, not saved) before the step's timeout has run
 * out, counted from the job's acceptance, the retry included. The client keeps its default
 * transfer limits (30 s stall timeout, 30 min deadline): only the step's timeout can end these
 * in time. Times are read from the emulator's virtual clock (time scale 20: the step's 120 s are 6 s of real time).
 */
import { describe, expect, test } from 'vitest';
import { DeapiClient } from '../../../src/client/deapi-client.js';
import type { RunningEmulator } from '../../../src/emulator/start-emulator.js';
import { GatedGovernor } from '../../../src/engine/run/submit-gate.js';
import { type Fault, useFaultProxy } from '../../helpers/fault-proxy.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { runDurablyIn } from '../journal/durable-helpers.js';
import { useWorkspace, yaml } from '../run-helpers.js';

const WORKFLOW = yaml(
  'version: 1',
  'name: deadline',
  'steps:',
  '  speak:',
  '    task: audio.speech',
  '    for_each: { items: ["one two three four five", "six seven eight nine ten"] }',
  '    with: { text: "${{ item.value }}", model: Kokoro, voice: af_sky, lang: en-us }',
  '    timeout: 120s',
  '    save: "${{ item.index }}.mp3"',
);

function useSpeechEmulator(): Promise<RunningEmulator> {
  return useEmulator({
    config: { time_scale: 20, balance: 100, jobs: { duration_ms: 10_000, scale_by_input: false }, rate_limits: { endpoints: { 'audio/speech': { rpm: 600, rpd: null } }, jobs_status: null } },
  });
}

function clientThrough(emulator: RunningEmulator, baseUrl: string): DeapiClient {
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl, clock: emulator.clock, governor: new GatedGovernor({ clock: emulator.clock }) });
  return client;
}

describe('a result download ends within the step’s timeout', () => {
  test.each<Fault>(['slow-body', 'stall'])('a %s result server: E_TRANSFER (paid, not saved) before the step’s 120 s are over; the re-run fetches it, no new job', async (fault) => {
    const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW });
    const emulator = await useSpeechEmulator();
    const proxy = await useFaultProxy(emulator.url, { clock: emulator.clock });
    proxy.plan = { fault, phase: 'download', seed: 7, rate: 1 };
    const client = clientThrough(emulator, proxy.url);
    const first = await runDurablyIn(dir, emulator, { client });
    await client.close();
    expect(proxy.hit.download).toBeGreaterThanOrEqual(1);
    const submitted = new Map(first.of('item-submitted').map((e) => [e.node.key, e.ts]));
    const failed = first.of('item-failed');
    expect(failed).toHaveLength(2);
    for (const event of failed) {
      expect(event.unsaved).toBeDefined();
      expect(event.error.code).toBe('E_TRANSFER');
      expect(event.error.message).toMatch(/did not finish within (?:[0-9]+(?:\.[0-9])? s|[0-9]+ ms) \(what was left of the step's timeout of 120 s\)|no time left of the step's timeout \(120 s\)/);
      // Accepted at `submitted`; the job itself takes 10 s; the download and its retry share what is left.
      expect(event.ts - submitted.get(event.node.key)!).toBeLessThanOrEqual(120_000 + 5_000);
    }
    expect(emulator.stats().submissions).toBe(2);

    proxy.plan = null;
    const clean = clientThrough(emulator, proxy.url);
    const again = await runDurablyIn(dir, emulator, { client: clean });
    await clean.close();
    expect(again.outcome.counts).toMatchObject({ done: 2, failed: 0 });
    expect(emulator.stats().submissions).toBe(2);
  });
});

describe('a status request ends within the step’s timeout', () => {
  test('a status server that stalls: timed-out (E_JOB_TIMEOUT, its request_id kept) when the step’s 120 s are over, not after the client’s 300 s timeouts', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW });
    const emulator = await useSpeechEmulator();
    const proxy = await useFaultProxy(emulator.url, { clock: emulator.clock });
    proxy.plan = { fault: 'stall', phase: 'poll', seed: 7, rate: 1 };
    const client = clientThrough(emulator, proxy.url);
    const run = await runDurablyIn(dir, emulator, { client });
    await client.close();
    expect(proxy.hit.poll).toBeGreaterThanOrEqual(1);
    const submitted = new Map(run.of('item-submitted').map((e) => [e.node.key, e.ts]));
    // The job may still finish (and be charged): timed out with its job named, never failed.
    expect(run.of('item-failed')).toEqual([]);
    const timedOut = run.of('item-timed-out');
    expect(timedOut).toHaveLength(2);
    for (const event of timedOut) {
      expect(event.requestId).toEqual(expect.any(String));
      expect(event.error).toMatchObject({ code: 'E_JOB_TIMEOUT', message: expect.stringContaining("not finished after 120 s (the step's timeout)") });
      expect(event.ts - submitted.get(event.node.key)!).toBeLessThanOrEqual(120_000 + 5_000);
    }
  }, 60_000);
});

