/**
 * The two clients of the pipeline benchmark, each through the transcribe → speak workflow of
 * `dir` (clips/*.mp3, pipeline.yaml): deflow (`runWorkflow`) and the fair hand-written client
 * (bench/_fair-client.ts). Each reports its makespan, the jobs it saw done, which transcription
 * and speech jobs form each item (by request id, for the bound), and when it saw each job done.
 * They run in a child process on a shared scaled clock, or in the emulator's process on a
 * discrete-event clock (`dispatcher`: the clock's, so time stands still while a request is out).
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { DeapiClient } from '../src/client/deapi-client.js';
import type { Clock } from '../src/common/clock.js';
import { makeMp3 } from '../src/emulator/media/index.js';
import type { RunEvent } from '../src/engine/contracts/events.js';
import { runWorkflow } from '../src/engine/run-workflow.js';
import { GatedGovernor } from '../src/engine/run/submit-gate.js';
import { startWebhookHints } from '../src/engine/webhooks/webhook-hints.js';
import { validateWorkflow } from '../src/workflow/validate/validate-workflow.js';
import { transcribeThenSpeakWorkflow } from './_bench-util.js';
import { createFairClient, DeadlinePassed } from './_fair-client.js';

/** Where and how a client runs. */
export interface ClientRun {
  readonly url: string;
  readonly apiKey: string;
  readonly dir: string;
  readonly clock: Clock;
  readonly dispatcher?: Dispatcher;
  /** Virtual epoch ms after which the fair client stops (Basic: one day). */
  readonly deadline: number | null;
  /** deflow runs with signed webhooks (a receiver in its process). */
  readonly webhooks: boolean;
  /** deflow's state folder (an earlier run's, for a second night); else a fresh one in `dir`. */
  readonly stateDir?: string;
}

/** What a client reports. */
export interface ClientFigures {
  readonly makespan_ms: number;
  readonly done: number;
  /** [transcription, speech] request ids of each item. */
  readonly chains: [string, string][];
  /** [request id, clock ms the client saw it done]. */
  readonly notices: [string, number][];
}

/** deflow: `runWorkflow` over the workflow, its state folder in `dir`. */
export async function runDeflow(payload: ClientRun): Promise<ClientFigures> {
  const { clock } = payload;
  const validation = await validateWorkflow(join(payload.dir, 'pipeline.yaml'), { offline: true });
  if (!validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
  const client = new DeapiClient({ apiKey: payload.apiKey, baseUrl: payload.url, clock, governor: new GatedGovernor({ clock }), ...(payload.dispatcher ? { dispatcher: payload.dispatcher } : {}) });
  let started = 0;
  let finished = 0;
  let lastDone = 0;
  const jobOf = new Map<string, string>();
  const notices: [string, number][] = [];
  const onEvent = (event: RunEvent): void => {
    if (event.type === 'item-downloading') notices.push([event.requestId, event.ts]);
    if (event.type === 'run-started') started = event.ts;
    if (event.type === 'item-submitted') jobOf.set(`${event.node.step}:${event.node.index}`, event.requestId);
    if (event.type === 'item-done') lastDone = event.ts;
    if (event.type === 'run-finished') finished = event.ts;
  };
  const hints = payload.webhooks ? await startWebhookHints({ url: 'http://127.0.0.1:0/', listen: '127.0.0.1:0', secret: randomBytes(32).toString('base64url'), clock }) : undefined;
  // The receiver picked its port: deliveries go there.
  const webhooks = hints === undefined ? null : { fields: { ...hints.fields, webhook_url: hints.receiver.url }, wakeups: hints.wakeups };
  const outcome = await runWorkflow({ graph: validation.graph, client, clock, stateDir: payload.stateDir ?? join(payload.dir, `.deflow-${process.pid}-${randomBytes(4).toString('hex')}`), onEvent, webhooks });
  await client.close();
  await hints?.close();
  // A run stopped by the day's limit ends when its last job was seen done.
  const end = outcome.status === 'done' ? finished : lastDone;
  const chains: [string, string][] = [];
  for (const [node, transcription] of jobOf) {
    const speech = node.startsWith('transcribe:') ? jobOf.get(`speak:${node.slice('transcribe:'.length)}`) : undefined;
    if (speech !== undefined) chains.push([transcription, speech]);
  }
  return { makespan_ms: end - started, done: outcome.counts.done, chains, notices };
}

/** The fair hand-written client: each clip's two jobs in turn, every job through one p-limit. */
export async function runFair(payload: ClientRun, concurrency: number): Promise<ClientFigures> {
  const { clock } = payload;
  const fair = createFairClient({
    baseUrl: payload.url,
    apiKey: payload.apiKey,
    clock,
    concurrency,
    ...(payload.deadline !== null ? { deadline: payload.deadline } : {}),
    ...(payload.dispatcher ? { dispatcher: payload.dispatcher } : {}),
  });
  const files = (await readdir(join(payload.dir, 'clips'))).sort();
  const t0 = clock.now();
  let done = 0;
  let lastDone = t0;
  const chains: [string, string][] = [];
  const notices: [string, number][] = [];
  const count = (status: Record<string, unknown>): boolean => {
    if (status.status !== 'done') return false;
    notices.push([String(status.request_id), clock.now()]);
    done++;
    lastDone = clock.now();
    return true;
  };
  await Promise.all(
    files.map(async (name) => {
      try {
        const transcript = await fair.limit(() =>
          fair.job('/api/v2/audio/transcriptions', {
            source_file: { path: join(payload.dir, 'clips', name), name },
            model: 'WhisperLargeV3',
            include_ts: 'false',
            return_result_in_response: 'true',
          }),
        );
        if (!count(transcript)) return;
        const speech = await fair.limit(() =>
          fair.job('/api/v2/audio/speech', { text: String(transcript.result ?? ''), model: 'Kokoro', voice: 'af_sky', lang: 'en-us', speed: '1', format: 'mp3', sample_rate: '24000' }),
        );
        if (count(speech)) chains.push([String(transcript.request_id), String(speech.request_id)]);
      } catch (error) {
        if (!(error instanceof DeadlinePassed)) throw error;
      }
    }),
  );
  return { makespan_ms: lastDone - t0, done, chains, notices };
}

/**
 * Writes `dir`: n clips (all of 3 s, or `varied`: 20-120 s, each `extraSeconds` longer) under
 * clips/ and pipeline.yaml. Clips of other lengths are other files (another night's media: no
 * result of one is cached for the other).
 */
export async function prepareWorkspace(dir: string, n: number, varied = false, extraSeconds = 0): Promise<void> {
  await mkdir(join(dir, 'clips'), { recursive: true });
  const source = join(dir, 'clip.mp3');
  await writeFile(source, makeMp3(3));
  for (let i = 0; i < n; i++) {
    const target = join(dir, 'clips', `c${String(i).padStart(5, '0')}.mp3`);
    if (!varied) {
      await link(source, target);
      continue;
    }
    // 20-120 s in a fixed shuffled order (37 and 101 are coprime): every length once per 101 clips.
    const seconds = 20 + ((i * 37) % 101) + extraSeconds;
    const made = join(dir, `clip-${seconds}.mp3`);
    await writeFile(made, makeMp3(seconds), { flag: 'w' });
    await link(made, target);
  }
  const workflow = transcribeThenSpeakWorkflow('bench-pipeline');
  await writeFile(join(dir, 'pipeline.yaml'), workflow);
}
